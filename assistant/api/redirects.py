"""Where `/login` may send a browser afterwards: a path on this server, never another origin (pure).

Browsers read a `Location` loosely: they drop tabs and newlines (`/\t/evil` becomes `//evil`) and treat
`\\` as `/`; a proxy on the way may decode `%2F`. So a target is checked as written and after each round
of percent-decoding, and anything doubtful falls back to the UI. What passes is sent as written: printable
ASCII, so it can never break the header it goes into.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

DEFAULT_NEXT = "/ui/"
_MAX_DECODES = 4  # `%25252F` is `/` after three rounds; a target needing more is refused
_MAX_CHARS = 2048


def _control(ch: str) -> bool:
    return ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F


def _same_origin_path(text: str) -> bool:
    if not text.startswith("/") or text.startswith("//") or "\\" in text or any(_control(ch) for ch in text):
        return False
    parts = urlsplit(text)
    return not parts.scheme and not parts.netloc


def safe_next(value: object, default: str = DEFAULT_NEXT) -> str:
    """`value` when it is a same-origin path (a leading `/`, no `//`, no backslash, no control characters or
    tabs, as written and once percent-decoded, and printable ASCII as written); else `default`."""
    if not isinstance(value, str) or not 0 < len(value) <= _MAX_CHARS:
        return default
    if not value.isascii() or not value.isprintable() or " " in value:
        return default
    text = value
    for _ in range(_MAX_DECODES):
        if not _same_origin_path(text):
            return default
        decoded = unquote(text)
        if decoded == text:
            return value
        text = decoded
    return default
