"""Ingest into a real Chroma with the real model: bad input, incremental writes, sync."""

import shutil

import pytest

from assistant.service import Assistant
from assistant.settings import REPO_ROOT
from tests.conftest import CURATED, SEED_PAGE, make_settings

ENTRIES = REPO_ROOT / "corpus" / "entries"


@pytest.fixture()
def workspace(tmp_path, embedder):
    src = tmp_path / "kb"
    shutil.copytree(ENTRIES, src / "entries")
    shutil.copy(SEED_PAGE, src / "guide.txt")
    (src / "notes.md").write_text("# Notes\n\n## Hangs\n\nUse `--enforce-eager` to isolate it.\n", encoding="utf-8")
    return src, Assistant(make_settings(tmp_path / "index"), embedder=embedder)


def test_bad_files_are_reported_and_the_rest_ingested(workspace):
    src, a = workspace
    (src / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (src / "empty.md").write_text("   \n", encoding="utf-8")
    (src / "latin1.md").write_bytes("# Caf\xe9\n\nna\xefve".encode("latin-1"))
    (src / "broken.yaml").write_text("id: [unclosed", encoding="utf-8")
    (src / "random.txt").write_text("just some text without a known format", encoding="utf-8")
    report = a.ingest([src])
    reasons = {e.path.rsplit("/", 1)[-1]: e.reason for e in report.skipped}
    assert set(reasons) == {"binary.md", "empty.md", "latin1.md", "broken.yaml", "random.txt"}
    assert "binary" in reasons["binary.md"]
    assert "empty" in reasons["empty.md"]
    assert "UTF-8" in reasons["latin1.md"]
    assert "YAML" in reasons["broken.yaml"]
    assert "unrecognized format" in reasons["random.txt"]
    assert report.files == CURATED + 2  # the entries, the Q&A page, the notes
    assert report.added == CURATED + 5 + 1  # the page holds five questions
    assert a.store.count() == CURATED + 6


def test_reingest_unchanged_writes_nothing_and_loads_no_model(workspace, tmp_path):
    src, a = workspace
    a.ingest([src])
    revision = a.store.revision()

    from assistant.index.embedder import SentenceTransformerEmbedder

    fresh = Assistant(a.settings, embedder=SentenceTransformerEmbedder(a.settings.embedding_model))
    report = fresh.ingest([src])
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, CURATED + 6)
    assert not report.wrote
    assert fresh.store.revision() == revision
    assert fresh.embedder._model is None  # nothing to embed: the model was never loaded


def test_changed_entry_is_replaced_and_removed_file_disappears(workspace):
    src, a = workspace
    a.ingest([src])
    entry = src / "entries" / "deepgemm-fp8-home-path-empty.yaml"
    entry.write_text(entry.read_text(encoding="utf-8").replace("unknown (not stated in the source)", "v9.9.9"), encoding="utf-8")
    (src / "notes.md").unlink()
    report = a.ingest([src])
    assert (report.added, report.updated, report.removed) == (0, 1, 1)
    _, hits = a.retrieve("RuntimeError: not home_path.empty()")
    assert hits[0].chunk.id == "deepgemm-fp8-home-path-empty"
    assert hits[0].chunk.data["fixed_in"] == "v9.9.9"
    assert all(h.chunk.source != "notes.md#hangs" for h in hits)


def test_a_file_that_breaks_keeps_what_was_indexed(workspace):
    src, a = workspace
    a.ingest([src])
    (src / "notes.md").write_bytes(b"\x00broken")
    report = a.ingest([src])
    assert len(report.skipped) == 1 and report.removed == 0
    assert a.store.count() == CURATED + 6


def test_missing_path_is_a_clear_error(workspace):
    from assistant.errors import AssistantError

    _, a = workspace
    with pytest.raises(AssistantError, match="no such file or folder"):
        a.ingest([workspace[0] / "nope"])


def _fixed_in(a: Assistant, entry_id: str) -> str:
    [chunk] = [c for c in a.store.iter_chunks() if c.id == entry_id]
    return chunk.data["fixed_in"]


def test_a_copied_entry_is_reported_and_the_original_stays(workspace):
    src, a = workspace
    a.ingest([src])
    original = src / "entries" / "deepgemm-fp8-home-path-empty.yaml"
    before = _fixed_in(a, "deepgemm-fp8-home-path-empty")
    text = original.read_text(encoding="utf-8").replace("unknown (not stated in the source)", "v9.9.9")
    (src / "entries" / "deepgemm-copy.yaml").write_text(text, encoding="utf-8")  # kept the id
    (src / "more").mkdir()
    (src / "more" / original.name).write_text(text, encoding="utf-8")  # same name, another folder
    report = a.ingest([src])
    reasons = {e.path: e.reason for e in report.skipped}
    copy = reasons[str(src / "entries" / "deepgemm-copy.yaml")]
    assert "id 'deepgemm-fp8-home-path-empty' differs from its file name" in copy
    other = reasons[str(src / "more" / original.name)]
    assert str(original) in other and "'deepgemm-fp8-home-path-empty'" in other  # names both places
    assert (report.added, report.updated, report.removed) == (0, 0, 0)
    assert _fixed_in(a, "deepgemm-fp8-home-path-empty") == before != "v9.9.9"


def test_an_id_indexed_from_another_existing_file_is_not_replaced(workspace, tmp_path):
    src, a = workspace
    a.ingest([src])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    original = src / "entries" / "deepgemm-fp8-home-path-empty.yaml"
    text = original.read_text(encoding="utf-8").replace("unknown (not stated in the source)", "v9.9.9")
    (elsewhere / original.name).write_text(text, encoding="utf-8")
    report = a.ingest([elsewhere])  # another run, another folder, the same id
    [err] = report.skipped
    assert str(original) in err.reason and not report.wrote
    assert _fixed_in(a, "deepgemm-fp8-home-path-empty") != "v9.9.9"


def test_the_vllm_docs_index_holds_all_nine_extra_parameters_sections(docs_assistant):
    ids = set(docs_assistant.store.hashes())
    base = "docs/serving/openai_compatible_server.md#extra-parameters"
    assert {base, *(f"{base}_{n}" for n in range(1, 9))} <= ids


def test_a_file_is_cited_repo_relative_but_a_download_under_a_hidden_folder_like_any_outside_folder(
    tmp_path, monkeypatch
):
    from assistant.ingest import sources

    repo = tmp_path / "repo"  # a checkout of its own: whether the repo's .data holds a docs tree must not matter
    tree = repo / ".data" / "wheels" / "0.33.0" / "docs-tree"  # the eval's copy of a release's docs
    (tree / "docs" / "usage").mkdir(parents=True)
    (repo / "corpus").mkdir()
    outside = tmp_path / "outside"
    (outside / "docs" / "usage").mkdir(parents=True)
    monkeypatch.setattr(sources, "REPO_ROOT", repo.resolve())

    assert sources.citable_path(repo / "corpus" / "entries" / "x.yaml", repo / "corpus") == "corpus/entries/x.yaml"
    assert sources.citable_path(tree / "docs" / "usage" / "faq.md", tree) == "docs/usage/faq.md"
    assert sources.citable_path(outside / "docs" / "usage" / "faq.md", outside) == "docs/usage/faq.md"
