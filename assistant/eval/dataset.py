"""The labelled eval sets (`eval/sets/*.jsonl`), loaded and checked with errors that name file and line.

Four sets, one shape each:
- seed, docs: `expect: answer`, with `relevant` (entry ids or `docs/<path>.md#anchor` sources) and `key_facts`;
- negatives: `expect: abstain`;
- near_miss: `expect: not_fix`, with `near` (the entry it resembles) and `forbidden_facts`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assistant.errors import AssistantError
from assistant.settings import REPO_ROOT

SETS = ("seed", "docs", "negatives", "near_miss")
ANSWERABLE = ("seed", "docs")
DEFAULT_SETS_DIR = REPO_ROOT / "eval" / "sets"

Expect = Literal["answer", "abstain", "not_fix"]
_EXPECT_BY_SET = {"seed": "answer", "docs": "answer", "negatives": "abstain", "near_miss": "not_fix"}


class DatasetError(AssistantError):
    """An eval set is missing or a line does not have the shape its set needs."""


@dataclass(frozen=True)
class Item:
    id: str
    set: str
    query: str
    lang: str
    expect: Expect
    kind: str = ""
    relevant: tuple[str, ...] = ()
    key_facts: tuple[str, ...] = ()
    near: str | None = None
    forbidden_facts: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        return self.expect == "answer"


def _strings(row: dict, field: str, where: str, required: bool) -> tuple[str, ...]:
    value = row.get(field)
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise DatasetError(f"{where}: {field!r} must be a non-empty list of strings")
    return tuple(value)


def _regexes(patterns: tuple[str, ...], field: str, where: str) -> tuple[str, ...]:
    for p in patterns:
        try:
            re.compile(p, re.IGNORECASE)
        except re.error as exc:
            raise DatasetError(f"{where}: {field} pattern {p!r} is not a valid regex: {exc}") from exc
    return patterns


def parse_item(row: object, set_name: str, where: str) -> Item:
    if not isinstance(row, dict):
        raise DatasetError(f"{where}: each line must be a JSON object")
    for field in ("id", "query", "expect"):
        if not isinstance(row.get(field), str) or not row[field].strip():
            raise DatasetError(f"{where}: missing or empty {field!r}")
    expect = row["expect"]
    wanted = _EXPECT_BY_SET.get(set_name)
    if expect not in ("answer", "abstain", "not_fix"):
        raise DatasetError(f"{where}: expect {expect!r} is not one of: answer, abstain, not_fix")
    if wanted and expect != wanted:
        raise DatasetError(f"{where}: the {set_name} set holds expect={wanted!r} items, got {expect!r}")
    lang = row.get("lang", "en")
    if lang not in ("en", "zh"):
        raise DatasetError(f"{where}: lang {lang!r} is not one of: en, zh")
    item = Item(id=row["id"], set=set_name, query=row["query"], lang=lang, expect=expect, kind=row.get("kind") or "")
    if expect == "answer":
        relevant = _strings(row, "relevant", where, required=True)
        facts = _regexes(_strings(row, "key_facts", where, required=True), "key_facts", where)
        return Item(**{**item.__dict__, "relevant": relevant, "key_facts": facts})
    if expect == "not_fix":
        if not isinstance(row.get("near"), str) or not row["near"].strip():
            raise DatasetError(f"{where}: a not_fix item needs 'near', the id of the entry it resembles")
        forbidden = _regexes(_strings(row, "forbidden_facts", where, required=True), "forbidden_facts", where)
        return Item(**{**item.__dict__, "near": row["near"], "forbidden_facts": forbidden})
    return item


def load_set(name: str, sets_dir: Path = DEFAULT_SETS_DIR) -> list[Item]:
    if name not in SETS:
        raise DatasetError(f"unknown eval set {name!r}; choose one of: {', '.join(SETS)}, all")
    path = sets_dir / f"{name}.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read eval set {path}: {exc}") from exc
    items: list[Item] = []
    seen: set[str] = set()
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{where}: not valid JSON: {exc.msg}") from exc
        item = parse_item(row, name, where)
        if item.id in seen:
            raise DatasetError(f"{where}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise DatasetError(f"eval set {path} is empty")
    return items


def load_sets(names: str | list[str] = "all", sets_dir: Path = DEFAULT_SETS_DIR) -> dict[str, list[Item]]:
    chosen = list(SETS) if names == "all" else [names] if isinstance(names, str) else names
    out = {name: load_set(name, sets_dir) for name in chosen}
    ids: dict[str, str] = {}
    for name, items in out.items():
        for item in items:
            if item.id in ids:
                raise DatasetError(f"id {item.id!r} appears in both the {ids[item.id]} and the {name} sets")
            ids[item.id] = name
    return out
