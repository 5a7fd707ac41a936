"""Which vLLM release the user runs, as the question or the paste says it (pure).

One detector for the whole assistant: the user's setup (`assistant.text.setup`) reads the version with it, and
the release's code facts are looked up in the version the setup holds, so an answer's applicability line and its
code facts never name two different releases for one message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.release.store import version_key
from assistant.text.vocab import SERVER_BANNER, VLLM_IMAGE_TAG, VLLM_RELEASE

_V = rf"v?({VLLM_RELEASE})"
_AT = r"(?<![A-Za-z0-9_])"  # ASCII: "我的vllm版本 0.31" names vLLM (a CJK character is a word character to `\b`)
_END = r"(?!\.?[A-Za-z0-9_])"  # "vllm 0.31.0abc" names no release; "vllm 0.31启动" does
# Most specific first: the server's banner, `vllm collect-env`, pip pins, the image tag, a wheel's name, then
# prose ("on vllm 0.31", "vllm 版本是 0.31.0", "vllm-0.9.2", "vllm/v0.10").
_PATTERNS = [
    re.compile(SERVER_BANNER + _V, re.IGNORECASE),
    re.compile(r"vLLM Version\s*[:：]\s*" + _V, re.IGNORECASE),
    re.compile(_AT + r"vllm\s*(?:==|@)\s*" + _V, re.IGNORECASE),
    re.compile(VLLM_IMAGE_TAG + _V + r"(?![\w.]*\d)", re.IGNORECASE),
    re.compile(_AT + r"vllm-" + _V + r"[-+]", re.IGNORECASE),
    re.compile(
        _AT
        + r"vllm(?:\s*(?:version is|version|is|ver\.?|v)?\s*[:：=]?\s*|\s*版本\s*(?:是|为)?\s*[:：]?\s*|[-_/])"
        + _V
        + _END,
        re.IGNORECASE,
    ),
]
# A bare 0.x.y is vLLM's (its releases are 0.x) unless another package is named just before it.
_BARE_ZERO = re.compile(r"(?<![\w.])v?(0\.\d{1,2}\.\d+(?:rc\d+|\.post\d+)?)(?![\w.]*\w)", re.ASCII)  # "版本是0.8.5"
# A template's version field just before a bare version: the product it names is the version's.
_FIELD_BEFORE = re.compile(r"([A-Za-z][\w .+-]{0,40}?)[ \t]+version[^\w\n]{0,4}\s{0,4}$", re.IGNORECASE)
_VLLM = re.compile(r"(?<![A-Za-z0-9_])vllm(?![A-Za-z0-9_])", re.IGNORECASE)
_OTHER_PRODUCT = re.compile(
    r"(torch|pytorch|cuda|python|transformers|xgrammar|flashinfer|triton|nccl|driver|pydantic|numpy|ray|"
    r"openai|fastapi|gradio|node|npm|react|pip|setuptools|outlines|guidance|驱动)\W{0,3}$",
    re.IGNORECASE,
)
_NIGHTLY = re.compile(
    r"\b(nightly|main branch|latest main|from main|main/nightly)\b|最新的?\s*main|nightly\s*版", re.IGNORECASE
)


def detect_version(text: str) -> str | None:
    """The vLLM version a paste or question states, e.g. "0.31.0", "0.31" or "nightly"; None when it says none.

    Of several, the most specific kind wins, and of one kind the last named: the release a user moved to
    ("upgraded from vllm 0.30.0 to vllm 0.31.0") or the one that fails ("vllm 0.30.0 worked, vllm 0.31.0 fails").
    """
    for pattern in _PATTERNS:
        found = [m.group(1) for m in pattern.finditer(text)]
        if found:
            return found[-1]
    for m in _BARE_ZERO.finditer(text):
        field = _FIELD_BEFORE.search(text[max(0, m.start() - 60) : m.start()])  # "### Open WebUI Version\n\nv0.5.20"
        if field and not _VLLM.search(field.group(1)):
            continue
        if not _OTHER_PRODUCT.search(text[max(0, m.start() - 14) : m.start()]):
            return m.group(1)
    return "nightly" if _NIGHTLY.search(text) else None


def resolve_version(wanted: str | None, indexed: Sequence[str]) -> str | None:
    """The indexed release a stated version means: itself, or the newest x.y.* for "x.y"; None if not indexed."""
    if not wanted:
        return None
    wanted = wanted.lstrip("v")
    if wanted in indexed:
        return wanted
    same_minor = [v for v in indexed if v.startswith(wanted + ".")]
    return max(same_minor, key=version_key) if same_minor else None


def at_or_after(version: str, other: str) -> bool:
    """Whether `version` is `other` or newer ("0.31" counts as 0.31.0)."""
    return version_key(version) >= version_key(other)
