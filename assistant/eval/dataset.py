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
- entry_near_miss: the near_miss shape, near-misses of the curated entries written the same way;
- entry_questions_fit: the entry_questions shape, questions about the curated entries pasted from yet other real
  threads (never an entry's source or reference, never a held-out item's thread; `note` names it), on the *fitting*
  side whole (FITTING_SETS): what the entry evidence is fitted on, so that entry_questions stays out of sample.

In the entry sets, every `near` and every `relevant` label that is not a docs source must be the id of a file in
`corpus/entries/` (a renamed or deleted entry is an error, not a silently unanswerable question). The docs-answered
sets (docs, docs_zh, reports) may name curated entries too, beside their docs sections: an entry whose root cause and
fix are the item's (`is_entry_label`: an id, not a path); it must exist, and be in each `release_labels` release's
`relevant` as well (the release index holds the entries too). `entry_paraphrase` ({entry id: why}) marks an entry
label whose text states the fix in other words than the key facts. The sets of
HELD_OUT_SETS are held out whole: never fitted on (`assistant/eval/split.py`, `eval/calibrate.py`); those of FITTING_SETS
are fitted on whole (never in the gate's held-out split).

An answerable line may give `"relevant": []`: no source's section answers it (the fix is only in a thread), so key-fact
recall judges it and hit@k leaves it out.

Optional on any line: `pair` (the id of the same question in the other language, in any loaded set), `note`
(why the item is labelled as it is, for a reader).

`release_labels`: the labels against a vLLM release's own docs (what `make run` serves; `--docs-release`), written
from that release's pages, because the gate's copy of the docs (`../shared/vllm-docs`) names some sections otherwise
or lacks them. `{"0.33.0": {"relevant": ["docs/<page>.md#<anchor>", ...], "key_facts": [...], "quote": "..."}}`:
- on a `docs`, `docs_zh` or `reports` item, `relevant` replaces the item's on that release (`[]`: no section of it
  states the fix; key facts alone judge it there) and `key_facts`, when given, replaces the item's;
- on a negative, `"relevant": []` says that release's docs were read and do not answer it (it stays a negative
  there); sections say they do: there it is an answerable item with these `relevant` and `key_facts` (both
  required), and `quote`, a sentence of the section stating the fix, shows why.
`tests/eval/test_sets_sources.py` checks every such label against the release's source distribution.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from assistant.errors import AssistantError
from assistant.settings import REPO_ROOT

SETS = (
    "seed", "docs", "negatives", "near_miss", "docs_zh", "reports", "entry_questions", "entry_near_miss",
    "entry_questions_fit",
)
ANSWERABLE = ("seed", "docs", "docs_zh", "reports", "entry_questions", "entry_questions_fit")
# Sets no question of which is ever fitted on: the gate's out-of-sample questions about the curated entries.
HELD_OUT_SETS = ("near_miss", "entry_questions", "entry_near_miss")
# Sets every question of which is fitted on: the entry questions written for fitting the entry evidence, so that the
# held-out ones (entry_questions) need never be looked at to tune it.
FITTING_SETS = ("entry_questions_fit",)
# Sets whose `relevant` labels name curated entries (a docs source starts with DOCS_LABEL).
ENTRY_SETS = ("entry_questions", "entry_near_miss", "entry_questions_fit")
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
    "entry_questions_fit": "answer",
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
class ReleaseLabel:
    """What answers an item on one vLLM release's own docs (`release_labels`)."""

    release: str
    relevant: tuple[str, ...]  # "docs/<page>.md#<anchor>" sections of that release; () = none states the fix
    key_facts: tuple[str, ...] = ()  # () = the item's own
    quote: str = ""  # a sentence of the section that states the fix (required reading for a negative's label)


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
    release_labels: tuple[ReleaseLabel, ...] = ()
    # (entry id, why) pairs: that entry label states the fix in other words than the key facts (the source check then does
    # not require the entry's text to match every key fact; tests/eval/test_sets_sources.py)
    entry_paraphrase: tuple[tuple[str, str], ...] = ()

    @property
    def answerable(self) -> bool:
        return self.expect == "answer"

    def label_for(self, release: str) -> ReleaseLabel | None:
        return next((label for label in self.release_labels if label.release == release), None)

    def answered_by(self, release: str) -> bool:
        """Whether vLLM `release`'s own docs answer this negative (its label there names a section)."""
        label = self.label_for(release)
        return self.expect == "abstain" and label is not None and bool(label.relevant)

    def on_release(self, release: str, answered_set: str = "docs") -> Item:
        """This item as scored on vLLM `release`'s own docs: its labels there, if it has some. A negative those
        docs answer becomes an answerable item of `answered_set` (the caller's choice: `docs` or `reports`)."""
        label = self.label_for(release)
        if label is None or (self.expect == "abstain" and not label.relevant):
            return self
        facts = label.key_facts or self.key_facts
        if self.expect == "abstain":
            return replace(
                self, set=answered_set, expect="answer", relevant=label.relevant, key_facts=facts, release_labels=()
            )
        return replace(self, relevant=label.relevant, key_facts=facts, release_labels=())


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
    if "answered_in" in row:
        raise DatasetError(f"{where}: 'answered_in' is now 'release_labels' (with 'relevant' and 'key_facts')")
    if "release_labels" in row and expect == "not_fix":
        raise DatasetError(f"{where}: 'release_labels' is for answerable items and negatives, not near-misses")
    if "entry_paraphrase" in row and expect != "answer":
        raise DatasetError(f"{where}: 'entry_paraphrase' is only for answerable items (it qualifies their entry labels)")
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
        labels = _release_labels(row, where, negative=False)
        paraphrase = row.get("entry_paraphrase", {})
        if not isinstance(paraphrase, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in paraphrase.items()
        ):
            raise DatasetError(f"{where}: 'entry_paraphrase' must be an object of entry id -> a non-empty reason")
        return Item(
            **{**item.__dict__, "relevant": relevant, "key_facts": facts, "release_labels": labels,
               "entry_paraphrase": tuple(paraphrase.items())}
        )
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
    return Item(**{**item.__dict__, "release_labels": _release_labels(row, where, negative=True)})


def _release_labels(row: dict, where: str, negative: bool) -> tuple[ReleaseLabel, ...]:
    """`release_labels`, checked: a negative's label must say what answers it (sections, key facts, a quote)."""
    value = row.get("release_labels")
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise DatasetError(f"{where}: 'release_labels' must be an object of release -> {{relevant, key_facts, quote}}")
    out = []
    for release, label in value.items():
        at = f"{where}: release_labels[{release!r}]"
        if not isinstance(label, dict) or set(label) - {"relevant", "key_facts", "quote"}:
            raise DatasetError(f"{at} must be an object with 'relevant' and optionally 'key_facts' and 'quote'")
        if label.get("relevant") == []:  # no section of that release states the fix (a negative: it stays one)
            if negative and set(label) != {"relevant"}:
                raise DatasetError(f"{at}: a negative's 'relevant': [] (still a negative there) takes nothing else")
            relevant: tuple[str, ...] = ()
        else:
            relevant = _strings(label, "relevant", at, required=True)
        bad = [x for x in relevant if not x.startswith("docs/") and not is_entry_label(x)]
        if bad:
            raise DatasetError(
                f"{at}: relevant {bad} must name sections of the release's docs ('docs/<page>.md#...') or curated entries"
            )
        answers = negative and bool(relevant)  # a negative that release's docs answer: say what answers it
        facts = _regexes(_strings(label, "key_facts", at, required=answers), "key_facts", at)
        quote = label.get("quote", "")
        if not isinstance(quote, str) or (answers and not quote.strip()):
            raise DatasetError(f"{at}: 'quote' must be a sentence of the section (required on a negative)")
        out.append(ReleaseLabel(release, relevant, facts, quote))
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


_ENTRY_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")  # a slug of several words: every id in corpus/entries/


def is_entry_label(label: str) -> bool:
    """Whether a `relevant` label names a curated entry (a hyphenated id such as `lora-rank-greater-than-max-lora-rank`), not a
    docs source (`docs/<page>.md#anchor`, `env-vars-extracted.md#runtime`): entries are in every corpus the eval
    scores (the gate's index and the release index alike), so an entry that states an item's fix is one of its labels."""
    return bool(_ENTRY_ID.fullmatch(label))


def entry_ids(entries_dir: Path = DEFAULT_ENTRIES_DIR) -> set[str]:
    """The curated entries' ids: their file names (the loader rejects a file whose `id` differs from its name)."""
    return {p.stem for p in entries_dir.glob("*.yaml")}


def check_entry_labels(items: list[Item], known: set[str]) -> None:
    """Every entry label names a curated entry, and an item's entry labels are labels on each release it has.

    In an entry set, every `near` and every non-docs `relevant` label is an entry id; in any other set, the labels of an
    entry id's shape (`is_entry_label`) are, in `relevant` and in `release_labels`. An entry label of an item must be in
    each of its `release_labels` too (the release index holds the curated entries as well, so what states the fix on
    one corpus states it on the other), and `entry_paraphrase` may only name the item's own entry labels.

    Why: a question whose expected entry was renamed or deleted would score as a retrieval miss forever.
    """
    for item in items:
        if item.set in ENTRY_SETS:
            labels = ([item.near] if item.near else []) + [r for r in item.relevant if not r.startswith(DOCS_LABEL)]
        else:
            labels = [r for r in item.relevant if is_entry_label(r)]
        entries = [r for r in item.relevant if is_entry_label(r)]
        for label in item.release_labels:
            labels += [r for r in label.relevant if is_entry_label(r)]
            dropped = [e for e in entries if e not in label.relevant]
            if dropped:
                raise DatasetError(
                    f"{item.set} item {item.id!r}: entry labels {dropped} are missing from release_labels"
                    f"[{label.release!r}]; the release index holds the curated entries too"
                )
        unknown = [label for label in labels if label not in known]
        if unknown:
            raise DatasetError(f"{item.set} item {item.id!r}: {unknown} is not the id of any entry in corpus/entries/")
        stray = [e for e, _ in item.entry_paraphrase if e not in entries]
        if stray:
            raise DatasetError(f"{item.set} item {item.id!r}: entry_paraphrase names {stray}, which are not its entry labels")


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
            for release in {label.release for label in item.release_labels + twin.release_labels}:
                mine, theirs = item.label_for(release), twin.label_for(release)
                if mine is None or theirs is None or set(mine.relevant) != set(theirs.relevant):
                    raise DatasetError(
                        f"{item.set} item {item.id!r}: its release_labels[{release!r}] relevant differs from its "
                        f"twin {twin.id!r}'s; a rendering expects the same sources"
                    )
            if item.pair in seen:
                raise DatasetError(f"{item.set} items {seen[item.pair]!r} and {item.id!r} are both paired with {item.pair!r}")
            seen[item.pair] = item.id
