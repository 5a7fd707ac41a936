"""Index generations on a real Chroma (`assistant/sync/generations.py`): a staging copy of the live index, made
live by one pointer write, and refused when the live index changed while it filled."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.errors import SyncError
from assistant.index.store import ChromaStore, pointer_name
from assistant.service import Assistant
from assistant.sync.generations import Generations
from assistant.sync.state import SyncState
from tests.conftest import CURATED, make_settings
from tests.helpers.known import KNOWN_ENTRY


@pytest.fixture
def live(tmp_path, embedder):
    """Settings of an index holding the curated corpus, never synced (no generation, no pointer)."""
    settings = make_settings(tmp_path / "index")
    Assistant(settings, embedder=embedder).ensure_index()
    return settings


def _names(gens: Generations) -> set[str]:
    return {c.name for c in gens.client.list_collections()}


def test_a_staging_copy_is_made_live_by_promotion_and_the_one_before_the_previous_is_dropped(live, tmp_path):
    state = SyncState(tmp_path / "state.json")
    gens = Generations(live)
    base = ChromaStore(live)
    first_name, hashes, revision = base.name, base.hashes(), base.revision()
    assert len(hashes) == CURATED

    staging = gens.create(state)
    assert state.staging.collection == staging.name != first_name
    assert (state.staging.base, state.staging.base_revision) == (first_name, revision)
    assert staging.hashes() == hashes  # a full copy, vectors included
    vec = staging.vectors([KNOWN_ENTRY])[KNOWN_ENTRY]
    assert np.allclose(vec, base.vectors([KNOWN_ENTRY])[KNOWN_ENTRY])
    staging.delete([KNOWN_ENTRY])  # the sync writes into the staging generation only
    assert ChromaStore(live).name == first_name and KNOWN_ENTRY in ChromaStore(live).hashes()

    assert gens.promote(state) == staging.name
    reader = ChromaStore(live)  # a new reader follows the pointer
    assert reader.name == staging.name and KNOWN_ENTRY not in reader.hashes()
    assert reader.revision() > revision
    assert {first_name, staging.name, pointer_name(live.collection)} <= _names(gens)  # the previous one is kept

    state.staging = None  # what the runner's commit does after a promotion
    second = gens.create(state)
    assert second.hashes() == reader.hashes()  # copied from the new live generation
    gens.promote(state)
    assert ChromaStore(live).name == second.name
    assert first_name not in _names(gens) and staging.name in _names(gens)


def test_a_live_index_written_while_the_staging_filled_is_not_replaced(live, tmp_path, embedder):
    state = SyncState(tmp_path / "state.json")
    gens = Generations(live)
    staging = gens.create(state).name  # (a pinned store asked for its collection later would make it again)
    state.source("issues").pending = {"since": "2026-01-01"}
    state.save()
    live_store = ChromaStore(live)
    [chunk] = [c for c in live_store.iter_chunks() if c.id == KNOWN_ENTRY]
    live_store.upsert([chunk], embedder.embed([chunk.dense_text]))  # an `ingest` meanwhile: a new revision

    with pytest.raises(SyncError, match="the live index changed while the sync ran"):
        gens.promote(state)
    assert ChromaStore(live).name == live_store.name  # still serving the live generation
    assert staging not in _names(gens)
    reloaded = SyncState.load(tmp_path / "state.json")
    assert reloaded.staging is None and reloaded.source("issues").pending is None  # the next run starts clean


def test_resume_keeps_a_staging_based_on_the_live_index_and_drops_a_stale_one(live, tmp_path, embedder):
    state = SyncState(tmp_path / "state.json")
    gens = Generations(live)
    assert gens.resume(state) is None  # nothing to resume
    staging = gens.create(state)
    resumed = gens.resume(state)
    assert resumed is not None and resumed.name == staging.name and resumed.hashes() == staging.hashes()

    live_store = ChromaStore(live)
    live_store.delete([KNOWN_ENTRY])  # the live index moved on
    state.source("issues").pending = {"since": "2026-01-01"}
    assert gens.resume(state) is None
    assert state.staging is None and state.source("issues").pending is None
    assert staging.name not in _names(gens)


def test_promoting_without_a_staging_generation_is_an_error(live, tmp_path):
    with pytest.raises(SyncError, match="no staging generation"):
        Generations(live).promote(SyncState(tmp_path / "state.json"))
