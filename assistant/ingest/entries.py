"""Curated knowledge-base entries: one YAML file per known problem, bilingual, reviewed in git."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assistant.errors import LoadError
from assistant.models import Chunk
from assistant.text.glossary import english_view


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
    hardware: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    env_vars: list[str] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)
    source: str = Field(min_length=1)
    original: Original | None = None

    @field_validator("title", "root_cause", "fix")
    @classmethod
    def _non_empty(cls, v: Localized) -> Localized:
        if not (v.en.strip() or v.zh.strip()):
            raise ValueError("needs text in at least one language")
        return v


def parse_entry(text: str, path: str) -> Entry:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise LoadError(path, f"invalid YAML: {str(exc).splitlines()[0]}") from exc
    if not isinstance(data, dict):
        raise LoadError(path, "an entry file must be a YAML mapping (see corpus/README.md)")
    try:
        return Entry.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'entry'}: {e['msg']}" for e in exc.errors()[:5])
        raise LoadError(path, f"not a valid entry: {problems}") from exc


def entry_chunk(entry: Entry, source: str, origin: Path) -> Chunk:
    en_parts = [
        entry.title.en,
        entry.question.en,
        *entry.symptoms.en,
        *entry.error_strings,
        entry.root_cause.en,
    ]
    dense = "\n".join(p for p in en_parts if p) or english_view(entry.title.zh + " " + entry.root_cause.zh)
    lexical_parts = [
        entry.title.en, entry.title.zh, entry.question.en, entry.question.zh,
        *entry.symptoms.en, *entry.symptoms.zh, *entry.error_strings,
        entry.root_cause.en, entry.root_cause.zh, entry.fix.en, entry.fix.zh,
        *entry.workarounds.en, *entry.workarounds.zh,
        " ".join(entry.hardware + entry.models + entry.flags + entry.env_vars),
    ]  # fmt: skip
    return Chunk(
        id=entry.id,
        kind="entry",
        title=entry.title.en or entry.title.zh,
        source=source,
        origin=str(origin),
        dense_text=dense,
        lexical_text="\n".join(p for p in lexical_parts if p),
        lang="en" if entry.title.en else "zh",
        data=entry.model_dump(exclude={"original"}),
    )


def load_entry_file(text: str, path: Path, source: str) -> list[Chunk]:
    entry = parse_entry(text, str(path))
    if entry.id != path.stem:  # a copied file that kept its id would silently replace the original
        raise LoadError(
            str(path),
            f"the entry's id '{entry.id}' differs from its file name: name the file {entry.id}{path.suffix} "
            f"or set id: {path.stem}",
        )
    return [entry_chunk(entry, source, path)]
