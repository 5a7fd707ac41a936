"""No held-out question was written from a thread that a curated entry was written from.

A held-out item names the GitHub thread it was taken from in its `note`. If a curated entry cites the same thread (its
`source` or one of its `references`), the entry's wording and the question's come from one page: the question is no
longer out of sample for that entry. So an entry written later from a held-out thread fails here, naming both.

Held out: the entry questions and near-misses (eval/sets/entry_questions.jsonl, entry_near_miss.jsonl), the older
near-misses, and every fresh batch under eval/fresh/*/. Fast: reads YAML and JSON lines, builds no index.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from assistant.eval.dataset import DEFAULT_ENTRIES_DIR, DEFAULT_SETS_DIR
from assistant.ingest.entries import parse_entry
from assistant.settings import REPO_ROOT

HELD_OUT_FILES = [DEFAULT_SETS_DIR / f"{name}.jsonl" for name in ("entry_questions", "entry_near_miss", "near_miss")]
# The entry questions the evidence is fitted on: out of sample for the entries too, and never a held-out item's thread
# (a thread on both sides would let the fit see a held-out question's wording).
FIT_FILE = DEFAULT_SETS_DIR / "entry_questions_fit.jsonl"
FRESH_DIR = REPO_ROOT / "eval" / "fresh"
# github.com/<owner>/<repo>/(issues|pull|discussions)/<n>: the same thread whichever of the three it is addressed as
# (GitHub redirects an issue number that is a pull request, and the reverse).
_THREAD = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/(?:issues|pull|discussions)/(\d+)", re.IGNORECASE)


def threads(text: str) -> set[str]:
    """The GitHub threads a text names, as `owner/repo#n` (lowercase: GitHub names are case-insensitive)."""
    return {f"{owner}/{repo}#{n}".lower() for owner, repo, n in _THREAD.findall(text)}


def entry_threads(entries_dir: Path = DEFAULT_ENTRIES_DIR) -> dict[str, set[str]]:
    """Each curated entry's cited threads: those its `source` and `references` name."""
    out: dict[str, set[str]] = {}
    for path in sorted(entries_dir.glob("*.yaml")):
        entry = parse_entry(path.read_text(encoding="utf-8"), str(path))
        out[entry.id] = threads(" ".join([entry.source, *entry.references]))
    return out


def held_out_threads(files: list[Path]) -> dict[str, set[str]]:
    """Each held-out item's threads (by `<file>:<id>`): the GitHub URLs its `note` names."""
    out: dict[str, set[str]] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out[f"{path.relative_to(REPO_ROOT)}:{row['id']}"] = threads(row.get("note", ""))
    return out


def shared_threads(items: dict[str, set[str]], entries: dict[str, set[str]]) -> list[str]:
    """Every (item, entry, thread) where a held-out item's thread is one an entry cites."""
    return [
        f"{item} was written from {thread}, which entry {entry} cites"
        for item, item_threads in sorted(items.items())
        for entry, cited in sorted(entries.items())
        for thread in sorted(item_threads & cited)
    ]


def held_out_files() -> list[Path]:
    return [p for p in HELD_OUT_FILES if p.is_file()] + sorted(FRESH_DIR.glob("*/*.jsonl"))


def test_threads_are_read_from_issue_pull_and_discussion_urls_alike():
    text = "https://github.com/vllm-project/vllm/pull/21470 and github.com/QwenLM/Qwen3/discussions/1098#x; docs.vllm.ai"
    assert threads(text) == {"vllm-project/vllm#21470", "qwenlm/qwen3#1098"}
    assert threads("https://github.com/vllm-project/vllm/issues/21470") == {"vllm-project/vllm#21470"}


def test_a_shared_thread_is_reported_with_the_item_and_the_entry():
    items = {"entry_questions.jsonl:eq-x": {"vllm-project/vllm#1"}, "entry_questions.jsonl:eq-y": {"a/b#2"}}
    entries = {"some-entry": {"vllm-project/vllm#1", "c/d#3"}, "other-entry": {"e/f#4"}}
    assert shared_threads(items, entries) == [
        "entry_questions.jsonl:eq-x was written from vllm-project/vllm#1, which entry some-entry cites"
    ]


def test_every_entry_question_names_its_thread():
    items = held_out_threads([p for p in HELD_OUT_FILES[:1] if p.is_file()])
    assert items, "eval/sets/entry_questions.jsonl is missing or empty"
    unnamed = sorted(item for item, found in items.items() if not found)
    assert not unnamed, f"entry questions whose note names no GitHub thread: {unnamed}"


def test_no_held_out_item_was_written_from_a_thread_an_entry_cites():
    files = held_out_files()
    assert len(files) >= 4, f"expected the held-out sets and the fresh batches, found {files}"
    shared = shared_threads(held_out_threads(files), entry_threads())
    assert not shared, "held-out threads cited by curated entries:\n" + "\n".join(shared)


def test_no_fitting_entry_question_shares_a_thread_with_an_entry_or_a_held_out_item():
    fit = held_out_threads([FIT_FILE])  # the same reading: each item's threads, from its note
    assert len(fit) >= 25 and all(fit.values()), "entry_questions_fit.jsonl: missing, or an item whose note names no thread"
    shared = shared_threads(fit, entry_threads())
    held = {thread for found in held_out_threads(held_out_files()).values() for thread in found}
    both = sorted(f"{item} was written from {t}, a held-out item's thread" for item, ts in fit.items() for t in ts & held)
    assert not shared + both, "fitting entry questions that are not out of sample:\n" + "\n".join(shared + both)


def batches_sharing_threads(batches: dict[str, set[str]]) -> list[str]:
    """Every (batch, batch, thread) where two held-out batches were written from one thread."""
    names = sorted(batches)
    return [
        f"{a} and {b} were both written from {thread}"
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        for thread in sorted(batches[a] & batches[b])
    ]


def test_batches_sharing_a_thread_are_reported():
    batches = {"fresh/b1": {"a/b#1", "a/b#2"}, "fresh/b2": {"a/b#2"}, "sets/x.jsonl": {"c/d#3"}}
    assert batches_sharing_threads(batches) == ["fresh/b1 and fresh/b2 were both written from a/b#2"]


def test_no_two_fresh_batches_or_a_batch_and_a_set_share_a_thread():
    # A new batch scored "before any change" must be out of sample for the earlier batches and sets too: a thread
    # reused by a later batch would let that batch's wording leak into what was tuned on the earlier one.
    groups: dict[str, set[str]] = {}
    for batch in sorted(p for p in FRESH_DIR.iterdir() if p.is_dir()):
        found = held_out_threads(sorted(batch.glob("*.jsonl")))
        groups[str(batch.relative_to(REPO_ROOT))] = {t for ts in found.values() for t in ts}
    for path in sorted(DEFAULT_SETS_DIR.glob("*.jsonl")):
        groups[str(path.relative_to(REPO_ROOT))] = {t for ts in held_out_threads([path]).values() for t in ts}
    assert len([g for g in groups if g.startswith("eval/fresh/")]) >= 4, sorted(groups)
    shared = batches_sharing_threads(groups)
    assert not shared, "threads used by two held-out batches or sets:\n" + "\n".join(shared)
