"""Which vLLM release the user runs, as the question or the paste says it (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.release.store import version_key
from assistant.text.vocab import SERVER_BANNER, VLLM_IMAGE_TAG, VLLM_RELEASE

_V = rf"v?({VLLM_RELEASE})"
# Most specific first: the server's banner, `vllm collect-env`, pip pins, the image tag, then prose ("on vllm 0.31").
_PATTERNS = [
    re.compile(SERVER_BANNER + _V, re.IGNORECASE),
    re.compile(r"vLLM Version\s*[:：]\s*" + _V, re.IGNORECASE),
    re.compile(r"\bvllm\s*==\s*" + _V, re.IGNORECASE),
    re.compile(VLLM_IMAGE_TAG + _V + r"(?![\w.]*\d)", re.IGNORECASE),
    re.compile(r"\bvllm-" + _V + r"[-+]", re.IGNORECASE),
    re.compile(r"\bvllm\s*(?:version is|version|is|版本|ver\.?)?\s*[:：=]?\s*" + _V + r"(?!\.?\w)", re.IGNORECASE),
]


def detect_version(text: str) -> str | None:
    """The vLLM version a paste or question states, e.g. "0.31.0" or "0.31"; None when it says none."""
    for pattern in _PATTERNS:
        m = pattern.search(text)
        if m:
            return m.group(1)
    return None


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
