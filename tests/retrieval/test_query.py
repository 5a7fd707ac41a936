import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.models import Turn
from assistant.retrieval.evidence import PRIOR_MASS, coverage, evidence, known_share
from assistant.retrieval.query import _run_specific_shape, analyze, contextualize


def test_setup_details_do_not_count_as_evidence_terms():
    q = analyze("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB on an RTX 4090 with Llama-3.1-70B")
    assert "outofmemoryerror" in q.focus_tokens and "memory" in q.focus_tokens
    assert not {"896.00", "4090", "llama-3.1-70b", "70b"} & set(q.focus_tokens)
    assert "sm89" in q.focus_tokens  # the GPU's architecture does describe the problem's scope
    assert "4090" in q.lexical_tokens  # retrieval still sees everything


def test_the_lexical_channel_reads_the_problem_not_the_command_line():
    q = analyze(
        "tensor parallel start-up just keeps hanging, nothing after the NCCL lines\n"
        "`CUDA_VISIBLE_DEVICES=0,1 python3 -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2 --model m`"
    )
    assert {"hanging", "nccl"} <= set(q.lexical_tokens)
    assert not {"cuda_visible_devices", "--tensor-parallel-size", "api_server"} & set(q.lexical_tokens)


def test_a_message_that_is_its_command_keeps_it():
    q = analyze("vllm serve m --enable-turbo-mode fails")
    assert "--enable-turbo-mode" in q.lexical_tokens


def test_chinese_question_gets_an_english_view_for_the_dense_channel():
    q = analyze("vllm 服务崩溃，报错显存不足")
    assert q.lang == "zh"
    assert "out of memory" in q.dense_text
    assert "crash" in q.lexical_tokens


def test_pasted_log_dense_text_is_the_error_not_the_noise():
    log = "\n".join([f"INFO 06-10 21:32:{i:02d} [loader.py:{i}] loading shard {i}" for i in range(30)])
    q = analyze(log + "\nRuntimeError: not home_path.empty()")
    assert "home_path.empty()" in q.dense_text
    assert "loading shard" not in q.dense_text


def test_follow_up_without_its_own_signal_borrows_the_last_user_turn():
    history = [Turn("user", "RuntimeError: not home_path.empty()"), Turn("assistant", "Set VLLM_USE_DEEP_GEMM=0 [1]")]
    assert contextualize("what about on H100?", history).startswith("RuntimeError: not home_path.empty()")
    new_error = "CUDA error: an illegal memory access was encountered"
    assert contextualize(new_error, history) == new_error
    assert contextualize("hello", None) == "hello"


def test_coverage_is_idf_weighted():
    idf = {"deepgemm": 5.0, "the": 0.1, "crash": 1.0}.get
    assert coverage(["deepgemm", "crash"], frozenset({"deepgemm"}), lambda t: idf(t, 5.0)) == 5.0 / (6.0 + PRIOR_MASS)
    assert coverage([], frozenset(), lambda t: 1.0) == 0.0


def test_a_question_that_says_little_cannot_be_fully_covered():
    idf = lambda t: 6.0  # every word as specific as a word can be here
    one_word = coverage(["request"], frozenset({"request"}), idf)
    long_question = coverage([f"w{i}" for i in range(12)], frozenset(f"w{i}" for i in range(12)), idf)
    assert one_word < 0.5 < long_question < 1.0
    assert known_share(["request"], idf, lambda t: True) == one_word


def test_evidence_grows_with_each_view():
    low = evidence(0.1, 0.05, 0.3, False)
    for better in (evidence(0.6, 0.05, 0.3, False), evidence(0.1, 0.8, 0.3, False), evidence(0.1, 0.05, 1.0, False), evidence(0.1, 0.05, 0.3, True)):
        assert better > low
    assert 0.0 < low < 0.01
    assert evidence(0.7, 0.6, 1.0, True) > 0.9
    assert known_share(["abc", "xyz"], lambda t: 1.0, lambda t: t == "abc") == 1.0 / (2.0 + PRIOR_MASS)


def test_what_identifies_one_run_is_not_an_evidence_term():
    paste = (
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
        "exceeded with url: /api/models/Qwen/Qwen2.5-14B/revision/main (Caused by NewConnectionError("
        "'<urllib3.connection.HTTPSConnection object at 0x7f9b6c1d2e90>')) from 10.0.3.17 with modelscope==1.22.3"
    )
    focus = set(analyze(paste).focus_tokens)
    assert not focus & {"0x7f9b6c1d2e90", "port=443", "modelscope==1.22.3", "10.0.3.17"}
    assert not any(t.count("/") >= 2 for t in focus)
    assert {"connectionerror", "huggingface.co", "port", "modelscope", "revision"} <= focus  # the words stay
    assert "0x7f9b6c1d2e90" in analyze(paste).lexical_tokens  # BM25 still sees the paste as written


# The shapes a run-specific token has, as the regex that backtracked cubically on a long run of letters stated them:
# the scans that replaced it must agree with it on every token.
_RUN_SPECIFIC_REGEX = re.compile(
    r"^(?:0x[0-9a-f]+|[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*)$"
    r"|=.*\d|/.*/|^\d+\.\d+\.\d+\.\d+"
)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.text(alphabet="0123456789abcdefxz=/._-:", min_size=1, max_size=16))
def test_run_specific_shapes_agree_with_the_regex_they_replace(token: str) -> None:
    assert _run_specific_shape(token) == bool(_RUN_SPECIFIC_REGEX.search(token))


@pytest.mark.parametrize(
    ("token", "expected"),
    [("0x7f9b3c", True), ("a3f9c2e1", True), ("port=443", True), ("a/b/c", True), ("10.0.3.17", True),
     ("deadbeef", False), ("12345678", False), ("enforce-eager", False), ("a=b", False), ("a/b", False)],
)  # fmt: skip
def test_run_specific_shapes(token: str, expected: bool) -> None:
    assert _run_specific_shape(token) is expected
