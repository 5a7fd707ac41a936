"""One sync at a time: across hosts through PostgreSQL's advisory lock, on one index folder through a file lock.

Two "hosts" here are two index folders (each host has its own), sharing one PostgreSQL database and
one collection name: the file lock cannot see the other host, the database can."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from assistant.errors import SyncBusy, SyncError
from assistant.settings import REPO_ROOT
from assistant.sync.lock import database_lock, lock_name
from assistant.sync.runner import run_sync
from assistant.sync.sources import EntriesSource
from tests.conftest import make_settings

ENTRY = "deepgemm-fp8-home-path-empty.yaml"


def _entries(tmp_path: Path) -> EntriesSource:
    folder = tmp_path / "entries"
    folder.mkdir()
    shutil.copy(REPO_ROOT / "corpus" / "entries" / ENTRY, folder / ENTRY)
    return EntriesSource(name="entries", kind="entries", path=folder)


def _sync_while_another_runs(first, second, embedder, sources) -> tuple[BaseException | None, object]:
    """Start `first`'s sync, hold it inside its lock, try `second`'s meanwhile; (second's error, first's report)."""
    inside, release = threading.Event(), threading.Event()
    result: dict = {}

    def hold(message: str) -> None:
        if not inside.is_set():
            inside.set()
            release.wait(60)

    def first_sync() -> None:
        result["report"] = run_sync(first, sources, embedder=lambda: embedder, progress=hold)

    t = threading.Thread(target=first_sync)
    t.start()
    assert inside.wait(60), "the first sync did not start"
    try:
        run_sync(second, sources, embedder=lambda: embedder)
        error = None
    except SyncError as exc:
        error = exc
    finally:
        release.set()
        t.join(120)
    return error, result.get("report")


def test_two_hosts_sharing_the_database_never_sync_at_once(tmp_path, postgres_url, embedder) -> None:
    sources = [_entries(tmp_path)]
    host_a = make_settings(tmp_path / "host-a", database_url=postgres_url)
    host_b = make_settings(tmp_path / "host-b", database_url=postgres_url)
    error, report = _sync_while_another_runs(host_a, host_b, embedder, sources)
    assert isinstance(error, SyncBusy) and "another sync is running on this collection" in str(error)
    assert "127.0.0.1" in str(error) and report is not None and report.ok  # the first one finished
    assert run_sync(host_b, sources, embedder=lambda: embedder).ok  # and once it has, the other may


def test_a_host_without_the_database_only_sees_its_own_folder(tmp_path, embedder) -> None:
    sources = [_entries(tmp_path)]
    same = make_settings(tmp_path / "host-a")
    error, _ = _sync_while_another_runs(same, same, embedder, sources)
    assert error is not None and "sync-vllm_troubleshooting.lock is locked" in str(error)


def test_the_lock_is_free_again_when_its_holder_is_gone(postgres_url) -> None:
    name = lock_name(make_settings(Path("/nonexistent")))
    with database_lock(postgres_url, name), pytest.raises(SyncError, match="another sync is running"):
        database_lock(postgres_url, name).__enter__()
    with database_lock(postgres_url, name):  # released on exit (a killed holder's session ends the same way)
        pass


def test_an_unreachable_database_is_a_clear_sync_error(tmp_path) -> None:
    from tests.helpers.server import free_port

    with pytest.raises(SyncError, match="cannot take the sync lock in the database postgresql://127.0.0.1"):
        database_lock(f"postgresql://u:pw@127.0.0.1:{free_port()}/db", "x").__enter__()


def test_a_scheduled_sync_skips_its_turn_while_another_host_syncs(tmp_path, postgres_url, embedder, caplog) -> None:
    from assistant.service import Assistant
    from assistant.sync.schedule import SyncScheduler

    _entries(tmp_path)
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  - name: entries\n    kind: entries\n    path: {tmp_path / 'entries'}\n")
    settings = make_settings(tmp_path / "host-b", database_url=postgres_url, sources_file=sources)
    scheduler = SyncScheduler(settings, Assistant(settings, embedder=embedder))
    with database_lock(postgres_url, lock_name(settings)), caplog.at_level("INFO", logger="assistant.sync"):
        assert scheduler.run_once() is None  # host A holds the lock
    assert scheduler.last_error is None and "scheduled sync skipped: another sync is running" in caplog.text
    assert scheduler.run_once().ok  # its next turn, once the other host is done
