"""Curated knowledge-base entries: one YAML file per known problem, bilingual, reviewed in git."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from assistant.entry import Entry
from assistant.errors import LoadError
from assistant.models import Chunk
from assistant.text.glossary import english_view


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
