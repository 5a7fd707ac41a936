"""The labels of the docs-answered sets point at real text: every `relevant` source of a `docs` or `reports` item is a
chunk of what the eval ingests (the curated corpus plus the vLLM docs), and every key fact is in that chunk's text.

Why: a renamed heading (a new anchor), a section that moved, or a regex that no longer matches the section's wording
would make a question unanswerable by construction, and the eval would blame the pipeline for it. The chunks come
from the same loaders the ingest uses (`discover` + `load_file` over the folders `build_index` ingests); nothing is
embedded and no index is built, so this runs in about a second.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest

from assistant.eval.dataset import Item, load_sets
from assistant.eval.runner import DEFAULT_DOCS_DIR
from assistant.ingest.loader import discover, load_file
from assistant.models import Chunk
from assistant.settings import Settings

CHECKED_SETS = ("docs", "reports")
_PART = re.compile(r"~\d+$")  # a long section's second, third, ... part: `<source>#<anchor>~2`

# Items left out of the checks, id -> why. Only an item that already failed when this test was written belongs here
# (such an item is not changed to make it pass; its labels are reviewed on their own). None as of 2026-11-30: all
# 60 docs and 28 reports items pass both checks.
EXCLUDED: dict[str, str] = {}


@lru_cache(maxsize=1)
def ingested_chunks() -> tuple[Chunk, ...]:
    """Every chunk of the corpus and the docs, as the eval's index holds them (a file that fails to load fails here)."""
    if not DEFAULT_DOCS_DIR.is_dir():
        pytest.skip(f"{DEFAULT_DOCS_DIR} is missing")
    chunks: list[Chunk] = []
    for root in (Settings().corpus_dir.resolve(), DEFAULT_DOCS_DIR.resolve()):
        for path in discover(root):
            chunks.extend(load_file(path, root))
    return tuple(chunks)


def chunks_of(label: str) -> list[Chunk]:
    """The chunks a `relevant` label names: the chunk with that id and, for a long section, its `~N` parts."""
    return [c for c in ingested_chunks() if _PART.sub("", c.id) == label]


def checked_items() -> list[Item]:
    sets = load_sets(list(CHECKED_SETS))
    return [item for name in CHECKED_SETS for item in sets[name] if item.id not in EXCLUDED]


def unknown_exclusions(excluded: dict[str, str], ids: set[str]) -> list[str]:
    """Excluded ids that name no item of a checked set (a renamed or deleted item must leave the list)."""
    return sorted(set(excluded) - ids)


def test_the_exclusions_name_real_items_and_every_other_item_is_checked():
    ids = {item.id for items in load_sets(list(CHECKED_SETS)).values() for item in items}
    assert not unknown_exclusions(EXCLUDED, ids), f"excluded ids in no checked set: {unknown_exclusions(EXCLUDED, ids)}"
    assert unknown_exclusions({"doc-no-such-item": "why"}, ids) == ["doc-no-such-item"]  # the check can fail
    assert {item.id for item in checked_items()} == ids - set(EXCLUDED) and ids


@pytest.mark.parametrize("item", checked_items(), ids=lambda item: item.id)
def test_relevant_sources_exist_and_hold_the_key_facts(item: Item):
    missing = [label for label in item.relevant if not chunks_of(label)]
    assert not missing, f"{item.id}: no ingested chunk has the id {missing} (nor its ~N parts)"
    texts = [chunk.full_text() for label in item.relevant for chunk in chunks_of(label)]
    absent = [fact for fact in item.key_facts if not any(re.search(fact, t, re.IGNORECASE) for t in texts)]
    assert not absent, f"{item.id}: key facts {absent} are in none of {list(item.relevant)}"
