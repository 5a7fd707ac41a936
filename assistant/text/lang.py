"""Language of a text: Chinese when it holds Chinese characters, else English."""

from assistant.models import Lang
from assistant.text.vocab import CJK as _CJK


def cjk_count(text: str) -> int:
    return len(_CJK.findall(text))


def detect_lang(text: str) -> Lang:
    """Two Chinese characters are enough: logs are English, so Chinese marks the user's own words."""
    return "zh" if cjk_count(text) >= 2 else "en"


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None
