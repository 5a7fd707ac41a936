"""The domain vocabulary in one place: what a flag, an env var, a version and Chinese text look like, and the
words that carry no meaning.

Query analysis (`assistant/text/*`, `assistant/retrieval/query.py`), the release detector
(`assistant/release/version.py`) and the LLM answer verifier (`assistant/answer/verify.py`) read the same
patterns here, so the retriever and the verifier agree on what `--enforce-eager`, `VLLM_USE_DEEP_GEMM=0`
or `0.11.1` is. The eval's grader (`assistant/eval/metrics.py`) keeps its own copy on purpose: a grader that
shared the graded code would share its mistakes.

The patterns are strings, so each user adds the boundaries and groups its job needs.
"""

from __future__ import annotations

import re

# Chinese (CJK unified ideographs, extension A, compatibility ideographs).
CJK_CHARS = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# CJK punctuation and full-width forms: `，` `。` `（` `）`.
CJK_PUNCT = r"\u3000-\u303f\uff00-\uffef"
# `VLLM_USE_DEEP_GEMM`, `CUDA_HOME`: upper-case words joined by underscores (at least two words).
ENV_NAME = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
# `=0`, `=/usr/local/cuda`: the value an env var is set to, up to a space, quote, bracket or separator, or Chinese
# text ("设置VLLM_USE_V1=0后正常": the value is `0`).
ENV_VALUE = rf"=[^\s`'\",;)\]{CJK_CHARS}{CJK_PUNCT}]+"
# `--enforce-eager`, `--max_model_len` (vLLM's argument parser accepts underscores too).
FLAG = r"--[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*"
# The start of a pasted command line, before its program: a prompt (`$`, `>`), a backtick, `sudo`, `nohup` and the env
# vars it sets (`CUDA_VISIBLE_DEVICES=0,1 python3 …`).
COMMAND_PREFIX = r"^[`$>\s]*(?:sudo\s+)?(?:nohup\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"
# `0.11.1`, `v0.10.2rc1`, `2.13.0.post1`, `0.9.0.dev3`.
VERSION = r"v?\d+\.\d+(?:\.\d+)*(?:rc\d+|\.post\d+|\.dev\d+)?"
# `0.31.0`, `0.31`, `0.33.0rc1`, `0.8.5.post1`, `0.9.0.dev3`: a vLLM release as a paste or a pin states it (no `v`).
VLLM_RELEASE = r"\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+|\.dev\d+)?"
# `0.31.0`, `0.31`, `0.33.0rc1`, `0.8.5.post1`: a published release as a git tag or a curated `fixed_in` names it
# (no dev builds, which are never tagged; no `v`, each user allows it).
RELEASE_TAG = r"\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?"
# What `vllm serve` logs on start-up before its version: `vLLM API server version 0.31.0`.
# The official image's tag names the release: `vllm/vllm-openai:v0.10.1`, `vllm-openai-rocm:v0.9.2`.
VLLM_IMAGE_TAG = r"\bvllm-openai(?:-[a-z0-9]+)?:"
SERVER_BANNER = r"vLLM API server version\s+"
# Not preceded by an ASCII word character or a dash: the start of a flag or an env var, not the middle of a word. A
# Chinese character before it is no word of the flag's ("请使用--enforce-eager参数", "设置VLLM_USE_V1=0后"), though
# Python's `\w` counts it as one.
WORD_START = r"(?<![A-Za-z0-9_-])"

CJK = re.compile(f"[{CJK_CHARS}]")
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")

# Words that say nothing about the problem: left out of the lexical channel and of evidence.
STOPWORDS_EN = frozenset(
    """a an and are as at be but by can do does for from had has have how i if in into is it its me my no not
    of on or so such that the their then there these this to was we what when where which while who why will
    with you your am been being did doing get got just any all also our out up very after before again
    """.split()
)
STOPWORDS_ZH = frozenset(
    "的 了 是 在 和 与 及 或 我 你 他 她 它 我们 你们 这 那 这个 那个 就 都 也 还 把 被 对 于 吗 呢 吧 啊 呀 么 "
    "什么 怎么 怎么办 如何 为什么 一个 有 没有 会 能 可以 请问 一下 时 时候 上 中 下 后 之后 然后 但是 但 而 如果 "
    "， 。 ？ ！ 、 ： ； （ ） “ ” ‘ ’ 《 》".split()
)
# Words any answer uses whether or not it is grounded: the verifier does not count them as shared with a source.
UNGROUNDED_WORDS = STOPWORDS_EN | frozenset(
    """should could would about because more most other some make sure each using used uses like need needs here
    were they than only however answer source sources problem issue error question please following based
    check them those
    """.split()
)
