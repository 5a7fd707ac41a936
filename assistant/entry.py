"""A curated entry as a typed object: its text in each language, and the conditions it applies under.

The text fields are what the source says, for people to read. `conditions` states the same scope in
fields the code reads (version specifiers, SM codes, model names, quantization methods, features,
symptom classes), so that whether an entry applies to a user's setup is decided by comparing values,
never by parsing prose at query time. Every condition is optional: a field the source is silent on
stays empty ("unknown"), and an empty field never rules an entry out.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assistant.text.setup import CUDAGRAPH_MODES, PLATFORMS, QUANT_METHODS, SO_BACKENDS, SPEC_METHODS, Symptom


class Localized(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: str = ""
    zh: str = ""

    def get(self, lang: str) -> str:
        return (self.zh if lang == "zh" else self.en) or self.en or self.zh


class LocalizedList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)

    def get(self, lang: str) -> list[str]:
        return (self.zh if lang == "zh" else self.en) or self.en or self.zh


class Original(BaseModel):
    language: str
    question: str
    answer: str


def _choices(values: list[str], allowed: tuple[str, ...], what: str, fold=str.lower) -> list[str]:
    out = [fold(v) for v in values]
    bad = [v for v in out if v not in allowed]
    if bad:
        raise ValueError(f"unknown {what} {bad}; choose from: {', '.join(allowed)}")
    return out


class FeatureConditions(BaseModel):
    """Features the problem needs on (true) or off (false); a list names the values it occurs with."""

    model_config = ConfigDict(extra="forbid")
    speculative: bool | None = None
    speculative_method: list[str] = Field(default_factory=list)
    adaptive_verification: bool | None = None
    cudagraph_mode: list[str] = Field(default_factory=list)
    eager: bool | None = None
    structured_outputs: bool | None = None
    structured_outputs_backend: list[str] = Field(default_factory=list)
    batch_invariant: bool | None = None
    deep_gemm: bool | None = None
    multi_gpu: bool | None = None  # tensor / pipeline parallel over more than one GPU

    @field_validator("speculative_method")
    @classmethod
    def _spec(cls, v: list[str]) -> list[str]:
        return _choices(v, SPEC_METHODS, "speculative_method")

    @field_validator("cudagraph_mode")
    @classmethod
    def _cg(cls, v: list[str]) -> list[str]:
        return _choices(v, CUDAGRAPH_MODES, "cudagraph_mode", fold=str.upper)

    @field_validator("structured_outputs_backend")
    @classmethod
    def _so(cls, v: list[str]) -> list[str]:
        return _choices(v, SO_BACKENDS, "structured_outputs_backend")

    def stated(self) -> dict[str, Any]:
        """The feature conditions the entry sets, in declaration order."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, [])}


def _specifier(value: str | None, field: str) -> str | None:
    if value is None or value.strip().lower() in ("", "unknown"):
        return None
    try:
        SpecifierSet(value)
    except InvalidSpecifier as exc:
        raise ValueError(f"{field} must be a version specifier like '>=0.20.0,<=0.21.0' or 'unknown': {exc}") from exc
    return value.strip()


def _release(value: str | None, field: str) -> str | None:
    """A single release ("0.10.0", "v0.10.0"), or None for empty / "unknown"."""
    if value is None or value.strip().lower() in ("", "unknown"):
        return None
    try:
        return str(Version(value.strip().lstrip("v")))
    except InvalidVersion as exc:
        raise ValueError(f"{field} must be one release like '0.10.0' or 'unknown': {exc}") from exc


def parse_release_text(value: str, field: str) -> str | None:
    """The specifier a top-level version field states, or None when it is prose.

    `affected_versions: ">=0.7.0,<0.8.0"` is a specifier; a bare release means that release
    (`affected_versions: "0.7.3"` is `==0.7.3`) or, for `fixed_in`, that release and later (`>=0.8.0`).
    Prose ("vLLM v0.20.0–v0.21.0", "builds that include PR #44401") is shown as written and compared
    only through `conditions`.
    """
    text = value.strip()
    if text.lower() in ("", "unknown"):
        return None
    try:
        version = Version(text.lstrip("v"))
    except InvalidVersion:
        version = None
    if version is not None:
        return f">={version}" if field == "fixed_in" else f"=={version}"
    if not re.match(r"^\s*(?:[<>=!~]=?|===)", text):  # prose that happens to parse is not taken as a specifier
        return None
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        return None
    return text


class Conditions(BaseModel):
    """When the entry's problem occurs, as its source states it."""

    model_config = ConfigDict(extra="forbid")
    affected_versions: str | None = Field(None, description="PEP 440 specifier of the vLLM releases reported affected")
    fixed_in: str | None = Field(None, description="PEP 440 specifier of the vLLM releases that have the fix")
    introduced_in: str | None = Field(
        None,
        description="the release the behaviour began in (a changed default, a renamed flag, a regression): "
        "a user on an older release does not have it",
    )
    platforms: list[str] = Field(
        default_factory=list, description="platforms it occurs on (cuda, rocm, cpu, xpu, tpu, apple); empty: any"
    )
    fixed_in_nightly: bool = Field(False, description="the source verified the fix on main / nightly builds")
    hardware: list[str] = Field(default_factory=list, description="SM codes (SM80) or AMD gfx targets it occurs on")
    models: list[str] = Field(default_factory=list, description="models it is specific to (a name covers its variants)")
    unaffected_models: list[str] = Field(default_factory=list, description="models the source says do not have it")
    quantization: list[str] = Field(default_factory=list, description="quantization methods it occurs with")
    features: FeatureConditions = Field(default_factory=FeatureConditions)
    symptoms: list[Symptom] = Field(default_factory=list, description="what the user sees")
    error_named: bool = Field(
        False,
        description="offered only when the user's text quotes one of the entry's `error_strings`: a problem known by "
        "one message (a removed flag, an unknown env var) whose words alone match many other questions",
    )
    symptom_named: bool = Field(
        False,
        description="offered only when the user names one of `symptoms`: a general problem (a GPU out of memory) "
        "that is known by its symptom alone, not by a GPU, release or feature",
    )

    @field_validator("affected_versions")
    @classmethod
    def _affected(cls, v: str | None) -> str | None:
        return _specifier(v, "affected_versions")

    @field_validator("fixed_in")
    @classmethod
    def _fixed(cls, v: str | None) -> str | None:
        return _specifier(v, "fixed_in")

    @field_validator("introduced_in")
    @classmethod
    def _introduced(cls, v: str | None) -> str | None:
        return _release(v, "introduced_in")

    @field_validator("platforms")
    @classmethod
    def _platforms(cls, v: list[str]) -> list[str]:
        return _choices(v, PLATFORMS, "platform")

    @field_validator("hardware")
    @classmethod
    def _hardware(cls, v: list[str]) -> list[str]:
        out = [h.upper() if h.lower().startswith("sm") else h.lower() for h in v]
        bad = [h for h in out if not re.fullmatch(r"SM\d{2,3}|gfx\w+", h)]
        if bad:
            raise ValueError(f"hardware takes SM codes like 'SM80' or AMD targets like 'gfx942', got {bad}")
        return out

    @field_validator("quantization")
    @classmethod
    def _quant(cls, v: list[str]) -> list[str]:
        return _choices(v, QUANT_METHODS, "quantization")


class Renamed(BaseModel):
    """A flag or env var the entry names that a later release removed or renamed."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=2, description="the flag or env var as the entry names it: `--x` or `VLLM_X`")
    removed_in: str = Field(description="the first release without it")
    replaced_by: str | None = Field(None, description="its new name, when it was renamed")

    @field_validator("removed_in")
    @classmethod
    def _removed(cls, v: str) -> str:
        got = _release(v, "removed_in")
        if got is None:
            raise ValueError("removed_in must be a release like '0.11.0'")
        return got


class Entry(BaseModel):
    """A known problem. Every field is what its `source` says, nothing more."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{2,120}$")
    title: Localized
    question: Localized = Field(default_factory=Localized)
    symptoms: LocalizedList = Field(default_factory=LocalizedList)
    error_strings: list[str] = Field(default_factory=list)
    root_cause: Localized
    fix: Localized
    workarounds: LocalizedList = Field(default_factory=LocalizedList)
    affected_versions: str = "unknown"
    fixed_in: str = "unknown"
    introduced_in: str = "unknown"
    hardware: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    env_vars: list[str] = Field(default_factory=list)
    external_names: list[str] = Field(
        default_factory=list,
        description="flags and env vars of other tools the entry names (docker --shm-size, pip --no-build-isolation): "
        "not checked against vLLM's releases",
    )
    renamed: list[Renamed] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)
    conditions: Conditions = Field(default_factory=Conditions)
    source: str = Field(min_length=1)
    original: Original | None = None

    @property
    def full_messages(self) -> list[str]:
        """The `error_strings` that are whole messages (with a space): what a user's text is compared with. A bare
        exception name or a code fragment (`EngineDeadError`, `buf.copy_(`) is often missing from what users paste."""
        return [e for e in self.error_strings if " " in e.strip()]

    @field_validator("title", "root_cause", "fix")
    @classmethod
    def _non_empty(cls, v: Localized) -> Localized:
        if not (v.en.strip() or v.zh.strip()):
            raise ValueError("needs text in at least one language")
        return v

    @field_validator("introduced_in")
    @classmethod
    def _introduced(cls, v: str) -> str:
        _release(v, "introduced_in")  # one release or "unknown": a typo must not become prose
        return v.strip() or "unknown"

    @model_validator(mode="after")
    def _versions_as_conditions(self) -> Entry:
        """A top-level version field written as a specifier is also the condition, unless `conditions` sets one.

        So an entry states "fixed in 0.8.0" once, and applicability compares it with the user's release.
        """
        cond = self.conditions
        if cond.affected_versions is None:
            cond.affected_versions = parse_release_text(self.affected_versions, "affected_versions")
        if cond.fixed_in is None:
            cond.fixed_in = parse_release_text(self.fixed_in, "fixed_in")
        if cond.introduced_in is None:
            cond.introduced_in = _release(self.introduced_in, "introduced_in")
        return self
