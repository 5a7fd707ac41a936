"""Make any user text safe to process and store (pure): valid Unicode, no NULs or control characters.

JSON lets a client send a lone surrogate (`"\\ud800"`) or a NUL; neither can be encoded as UTF-8, so
the tokenizer, SQLite and the logs would fail on them. They are replaced or dropped up front.
"""

from __future__ import annotations

import re
import unicodedata

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD and control characters (NUL included) removed;
    tabs and line breaks are kept."""
    return _CONTROL.sub("", _SURROGATE.sub("\ufffd", text))


def has_words(text: str) -> bool:
    """Whether the text holds anything searchable: a letter or a digit in any script (not just
    punctuation, symbols or emoji). Unicode's L and N categories, exactly what the API's schema states as
    the pattern `[\\p{L}\\p{N}]`, so a schema-valid question is never refused as wordless."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)
