"""Applicability in words: what a known problem needs, what the user has, what to ask (pure).

The entry's side of each phrase comes from its typed conditions (so it is what the source states and
can be cited); the user's side comes from their own words and is never cited.
"""

from __future__ import annotations

from assistant.answer.applicability import Applicability, Check
from assistant.answer.text import APPLY, DETAILS, FEATURES, ON_OFF, QUESTIONS, SYMPTOM_NAMES
from assistant.models import Lang


def _values(check: Check, values: tuple[str, ...], lang: Lang) -> str:
    if check.detail == "symptom":
        return " / ".join(SYMPTOM_NAMES[lang].get(v, v) for v in values)
    if check.detail == "quantization":
        return ", ".join(("unquantized" if lang == "en" else "未量化") if v == "none" else v.upper() for v in values)
    if check.detail == "feature" and values and values[0] in ("on", "off"):
        return ON_OFF[lang][values[0]]
    if check.detail == "error":
        return " | ".join(f"`{v}`" for v in values)
    return ", ".join(values)


def _label(check: Check, lang: Lang) -> str:
    if check.detail == "feature":
        return FEATURES[lang].get(check.feature, check.feature)
    return DETAILS[lang][check.detail]


def needs(check: Check, lang: Lang) -> str:
    """The entry's side: "GPU SM80, SM86, SM89", "vLLM version ==0.31.0", "speculative decoding on"."""
    value = _values(check, check.needs, lang)
    if check.fixed:
        value = f"without the fix (fixed in {value})" if lang == "en" else f"不含修复（修复于 {value}）"
    return f"{_label(check, lang)} {value}" if lang == "en" else f"{_label(check, lang)}为{value}"


def has(check: Check, lang: Lang) -> str:
    """The user's side, or "?" when they did not say."""
    if not check.have:
        return "?"
    if check.detail == "error":
        return f"`{check.have[0]}`"
    value = _values(check, check.have, lang)
    return f"{_label(check, lang)} {value}" if lang == "en" else f"{_label(check, lang)}为{value}"


def scope_line(app: Applicability, lang: Lang) -> str:
    """Every condition the entry states, e.g. "GPU SM80, SM86, SM89 · quantization AWQ"."""
    return " · ".join(needs(c, lang) for c in app.checks if c.detail != "error")


def contradiction(app: Applicability, lang: Lang) -> tuple[str, str]:
    """(what the entry needs, what the user has) over its contradicted conditions."""
    checks = app.contradicted
    sep = "; " if lang == "en" else "；"
    return sep.join(needs(c, lang) for c in checks), sep.join(has(c, lang) for c in checks)


def questions(app: Applicability, lang: Lang, limit: int = 2) -> list[str]:
    """The questions that would settle the unknown deciding conditions."""
    out = []
    for c in app.asks(limit):
        template = QUESTIONS[lang][c.detail]
        out.append(template.format(feature=FEATURES[lang].get(c.feature, c.feature)))
    return out


def depends_line(app: Applicability, lang: Lang, limit: int = 2) -> str:
    """ "Whether this applies depends on: GPU SM80, SM86, SM89. To confirm, tell me: which GPU?" or ""."""
    asks = app.asks(limit)
    if not asks:
        return ""
    L = APPLY[lang]
    sep = "; " if lang == "en" else "；"
    colon = ": " if lang == "en" else "："
    what = sep.join(needs(c, lang) for c in asks)
    return f"**{L['depends']}**{colon}{what}. {L['ask']}{colon}" + " ".join(questions(app, lang, limit))
