"""Query analysis: pull the signals out of a pasted log or a question (pure functions)."""

from __future__ import annotations

import re

from assistant.models import Signals
from assistant.text.lang import cjk_count
from assistant.text.vocab import CJK_CHARS, CJK_PUNCT, COMMAND_PREFIX, ENV_NAME, ENV_VALUE, FLAG, VERSION, WORD_START

# Every pattern here must cost time linear in the text: a user may paste 20 KB of anything. A pattern that can
# restart inside a run of identifier characters and scan to the run's end from each start (`a.a.a.…`) is
# quadratic; those start only where a run starts (a lookbehind) or are bounded, and quantifiers that can only
# give back what the next token cannot take are possessive (`*+`). tests/text/test_input_cost.py checks it.
# An exception's class name; only the last part of a dotted path (`torch.OutOfMemoryError`) is kept, so the
# path itself is not matched.
# ASCII boundaries: "报错RuntimeError" names the exception too.
_EXC = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Interrupt|Exit))\b", re.ASCII)
# The exception's name that opens an error message ("ImportError: ", "torch.OutOfMemoryError: ", "CUDA error: "): the
# words after it are the message's own.
EXCEPTION_PREFIX = re.compile(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception)|CUDA error)\s*:\s*")
# An error message: `pkg.mod.ValueError: text`, `CUDA error: text`, `assert …`. The exception's dotted name is
# read from the first letter of its run of `[\w.]` (digits and dots before it skipped), never from inside it.
_MSG = re.compile(
    r"(?<![\w.])(?:[^\W_A-Za-z]|\.)*+(?P<exc>[A-Za-z_][\w.]*(?:Error|Exception)\s*+:\s*+\S.{0,200})"
    r"|(?P<other>CUDA error:\s*+\S.{0,160}|(?:AssertionError|assert)\b.{0,160})"
)
_ENV = re.compile(f"{WORD_START}({ENV_NAME})({ENV_VALUE})?")
_FLAG = re.compile(f"{WORD_START}({FLAG})")
# a version, with a local part (`+cu121`), not a file name (`1.2.py`)
# (the word boundary first, and the look for `.py` bounded: each end the version may back off to is tried)
_VERSION = re.compile(rf"(?<![\w.])({VERSION}(?:\+\w+)?)\b(?![\w.]{{0,40}}\.py)", re.ASCII)  # "版本是0.8.5"
_GPU = re.compile(
    r"\b(sm_?\d{2,3}[a-z]?|RTX\s?(?:PRO\s?)?\d{4}(?:\s?Ti)?|A100|A10G?|A30|A40|A6000|H100|H200|H20|H800|A800|"
    r"B200|B300|GB200|GB300|L4|L40S?|T4|V100|MI\d{3}X?|Blackwell|Hopper|Ampere|Ada Lovelace|Volta|Turing)\b",
    re.IGNORECASE | re.ASCII,  # "在A100上跑", "8卡H100": a card's name ends, and starts, where Chinese text does
)
_MODEL = re.compile(
    r"\b((?:[A-Za-z0-9][\w.-]{0,95}/)?(?:Qwen|Llama|Meta-Llama|DeepSeek|Mistral|Mixtral|Gemma|Phi|GLM|Kimi|gpt-oss|Yi|"
    r"InternLM|Baichuan|Falcon|OPT|Granite|Command|SmolLM|MiniCPM|Hunyuan)[\w.-]*+)",
    re.IGNORECASE | re.ASCII,  # "部署Qwen2.5-7B时报错": a model name ends, and starts, where Chinese text does
)
# A model-like name that is a folder of a Python file's path (`…/playground/LLama-Factory/scripts/vllm_image.py` in a
# traceback frame, `python /work/Qwen-VL/finetune.py`) names the user's code, not the model they serve.
_IN_SOURCE_PATH = re.compile(r"/[^\s\"'()]*?\.py\b")


def _in_source_path(text: str, m: re.Match[str]) -> bool:
    return m.group(1).endswith(".py") or bool(_IN_SOURCE_PATH.match(text, m.end()))


# CamelCase: an upper-case letter, later an upper-case letter or digit, later a lower-case letter (each part
# matched up to its first occurrence, so nothing is tried twice).
_CAMEL = re.compile(r"\b([A-Z][a-z]*+[A-Z0-9]++[a-z][A-Za-z0-9]*+)\b")
_SNAKE = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\.[a-z_][\w]*)*(?:\(\))?)")
# `home_path.empty()`: the run of `[\w.]` before `()`, from its start; `_dotted_calls` keeps its identifier tail.
_CALL_RUN = re.compile(r"(?<![\w.])([\w.]++)\(\)")
_IDENT = re.compile(r"[A-Za-z_]\w*")

# Log lines that carry the problem rather than the noise around it.
_SALIENT = re.compile(
    r"(error|exception|traceback|failed|failure|fatal|illegal|crash|abort|assert|killed|oom|out of memory|"
    r"not supported|unsupported|invalid|cannot|can't|unable|timeout|timed out|hang|deadlock|warning)",
    re.IGNORECASE,
)
_LOG_PREFIX = re.compile(
    r"^\s*(?:\(\w+[^)]*\)\s*)?(?:(?:INFO|DEBUG|WARNING|ERROR|CRITICAL)\s+)?\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}(?:\.\d+)?\s*"
    r"|^\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}[^\]\s]*\]?\s*"
)
_FRAME = re.compile(r'^\s*File "[^"]+", line \d+')
_FILE_TAG = re.compile(r"^\[?[\w./-]+\.py:\d+\]\s*")  # "[core.py:700] " or "scheduler.py:1560] " after the timestamp
_LEVEL_PREFIX = re.compile(
    r"^\s*(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL|FATAL)(?::|\s+(?=\[))\s*"
)  # "ERROR: …", "WARNING [x.py:1]"
_ACCESS_LOG = re.compile(
    r'^\s*(?:INFO:\s+)?\S+:\d+ - "(?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) '
)  # uvicorn's access log
# A command line that starts vLLM, as users paste it (after `COMMAND_PREFIX`: a prompt, `sudo`, `nohup`, the env vars
# it sets: `CUDA_VISIBLE_DEVICES=0,1 python3 -m vllm.entrypoints.openai.api_server …`).
_COMMAND = re.compile(COMMAND_PREFIX + r"(?:vllm\s+(?:serve|bench|chat)|python3?\s+-m\s+vllm|docker\s+run)\b")
# A command that builds or installs vLLM rather than starting it (`docker build . --target vllm-openai`, `pip install
# vllm==0.6.0`): setup too, for the problem part (`problem.without_commands`), not a command that runs vLLM.
_BUILD_COMMAND = re.compile(COMMAND_PREFIX + r"(?:docker\s+build|(?:uv\s+)?pip3?\s+install)\b")
_CJK_TEXT = re.compile(f"[{CJK_CHARS}{CJK_PUNCT}]+")  # Chinese characters and punctuation, run by run
_PLAIN_WORD = re.compile(r"[a-z]+[,.;:!?]?")  # "takes", "has,": a sentence's next word, not a model, path or flag
_PART_CHARS = 300  # one part of the focus text at most: a long paragraph must not crowd out the error
_GENERIC_EXC = frozenset({"Error", "Exception", "Warning"})


def _uniq(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def _dotted_calls(text: str) -> list[str]:
    """`a.b.c()`: the longest tail of dotted identifiers (two at least) before each `()`."""
    calls = []
    for m in _CALL_RUN.finditer(text):
        parts = m.group(1).split(".")
        n = len(parts)
        while n and _IDENT.fullmatch(parts[n - 1]):
            n -= 1
        if len(parts) - n >= 2:
            calls.append(".".join(parts[n:]) + "()")
    return calls


def extract_signals(text: str) -> Signals:
    exceptions = [m.group(1).rsplit(".", 1)[-1] for m in _EXC.finditer(text)]
    env = [m.group(1) + (m.group(2) or "") for m in _ENV.finditer(text)]
    env_names = {m.group(1) for m in _ENV.finditer(text)}
    identifiers = [m.group(1) for m in _CAMEL.finditer(text) if m.group(1) not in exceptions]
    identifiers += [m.group(1) for m in _SNAKE.finditer(text)]
    identifiers += _dotted_calls(text)
    return Signals(
        exceptions=_uniq(e for e in exceptions if e not in _GENERIC_EXC),
        messages=_uniq((m.group("exc") or m.group("other")).strip() for m in _MSG.finditer(text)),
        env_vars=_uniq(env),
        flags=_uniq(m.group(1) for m in _FLAG.finditer(text)),
        versions=_uniq(m.group(1) for m in _VERSION.finditer(text)),
        gpus=_uniq(m.group(1) for m in _GPU.finditer(text)),
        models=_uniq(m.group(1) for m in _MODEL.finditer(text) if not _in_source_path(text, m)),
        identifiers=_uniq(i for i in identifiers if i not in env_names and len(i) > 3),
    )


def is_log_line(line: str) -> bool:
    """A line a logger wrote (a timestamp, or a level such as `ERROR:` / `WARNING [x.py:1]`), not the user."""
    return bool(_LOG_PREFIX.match(line) or _LEVEL_PREFIX.match(line))


def is_command(line: str, builds: bool = False) -> bool:
    """A line that starts vLLM (`vllm serve …`, `python -m vllm…`, `docker run …`, after a prompt, `nohup` or the env
    vars it sets), log chrome removed; not a sentence that begins with the command's name ("vllm serve takes ten
    minutes to start", "vllm serve 有健康检查的接口吗"). `builds`: also one that builds or installs it (`docker build
    …`, `pip install …`; "docker build fails" is a sentence)."""
    stripped = line.strip()
    command = _COMMAND.match(stripped) or (_BUILD_COMMAND.match(stripped) if builds else None)
    if command is None:
        return False
    rest = stripped[command.end() :]
    if _CJK_TEXT.search(rest):
        return False
    first = rest.split(None, 1)[0] if rest.strip() else ""
    # An English word next, and no flag nor continuation after it: prose ("vllm serve mistral --port 1" runs a model).
    return not (_PLAIN_WORD.fullmatch(first) and " -" not in rest and not rest.rstrip().endswith("\\"))


def _message_opens(body: str) -> bool:
    """An exception line whose message continues on the next, indented lines ("RuntimeError:" alone)."""
    return bool(re.match(r"^[\w.]*(?:Error|Exception)\s*+:?\s*+$", body)) or (
        bool(_MSG.search(body)) and body.endswith(":")
    )


# What the embedding model is given of a message: a few hundred characters (MiniLM reads 256 tokens at most).
SUMMARY_CHARS = 600


def _word_count(line: str) -> float:
    """Words in a line, a Chinese one included: Chinese puts no space between words, which average about two
    characters, so a sentence of Chinese is one "word" to `split()` and was never read as the user's prose."""
    cjk = cjk_count(line)
    if not cjk:
        return len(line.split())
    return len(_CJK_TEXT.sub(" ", line).split()) + cjk / 2


def salient_text(text: str, limit: int = SUMMARY_CHARS, chinese_words: bool = False) -> str:
    """The part of a paste worth embedding: the user's own words and the error lines, the last error early.

    A pasted log is mostly noise (timestamps, INFO lines, access logs, stack frames, code); the embedding model
    sees only a few hundred characters, so those must be the description, the last error, the question asked
    and the command that was run. Code and logs inside a fence are not the user's words; a WARNING or ERROR
    line counts as an error line by its level; an exception message that continues on indented lines is read
    whole. `chinese_words` (`Settings.chinese_prose_words`): a Chinese line's words are counted as about two
    characters each, not by its spaces, so that it can be prose (off: it lost out of sample, eval/README.md). Without
    it, a message with no prose line and no error line (a title and a Chinese sentence or two beside a pasted command)
    is read from its own short lines: what the user says comes before the command they run.
    """
    words = _word_count if chinese_words else (lambda line: len(line.split()))
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    if len(lines) <= 3 and len(text) <= limit:
        return text.strip()
    prose: list[str] = []
    errors: list[str] = []
    commands: list[str] = []
    short: list[str] = []  # the user's own lines of fewer than four words
    in_fence, opened = False, -1  # opened: the error whose message continues below
    for ln in lines:
        if ln.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        is_log = is_log_line(ln)
        body = _FILE_TAG.sub("", _LEVEL_PREFIX.sub("", _LOG_PREFIX.sub("", ln)).strip())
        if opened >= 0 and ln.startswith((" ", "\t")) and not _FRAME.match(body) and len(errors[opened]) < 300:
            errors[opened] = f"{errors[opened]} {body}".strip()
            continue
        opened = -1
        if (
            _ACCESS_LOG.match(ln)
            or _FRAME.match(body)
            or body.startswith(("^", "~", "Traceback (most recent call last)"))
        ):
            continue
        own = not (is_log or in_fence) and not ln.startswith((" ", "\t")) and not _MSG.search(body)
        if is_command(body):
            commands.append(body)
        elif own and words(body) >= 4:
            prose.append(body)
        elif own and not _SALIENT.search(ln):
            short.append(body)
        elif _SALIENT.search(ln):  # the line's level counts: "WARNING … preempted"
            errors.append(body)
            if _message_opens(body):
                opened = len(errors) - 1
    errors = list(dict.fromkeys(reversed(errors)))  # the last error line is usually the real one
    if not prose and not errors:  # a title and a Chinese sentence or two: what the user says, not their command
        prose = short
    asked = [p for p in prose[1:] if p.rstrip().endswith(("?", "？"))][-1:]  # the question, often at the end
    parts = prose[:1] + errors[:1] + asked + [p for p in prose[1:3] if p not in asked] + commands[:1] + errors[1:]
    out, size = [], 0
    for part in dict.fromkeys(p[:_PART_CHARS] for p in parts):
        if size + len(part) > limit and out:
            break
        out.append(part)
        size += len(part) + 1
    return "\n".join(out) if out else text.strip()[:limit]


_FRAME_FUNC = re.compile(r'^\s*File "[^"]+", line \d+, in (\S+)')
_LOG_TAG = re.compile(
    r"^\s*(?:\(\w+[^)]*\)\s*)?(?:INFO|DEBUG|WARNING|ERROR|CRITICAL)?:?\s*(?:\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}\S*\s*)?(?:\[[\w./-]+:\d+\]\s*)?"
)


def without_log_chrome(text: str) -> str:
    """The text a lexical index should count: log prefixes, frame paths and caret lines removed.

    Every traceback shares `File "/usr/local/lib/python3.12/dist-packages/...", line N` and every server
    log shares `(EngineCore_DP0 pid=..) ERROR 10-02 13:07:51 [core.py:720]`; counted as words they make
    any two tracebacks look alike. The function names of the frames stay: they say where it failed.
    """
    out = []
    for line in text.split("\n"):
        line = _LOG_TAG.sub("", line, count=1) if _LOG_PREFIX.match(line) or line.lstrip().startswith("(") else line
        frame = _FRAME_FUNC.match(line)
        if frame:
            out.append(frame.group(1))
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("Traceback (most recent call last)") or set(stripped) <= set("^~ "):
            continue
        out.append(line)
    return "\n".join(out)
