"""Applicability in words: what a known problem needs, what the user has, what to ask (pure).

The entry's side of each phrase comes from its typed conditions (so it is what the source states and
can be cited); the user's side comes from their own words and is never cited.
"""

from __future__ import annotations

import re

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from assistant.answer.applicability import Applicability, Check
from assistant.answer.text import APPLY, DETAILS, FEATURES, ON_OFF, QUESTIONS, RELEASE, SYMPTOM_NAMES
from assistant.entry import Conditions, Renamed
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
    elif check.introduced:
        value = f"{value} (where it began)" if lang == "en" else f"{value}（该行为开始的版本起）"
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


def release_shown(spec: str) -> str:
    """ "0.8.0" for ">=0.8.0" (the release that has the fix), else the specifier as written."""
    m = re.fullmatch(r"\s*>=\s*v?([\w.+-]+)\s*", spec)
    return m.group(1) if m else spec


def _parsed(value: str | None) -> Version | None:
    if value == "nightly":
        return Version("9999")  # newer than every release, as applicability counts it
    if not value:
        return None
    try:
        return Version(value.lstrip("v"))
    except InvalidVersion:
        return None


def older_minor(have: str | None, newest: str | None) -> bool:
    """Whether release `have` belongs to an older minor series than `newest` (0.6.6.post2 against 0.33.0; not
    0.33.0rc1 nor 0.33.1 against 0.33.2). False when either cannot be read, and for a nightly build."""
    mine, top = _parsed(have), _parsed(newest)
    if mine is None or top is None or have == "nightly":
        return False
    return mine.release[:2] < top.release[:2]


def release_line(cond: Conditions, version: str | None, lang: Lang) -> str:
    """Whether the user's release has the problem: "you run 0.7.3; fixed in 0.8.0: upgrade", or "".

    From the entry's typed version conditions only; "" when the user gave no release, or the entry states none
    (then the unknown version is asked about instead, see `depends_line`).
    """
    L = RELEASE[lang]
    have = version.lstrip("v") if version else None
    if have is None or not (cond.affected_versions or cond.fixed_in or cond.introduced_in or cond.fixed_in_nightly):
        return ""
    mine = _parsed(have)
    nightly = have == "nightly"

    def contains(spec: str) -> bool:
        return mine is not None and SpecifierSet(spec).contains(mine, prereleases=True)

    text = ""
    if cond.fixed_in and contains(cond.fixed_in) or (cond.fixed_in_nightly and nightly):
        text = L["behind"].format(fixed=release_shown(cond.fixed_in or "nightly"), have=have)
    elif cond.introduced_in and mine is not None and mine < Version(cond.introduced_in):
        text = L["before"].format(began=cond.introduced_in, have=have)
    elif cond.affected_versions and not contains(cond.affected_versions):
        text = L["unaffected"].format(have=have, affected=cond.affected_versions)
    elif cond.fixed_in:
        shown = release_shown(cond.fixed_in)
        text = (L["upgrade"] if shown != cond.fixed_in else L["upgrade_spec"]).format(have=have, fixed=shown)
    elif cond.fixed_in_nightly:
        text = L["nightly"].format(have=have)
    elif cond.affected_versions:
        text = L["affected"].format(have=have, affected=cond.affected_versions)
    elif cond.introduced_in:
        text = L["began"].format(began=cond.introduced_in, have=have)
    colon = ": " if lang == "en" else "："
    return f"**{L['head']}**{colon}{text}" if text else ""


def renamed_line(r: Renamed, lang: Lang) -> str:
    """ "`--x` was removed in 0.11.0 (use `--y`)"."""
    if lang == "zh":
        return f"`{r.name}` 已在 {r.removed_in} 移除" + (f"（改用 `{r.replaced_by}`）" if r.replaced_by else "")
    return f"`{r.name}` was removed in {r.removed_in}" + (f" (use `{r.replaced_by}`)" if r.replaced_by else "")
