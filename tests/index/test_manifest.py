"""Complete or not served: the build manifest, finishing an interrupted build, and a lexical cache that
cannot run code and is rebuilt when corrupt."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from assistant.errors import IncompleteIndexError
from assistant.index import manifest
from assistant.index.lexical import CACHE_FORMAT
from assistant.service import Assistant
from tests.conftest import make_settings
from tests.helpers.known import KNOWN


def test_manifest_round_trip_and_garbage_is_no_manifest() -> None:
    m = manifest.BuildManifest("complete", sources=("/a",), chunks=5, revision=3, updated=1.0)
    assert manifest.BuildManifest.from_json(m.to_json()) == m
    for junk in ("", "{", "[]", '{"format": 99, "state": "complete"}', '{"format": 1, "state": "maybe"}'):
        assert manifest.BuildManifest.from_json(junk) is None


def test_an_interrupted_rebuild_is_finished_before_answering(tmp_path: Path, embedder) -> None:
    a = Assistant(make_settings(tmp_path / "idx"), embedder=embedder)
    assert a.index_status()[0] == "empty"
    assert a.ensure_index() is not None
    full = a.store.count()
    built = manifest.read(a.store)
    assert built.complete and built.chunks == full and built.sources == (str(a.settings.corpus_dir.resolve()),)
    assert a.ensure_index() is None  # complete: nothing to do

    # A re-ingest that died after deleting part of the index and before writing its completion.
    manifest.begin(a.store, [a.settings.corpus_dir])
    victims = [c.id for c in a.store.iter_chunks()][:2]
    a.store.delete(victims)
    reopened = Assistant(make_settings(tmp_path / "idx"), embedder=embedder)
    assert reopened.index_status()[0] == "incomplete"
    with pytest.raises(IncompleteIndexError, match="incomplete"):
        reopened.require_complete_index()
    progress: list[str] = []
    report = reopened.ensure_index(progress.append)
    assert report is not None and report.added == 2 and report.unchanged == full - 2
    assert any("finishing an interrupted index build" in p for p in progress)
    assert reopened.store.count() == full and reopened.index_status()[0] == "complete"
    assert reopened.ask(KNOWN).citations[0].id == "deepgemm-fp8-home-path-empty"


def test_an_index_without_a_manifest_is_checked_against_the_corpus(tmp_path: Path, embedder) -> None:
    a = Assistant(make_settings(tmp_path / "idx"), embedder=embedder)
    a.ensure_index()
    full = a.store.count()
    a.store.update_metadata({"build_manifest": ""})  # an index from before manifests, half built
    a.store.delete([c.id for c in a.store.iter_chunks()][:3])
    b = Assistant(make_settings(tmp_path / "idx"), embedder=embedder)
    assert b.index_status()[0] == "unverified"
    report = b.ensure_index()
    assert report.added == 3 and b.store.count() == full and b.index_status()[0] == "complete"


class _Boom:
    """Unpickling this would create a file: the proof that a pickle was executed."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


@pytest.mark.parametrize(
    "cache",
    [b"\x80\x09not a pickle protocol", b"{not json", f'{{"format": {CACHE_FORMAT}, "revision": "x", "ids": 1, "tokens": 2}}'.encode(), b"[]"],
)
def test_a_corrupt_lexical_cache_is_rebuilt_and_a_pickle_never_loaded(tmp_path: Path, embedder, cache: bytes) -> None:
    a = Assistant(make_settings(tmp_path / "idx"), embedder=embedder)
    a.ensure_index()
    a.ask(KNOWN)  # writes the cache
    json_cache = tmp_path / "idx" / f"lexical-{a.settings.collection}.json"
    assert json.loads(json_cache.read_text())["format"] == CACHE_FORMAT
    json_cache.write_bytes(cache)
    marker = tmp_path / "pwned"
    old_pickle = json_cache.with_suffix(".pkl")
    old_pickle.write_bytes(pickle.dumps(_Boom(str(marker))))

    fresh = Assistant(make_settings(tmp_path / "idx"), embedder=embedder)
    assert fresh.ask(KNOWN).citations[0].id == "deepgemm-fp8-home-path-empty"
    assert not marker.exists() and not old_pickle.exists()
    assert json.loads(json_cache.read_text())["format"] == CACHE_FORMAT  # rebuilt


def test_a_complete_index_follows_later_edits_of_the_curated_corpus(tmp_path: Path, embedder) -> None:
    """After a `git pull` brings new or changed entries, the next start embeds just those; an index built
    from other folders is left as its builder made it."""
    corpus = tmp_path / "corpus"
    (corpus / "entries").mkdir(parents=True)
    src = Path(__file__).resolve().parents[2] / "corpus" / "entries"
    for name in ("deepgemm-fp8-home-path-empty.yaml", "swap-space-removed.yaml"):
        (corpus / "entries" / name).write_text((src / name).read_text())
    settings = make_settings(tmp_path / "idx", corpus_dir=corpus)
    first = Assistant(settings, embedder=embedder)
    assert first.ensure_index() is not None
    before = first.store.count()
    assert Assistant(settings, embedder=embedder).ensure_index() is None  # nothing changed: nothing written

    (corpus / "entries" / "task-flag-removed-use-runner-convert.yaml").write_text(
        (src / "task-flag-removed-use-runner-convert.yaml").read_text()
    )
    (corpus / "entries" / "swap-space-removed.yaml").unlink()
    progress: list[str] = []
    pulled = Assistant(settings, embedder=embedder)
    report = pulled.ensure_index(progress.append)
    assert report is not None and report.added >= 1 and report.removed >= 1
    assert any("the curated corpus changed since the index was built" in p for p in progress)
    ids = {c.id for c in pulled.store.iter_chunks()}
    assert "task-flag-removed-use-runner-convert" in ids and "swap-space-removed" not in ids
    assert pulled.store.count() == before - report.removed + report.added
    assert pulled.index_status()[0] == "complete"
    assert pulled.ask("vllm: error: unrecognized arguments: --task embed").citations[0].id == (
        "task-flag-removed-use-runner-convert"
    )

    other = make_settings(tmp_path / "idx2", corpus_dir=corpus)
    built_elsewhere = Assistant(other, embedder=embedder)
    built_elsewhere.ingest([corpus / "entries"])  # a user-built index: its source is not the corpus folder
    (corpus / "entries" / "swap-space-removed.yaml").write_text((src / "swap-space-removed.yaml").read_text())
    assert Assistant(other, embedder=embedder).ensure_index() is None
