"""The labelled eval sets (`eval/sets/*.jsonl`), loaded and checked with errors that name file and line.

Six sets, one shape each:
- seed, docs: `expect: answer`, with `relevant` (entry ids or `docs/<path>.md#anchor` sources) and `key_facts`;
- reports: `expect: answer`, the docs shape, but each question is a whole GitHub issue as vLLM users file it (the
  issue template with `collect_env.py` output, a titled report with a log, or a raw server log with one sentence),
  answered by one docs section (a second one only where it answers as well);
- docs_zh: `expect: answer`, Chinese renderings of English docs questions: each has `pair`, the id of its English
  twin in `docs`, and the twin's `relevant` sources, so Chinese and English retrieval can be compared question by
  question;
- negatives: `expect: abstain`;
- near_miss: `expect: not_fix`, with `near` (the entry it resembles) and `forbidden_facts`; optionally
  `contradiction` (which of the entry's conditions the user's setup contradicts, one of CONTRADICTIONS) and
  `relevant` (another source that does answer the question; without it the right behaviour is to abstain);
- entry_questions: `expect: answer`, the seed shape: a question about one curated entry, written from another real
  thread than the entry's own (`relevant` holds entry ids only, `note` names the thread);
- entry_near_miss: the near_miss shape, near-misses of the curated entries written the same way.

In the two entry sets, every `near` and every `relevant` label that is not a docs source must be the id of a file in
`corpus/entries/` (a renamed or deleted entry is an error, not a silently unanswerable question). The sets of
HELD_OUT_SETS are held out whole: never fitted on (`assistant/eval/split.py`, `eval/calibrate.py`).

An answerable line may give `"relevant": []`: no source's section answers it (the fix is only in a thread), so key-fact
recall judges it and hit@k leaves it out.

Optional on any line: `pair` (the id of the same question in the other language, in any loaded set), `note`
(why the item is labelled as it is, for a reader). Optional on a negative: `answered_in`, the vLLM releases whose own
docs do answer it though the gate's docs do not, each with the answering section and a sentence quoted from it
(`{"0.33.0": {"section": "features/lora.md#Serving LoRA Adapters", "quote": "..."}}`); an eval on that release's
docs (`--docs-release`) leaves it out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assistant.errors import AssistantError
from assistant.settings import REPO_ROOT

SETS = ("seed", "docs", "negatives", "near_miss", "docs_zh", "reports", "entry_questions", "entry_near_miss")
ANSWERABLE = ("seed", "docs", "docs_zh", "reports", "entry_questions")
# Sets no question of which is ever fitted on: the gate's out-of-sample questions about the curated entries.
HELD_OUT_SETS = ("near_miss", "entry_questions", "entry_near_miss")
# Sets whose `relevant` labels name curated entries (a docs source starts with DOCS_LABEL).
ENTRY_SETS = ("entry_questions", "entry_near_miss")
DOCS_LABEL = "docs/"
DEFAULT_SETS_DIR = REPO_ROOT / "eval" / "sets"
DEFAULT_ENTRIES_DIR = REPO_ROOT / "corpus" / "entries"

Expect = Literal["answer", "abstain", "not_fix"]
_EXPECT_BY_SET = {
    "seed": "answer",
    "docs": "answer",
    "negatives": "abstain",
    "near_miss": "not_fix",
    "docs_zh": "answer",
    "reports": "answer",
    "entry_questions": "answer",
    "entry_near_miss": "not_fix",
}
# How a near-miss differs from the entry it resembles: the user's GPU is not one the entry covers; the user's
# version already has the entry's fix (or is outside its affected range); a feature the entry's bug needs is not
# in use; the symptom is another one (OOM, hang, slow, wrong output instead of a crash); another model or
# quantization than the entry's.
CONTRADICTIONS = ("hardware", "version_fixed", "feature_absent", "other_symptom", "other_model")
# A set whose every line is the twin of a line in another set, and which set holds the twins.
_PAIRED_SETS = {"docs_zh": "docs"}


class DatasetError(AssistantError):
    """An eval set is missing or a line does not have the shape its set needs."""


@dataclass(frozen=True)
class Answered:
    """Where a release's docs answer a question the gate's docs do not: a section and a sentence quoted from it."""

    release: str
    section: str  # "<page path under docs/>#<heading>"
    quote: str


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
    contradiction: str | None = None
    pair: str | None = None
    note: str = ""
    answered_in: tuple[Answered, ...] = ()

    @property
    def answerable(self) -> bool:
        return self.expect == "answer"

    def answered_by(self, release: str) -> bool:
        """Whether vLLM `release`'s own docs answer this negative (see `answered_in`)."""
        return any(a.release == release for a in self.answered_in)


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
    for field in ("pair", "note", "kind"):
        if field in row and (not isinstance(row[field], str) or not row[field].strip()):
            raise DatasetError(f"{where}: {field!r} must be a non-empty string when given")
    if set_name in _PAIRED_SETS:
        if "pair" not in row:
            raise DatasetError(f"{where}: a {set_name} item needs 'pair', the id of its twin in the {_PAIRED_SETS[set_name]} set")
        if lang != "zh":
            raise DatasetError(f"{where}: the {set_name} set holds Chinese items (lang 'zh'), got {lang!r}")
    if "answered_in" in row and expect != "abstain":
        raise DatasetError(f"{where}: 'answered_in' is only for negatives (expect abstain)")
    if "contradiction" in row and expect != "not_fix":
        raise DatasetError(f"{where}: 'contradiction' is only for not_fix (near_miss) items")
    item = Item(
        id=row["id"], set=set_name, query=row["query"], lang=lang, expect=expect, kind=row.get("kind") or "",
        pair=row.get("pair"), note=row.get("note") or "",
    )
    if expect == "answer":
        # `"relevant": []` says on purpose that no docs section answers it: only its key facts judge it, and the
        # retrieval metrics leave it out (a missing field is still an error: a label forgotten, not decided).
        if row.get("relevant") == []:
            relevant: tuple[str, ...] = ()
        else:
            relevant = _strings(row, "relevant", where, required=True)
        facts = _regexes(_strings(row, "key_facts", where, required=True), "key_facts", where)
        return Item(**{**item.__dict__, "relevant": relevant, "key_facts": facts})
    if expect == "not_fix":
        if not isinstance(row.get("near"), str) or not row["near"].strip():
            raise DatasetError(f"{where}: a not_fix item needs 'near', the id of the entry it resembles")
        forbidden = _regexes(_strings(row, "forbidden_facts", where, required=True), "forbidden_facts", where)
        contradiction = row.get("contradiction")
        if contradiction is not None and contradiction not in CONTRADICTIONS:
            raise DatasetError(f"{where}: contradiction {contradiction!r} is not one of: {', '.join(CONTRADICTIONS)}")
        relevant = _strings(row, "relevant", where, required=False)
        return Item(
            **{**item.__dict__, "near": row["near"], "forbidden_facts": forbidden, "contradiction": contradiction,
               "relevant": relevant}
        )
    return Item(**{**item.__dict__, "answered_in": _answered_in(row, where)})


def _answered_in(row: dict, where: str) -> tuple[Answered, ...]:
    value = row.get("answered_in")
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise DatasetError(f"{where}: 'answered_in' must be an object of release -> {{section, quote}}")
    out = []
    for release, where_answered in value.items():
        if not isinstance(where_answered, dict) or not all(
            isinstance(where_answered.get(k), str) and where_answered[k].strip() for k in ("section", "quote")
        ):
            raise DatasetError(f"{where}: answered_in[{release!r}] needs a non-empty 'section' and 'quote'")
        out.append(Answered(release, where_answered["section"], where_answered["quote"]))
    return tuple(out)


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


def entry_ids(entries_dir: Path = DEFAULT_ENTRIES_DIR) -> set[str]:
    """The curated entries' ids: their file names (the loader rejects a file whose `id` differs from its name)."""
    return {p.stem for p in entries_dir.glob("*.yaml")}


def check_entry_labels(items: list[Item], known: set[str]) -> None:
    """In an entry set, every `near` and every non-docs `relevant` label names a curated entry.

    Why: a question whose expected entry was renamed or deleted would score as a retrieval miss forever.
    """
    for item in items:
        if item.set not in ENTRY_SETS:
            continue
        labels = ([item.near] if item.near else []) + [r for r in item.relevant if not r.startswith(DOCS_LABEL)]
        unknown = [label for label in labels if label not in known]
        if unknown:
            raise DatasetError(f"{item.set} item {item.id!r}: {unknown} is not the id of any entry in corpus/entries/")


def load_sets(
    names: str | list[str] = "all", sets_dir: Path = DEFAULT_SETS_DIR, entries_dir: Path = DEFAULT_ENTRIES_DIR
) -> dict[str, list[Item]]:
    chosen = list(SETS) if names == "all" else [names] if isinstance(names, str) else names
    out = {name: load_set(name, sets_dir) for name in chosen}
    check_entry_labels([i for items in out.values() for i in items], entry_ids(entries_dir))
    by_id: dict[str, Item] = {}
    for name, items in out.items():
        for item in items:
            if item.id in by_id:
                raise DatasetError(f"id {item.id!r} appears in both the {by_id[item.id].set} and the {name} sets")
            by_id[item.id] = item
    # A paired set is checked against its twins even when only it was asked for.
    twins = dict(by_id)
    for name in chosen:
        other = _PAIRED_SETS.get(name)
        if other and other not in out:
            twins.update({i.id: i for i in load_set(other, sets_dir) if i.id not in twins})
    check_pairs([i for items in out.values() for i in items], twins, every_set=set(SETS) <= set(out))
    return out


def check_pairs(items: list[Item], twins: dict[str, Item], every_set: bool) -> None:
    """A `pair` names an item of the other language that exists; a paired set's twins expect the same sources.

    Why: the Chinese-vs-English comparison is only meaningful question by question, with the same labels.
    """
    seen: dict[str, str] = {}
    for item in items:
        if item.pair is None:
            continue
        twin = twins.get(item.pair)
        if twin is None:
            if item.set in _PAIRED_SETS or every_set:
                raise DatasetError(f"{item.set} item {item.id!r}: pair {item.pair!r} is not the id of any eval item")
            continue  # the twin may be in a set that was not loaded (e.g. --set near_miss): nothing to compare
        if twin.lang == item.lang:
            raise DatasetError(f"{item.set} item {item.id!r}: its pair {twin.id!r} has the same language ({item.lang})")
        if item.set in _PAIRED_SETS:
            if twin.set != _PAIRED_SETS[item.set]:
                raise DatasetError(
                    f"{item.set} item {item.id!r}: its pair {twin.id!r} is in {twin.set}, not in {_PAIRED_SETS[item.set]}"
                )
            if set(twin.relevant) != set(item.relevant):
                raise DatasetError(
                    f"{item.set} item {item.id!r}: relevant {list(item.relevant)} differs from its twin "
                    f"{twin.id!r} {list(twin.relevant)}; a rendering expects the same sources"
                )
            if item.pair in seen:
                raise DatasetError(f"{item.set} items {seen[item.pair]!r} and {item.id!r} are both paired with {item.pair!r}")
            seen[item.pair] = item.id
