"""Does a known problem apply to this user's setup? Each stated condition: applies, contradicts or unknown (pure).

A curated entry's fix is right only for the setups its source describes. Offering it to a user whose
GPU, vLLM release, model, quantization, features or symptom rule it out is the worst answer the
assistant can give, so a contradicted entry is never the answer; an unknown deciding condition is
asked about. Conditions come from the entry's typed `conditions` (never from its prose); the setup
from `assistant.text.setup`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from assistant.entry import Conditions, Entry
from assistant.text.setup import CRASH_KINDS, UserSetup

Verdict = Literal["applies", "contradicts", "unknown"]
# What to ask for when a condition is unknown, most decisive first.
Detail = Literal["gpu", "platform", "version", "model", "quantization", "feature", "symptom", "error"]
_ASK_ORDER: tuple[Detail, ...] = ("gpu", "platform", "version", "model", "quantization", "feature")

# Defaults users seldom set or know (vLLM picks them): asking about them would not help.
_NOT_ASKED = frozenset({"eager", "deep_gemm", "cudagraph_mode", "structured_outputs_backend"})
_NIGHTLY = Version("9999")  # a nightly / main build is newer than every release


@dataclass(frozen=True)
class Check:
    """One condition of an entry against the setup: the values the entry needs and those the user has."""

    detail: Detail
    verdict: Verdict
    needs: tuple[str, ...]  # e.g. ("SM80", "SM86", "SM89"); (">=0.20.0,<=0.21.0",); ("dspark",); ("on",)
    have: tuple[str, ...] = ()  # e.g. ("V100 (SM70)",); empty when the user did not say
    feature: str = ""  # the feature's name, for detail == "feature"
    fixed: bool = False  # a version check against the release that has the fix
    introduced: bool = False  # a version check against the release the behaviour began in


@dataclass(frozen=True)
class Applicability:
    checks: tuple[Check, ...] = ()

    @property
    def contradicted(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.verdict == "contradicts")

    @property
    def unknown(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.verdict == "unknown")

    @property
    def said_otherwise(self) -> bool:
        """Ruled out by what the user said (another GPU, release, symptom), not only by a symptom left unnamed."""
        return bool(self.contradicted) and all(c.have for c in self.contradicted)

    @property
    def verdict(self) -> Verdict:
        if self.contradicted:
            return "contradicts"
        return "unknown" if self.unknown else "applies"

    def asks(self, limit: int = 2) -> tuple[Check, ...]:
        """The unknown conditions worth asking about, most decisive first (symptoms are not asked)."""
        wanted = [c for c in self.unknown if c.detail in _ASK_ORDER and c.feature not in _NOT_ASKED]
        once = {(c.detail, c.feature): c for c in reversed(wanted)}  # one question per detail
        return tuple(sorted(once.values(), key=lambda c: _ASK_ORDER.index(c.detail))[:limit])


# --------------------------------------------------------------------------- single conditions


def _version(value: str) -> Version | None:
    if value == "nightly":
        return _NIGHTLY
    try:
        return Version(value)
    except InvalidVersion:
        return None


def _in(spec: str, version: Version) -> bool:
    return SpecifierSet(spec).contains(version, prereleases=True)


def check_versions(cond: Conditions, setup: UserSetup) -> list[Check]:
    """The user's release against the releases affected, the one the behaviour began in, and the fix.

    A release with the fix, or one older than the behaviour's start, contradicts; an affected release
    applies; an unstated release is unknown (and asked about).
    """
    if cond.fixed_in_nightly and setup.vllm_version == "nightly":
        return [Check("version", "contradicts", ("nightly",), ("nightly",), fixed=True)]
    if not (cond.affected_versions or cond.fixed_in or cond.introduced_in):
        return []
    version = _version(setup.vllm_version) if setup.vllm_version else None
    have = (setup.vllm_version,) if version is not None else ()
    if cond.fixed_in and version is not None and _in(cond.fixed_in, version):
        return [Check("version", "contradicts", (cond.fixed_in,), have, fixed=True)]
    out: list[Check] = []
    if cond.introduced_in:
        began = f">={cond.introduced_in}"
        if version is None:
            out.append(Check("version", "unknown", (began,), introduced=True))
        else:
            verdict: Verdict = "applies" if _in(began, version) else "contradicts"
            out.append(Check("version", verdict, (began,), have, introduced=True))
    if cond.affected_versions:
        if version is None:
            out.append(Check("version", "unknown", (cond.affected_versions,)))
        else:
            verdict = "applies" if _in(cond.affected_versions, version) else "contradicts"
            out.append(Check("version", verdict, (cond.affected_versions,), have))
    elif cond.fixed_in:
        out.append(Check("version", "unknown" if version is None else "applies", (cond.fixed_in,), have, fixed=True))
    return out


def check_platforms(cond: Conditions, setup: UserSetup) -> list[Check]:
    """A problem of one platform (ROCm, the CPU backend): a user who names another is ruled out.

    A user who names none runs the default (CUDA) most likely, but may not have said: unknown, and asked.
    """
    if not cond.platforms:
        return []
    needs = tuple(cond.platforms)
    if not setup.platforms:
        return [Check("platform", "unknown", needs)]
    have = tuple(sorted(setup.platforms))
    verdict: Verdict = "applies" if setup.platforms & set(cond.platforms) else "contradicts"
    return [Check("platform", verdict, needs, have)]


def check_hardware(cond: Conditions, setup: UserSetup) -> list[Check]:
    if not cond.hardware:
        return []
    needs = tuple(cond.hardware)
    known = [g for g in setup.gpus if g.sms]
    if not known:
        return [Check("gpu", "unknown", needs, tuple(g.name for g in setup.gpus))]
    have = tuple(g.name if g.sms == (g.name.upper(),) else f"{g.name} ({'/'.join(g.sms)})" for g in known)
    wanted = set(needs)
    if any(set(g.sms) <= wanted for g in known):  # every SM this GPU may be is covered
        return [Check("gpu", "applies", needs, have)]
    if any(set(g.sms) & wanted for g in known):  # "Blackwell": SM100 or SM120
        return [Check("gpu", "unknown", needs, have)]
    return [Check("gpu", "contradicts", needs, have)]


def _model_key(name: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", name.rsplit("/", 1)[-1].lower())


def check_models(cond: Conditions, setup: UserSetup) -> list[Check]:
    if not cond.models:
        return []
    needs = tuple(cond.models)
    if not setup.models:
        return [Check("model", "unknown", needs)]
    have = tuple(setup.models)
    unaffected = {_model_key(m) for m in cond.unaffected_models}
    if all(_model_key(m) in unaffected for m in setup.models):  # a checkpoint the source says works
        return [Check("model", "contradicts", needs, have)]
    verdicts = set()
    for user in map(_model_key, setup.models):
        for entry in map(_model_key, cond.models):
            if entry and entry in user:  # "DeepSeek-V4.1" covers "deepseek-ai/DeepSeek-V4.1-FP8"
                verdicts.add("applies")
            elif user and entry.startswith(user):  # the user named the model less precisely
                verdicts.add("unknown")
            else:
                verdicts.add("contradicts")
    verdict: Verdict = "applies" if "applies" in verdicts else "unknown" if "unknown" in verdicts else "contradicts"
    return [Check("model", verdict, needs, have)]


def check_quantization(cond: Conditions, setup: UserSetup) -> list[Check]:
    if not cond.quantization:
        return []
    needs = tuple(cond.quantization)
    if not setup.quantization:
        return [Check("quantization", "unknown", needs)]
    have = tuple(setup.quantization)
    verdict: Verdict = "applies" if set(setup.quantization) & set(cond.quantization) else "contradicts"
    return [Check("quantization", verdict, needs, have)]


def _on_off(value: bool) -> str:
    return "on" if value else "off"


def check_features(cond: Conditions, setup: UserSetup) -> list[Check]:
    have_all = setup.features
    out = []
    for name, wanted in cond.features.stated().items():
        value = getattr(have_all, name)
        if isinstance(wanted, bool):
            needs: tuple[str, ...] = (_on_off(wanted),)
            if value is None:
                out.append(Check("feature", "unknown", needs, feature=name))
            else:
                verdict: Verdict = "applies" if value == wanted else "contradicts"
                out.append(Check("feature", verdict, needs, (_on_off(value),), feature=name))
            continue
        needs = tuple(wanted)
        parent = {"speculative_method": "speculative", "structured_outputs_backend": "structured_outputs"}.get(name)
        if parent and getattr(have_all, parent) is False:  # the whole feature is off
            if not any(c.feature == parent for c in out):
                out.append(Check("feature", "contradicts", ("on",), ("off",), feature=parent))
        elif value is None:
            out.append(Check("feature", "unknown", needs, feature=name))
        else:
            verdict = "applies" if value in wanted else "contradicts"
            out.append(Check("feature", verdict, needs, (value,), feature=name))
    return out


def check_symptoms(cond: Conditions, setup: UserSetup) -> list[Check]:
    if not cond.symptoms:
        return []
    needs = tuple(cond.symptoms)
    have_set = set(setup.symptoms)
    if not have_set:  # a problem known by its symptom alone is not this one until the user names it
        return [Check("symptom", "contradicts" if cond.symptom_named else "unknown", needs)]
    have = tuple(setup.symptoms)
    if have_set & set(cond.symptoms):
        return [Check("symptom", "applies", needs, have)]
    if have_set == {"crash"} and set(cond.symptoms) & CRASH_KINDS:  # "it crashed" may be that crash
        return [Check("symptom", "unknown", needs, have)]
    return [Check("symptom", "contradicts", needs, have)]


# Python prints an exception raised with several string arguments as their tuple: ('... supported for ', 'the current
# GPU. ...'). The pieces joined are the message the source writes as one.
_TUPLE_JOIN = re.compile(r"""(['"])\s*,\s*\1""")


def _norm(text: str) -> str:
    """Lower case, one space, no backticks: a message quoted in Markdown (`rope_scaling` must be ...) is the same
    message as pasted from a page that rendered the backticks away. Quote marks stay: they are part of the message."""
    return re.sub(r"\s+", " ", text.replace("`", "")).strip().lower()


def _haystacks(text: str) -> tuple[str, str]:
    """The user's text as `_norm` reads it, and again with a tuple's string pieces joined: RuntimeError('for ',
    'the GPU') says "for the GPU" (a dict's "', '" is kept in the first reading)."""
    plain = _norm(text)
    return plain, _TUPLE_JOIN.sub("", plain)


def _forms(message: str) -> tuple[str, ...]:
    """`message`, and what follows its first ": " when that is a message too (with a space): "RuntimeError: not
    home_path.empty()" is also pasted without its class, but the tail of "Unknown part type: file" ("file") or of
    "unrecognized arguments: --task" ("--task") is a word any text may hold, not the error."""
    tail = message.split(": ", 1)[-1].strip()
    return (message, tail) if tail != message.strip() and " " in tail else (message,)


def check_errors(entry: Entry, setup: UserSetup, text: str) -> list[Check]:
    """An entry known by an error message, and a paste whose error lines are other ones: another problem.

    Only full messages ("RuntimeError: not home_path.empty()") decide; a bare exception name such as
    `EngineDeadError` is often missing from what users paste (the client's HTTP 500, the root line).
    """
    messages = entry.full_messages
    if not messages:
        return []
    needs = tuple(messages)
    haystacks = _haystacks(text)
    forms = [_norm(f) for e in messages for f in _forms(e)]
    if any(f in h for f in forms for h in haystacks):
        return [Check("error", "applies", needs, needs)]
    if setup.errors:
        return [Check("error", "contradicts", needs, (setup.errors[-1][:160],))]
    if entry.conditions.error_named:  # known by its message alone: not this one until the user quotes it
        return [Check("error", "contradicts", needs)]
    return [Check("error", "unknown", needs)]


def assess(entry: Entry, setup: UserSetup, text: str) -> Applicability:
    """Every condition the entry states, compared with the setup; `text` is the user's words (for error lines)."""
    cond = entry.conditions
    checks: list[Check] = []
    for fn in (
        check_hardware, check_platforms, check_versions, check_models, check_quantization, check_features,
        check_symptoms,
    ):  # fmt: skip
        checks += fn(cond, setup)
    checks += check_errors(entry, setup, text)
    return Applicability(tuple(checks))


def assess_all(entries: Sequence[Entry | None], setup: UserSetup, text: str) -> list[Applicability]:
    """`assess` for each entry; a non-entry source (docs, Q&A) has no conditions and is not ruled out."""
    return [assess(e, setup, text) if e is not None else Applicability() for e in entries]
