"""Query analysis: pull the signals out of a pasted log or a question (pure functions)."""

from __future__ import annotations

import re

from assistant.models import Signals
from assistant.text.vocab import ENV_NAME, ENV_VALUE, FLAG, VERSION, WORD_START

_EXC = re.compile(r"\b((?:[A-Za-z_][\w]*\.)*[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Interrupt|Exit))\b")
_MSG = re.compile(
    r"((?:[A-Za-z_][\w.]*(?:Error|Exception))\s*:\s*\S.{0,200}|CUDA error:\s*\S.{0,160}|(?:AssertionError|assert)\b.{0,160})"
)
_ENV = re.compile(f"{WORD_START}({ENV_NAME})({ENV_VALUE})?")
_FLAG = re.compile(f"{WORD_START}({FLAG})")
# a version, with a local part (`+cu121`), not a file name (`1.2.py`)
_VERSION = re.compile(rf"(?<![\w.])({VERSION}(?:\+\w+)?)(?![\w.]*\.py)\b")
_GPU = re.compile(
    r"\b(sm_?\d{2,3}[a-z]?|RTX\s?(?:PRO\s?)?\d{4}(?:\s?Ti)?|A100|A10G?|A30|A40|A6000|H100|H200|H20|H800|A800|"
    r"B200|B300|GB200|GB300|L4|L40S?|T4|V100|MI\d{3}X?|Blackwell|Hopper|Ampere|Ada Lovelace|Volta|Turing)\b",
    re.IGNORECASE,
)
_MODEL = re.compile(
    r"\b((?:[A-Za-z0-9][\w.-]*/)?(?:Qwen|Llama|Meta-Llama|DeepSeek|Mistral|Mixtral|Gemma|Phi|GLM|Kimi|gpt-oss|Yi|"
    r"InternLM|Baichuan|Falcon|OPT|Granite|Command|SmolLM|MiniCPM|Hunyuan)[\w.-]*)",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"\b([A-Z][a-z0-9]*[A-Z0-9][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b")
_SNAKE = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\.[a-z_][\w]*)*(?:\(\))?)")
_DOTTED_CALL = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\(\))")

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
_FILE_TAG = re.compile(r"^\[[\w./-]+:\d+\]\s*")  # "[core.py:700] " after a log line's timestamp
_GENERIC_EXC = frozenset({"Error", "Exception", "Warning"})


def _uniq(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def extract_signals(text: str) -> Signals:
    exceptions = [m.group(1).rsplit(".", 1)[-1] for m in _EXC.finditer(text)]
    env = [m.group(1) + (m.group(2) or "") for m in _ENV.finditer(text)]
    env_names = {m.group(1) for m in _ENV.finditer(text)}
    identifiers = [m.group(1) for m in _CAMEL.finditer(text) if m.group(1) not in exceptions]
    identifiers += [m.group(1) for m in _SNAKE.finditer(text)]
    identifiers += [m.group(1) for m in _DOTTED_CALL.finditer(text)]
    return Signals(
        exceptions=_uniq(e for e in exceptions if e not in _GENERIC_EXC),
        messages=_uniq(m.group(1).strip() for m in _MSG.finditer(text)),
        env_vars=_uniq(env),
        flags=_uniq(m.group(1) for m in _FLAG.finditer(text)),
        versions=_uniq(m.group(1) for m in _VERSION.finditer(text)),
        gpus=_uniq(m.group(1) for m in _GPU.finditer(text)),
        models=_uniq(m.group(1) for m in _MODEL.finditer(text)),
        identifiers=_uniq(i for i in identifiers if i not in env_names and len(i) > 3),
    )


def salient_text(text: str, limit: int = 600) -> str:
    """The part of a paste worth embedding: the user's own words, then error lines, last error first.

    A pasted log is mostly noise (timestamps, INFO lines, stack frames); the embedding model sees only a
    few hundred characters, so those must be the description and the exception lines.
    """
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    if len(lines) <= 3 and len(text) <= limit:
        return text.strip()
    prose, errors = [], []
    for ln in lines:
        is_log = bool(_LOG_PREFIX.match(ln))
        body = _FILE_TAG.sub("", _LOG_PREFIX.sub("", ln).strip())
        if _FRAME.match(body) or body.startswith(("^", "~", "```", "Traceback (most recent call last)")):
            continue
        if not is_log and not ln.startswith((" ", "\t")) and len(body.split()) >= 4 and not _MSG.search(body):
            prose.append(body)
        elif _SALIENT.search(body):
            errors.append(body)
    errors = list(dict.fromkeys(reversed(errors)))  # the last error line is usually the real one
    asked = [p for p in prose[3:] if p.rstrip().endswith(("?", "？"))][-1:]  # the question, often at the end
    out, size = [], 0
    for part in prose[:3] + asked + errors:
        if size + len(part) > limit and out:
            break
        out.append(part[:limit])
        size += len(part) + 1
    return "\n".join(out) if out else text.strip()[:limit]


_FRAME_FUNC = re.compile(r'^\s*File "[^"]+", line \d+, in (\S+)')
_LOG_TAG = re.compile(r"^\s*(?:\(\w+[^)]*\)\s*)?(?:INFO|DEBUG|WARNING|ERROR|CRITICAL)?:?\s*(?:\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}\S*\s*)?(?:\[[\w./-]+:\d+\]\s*)?")


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
