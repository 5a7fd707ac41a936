"""One sync at a time: per machine with a file lock, across hosts with a PostgreSQL advisory lock.

The CLI, the app's schedule and the start-up docs sync may all try at once; on several hosts sharing
one Chroma server and one database each host has its own index folder, so only the database can say
that a sync is already running elsewhere. Both locks die with the process holding them (the kernel
drops the file lock, the server ends the session), so a killed sync never blocks the next one.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from assistant.db.advisory import try_advisory_lock
from assistant.db.connection import DatabaseError, Target
from assistant.errors import SyncBusy, SyncError
from assistant.settings import Settings


def lock_name(settings: Settings) -> str:
    """The same on every host serving this collection (the index folder differs from host to host)."""
    return f"assistant:sync:{settings.collection}"


@contextmanager
def file_lock(lock_path: Path) -> Iterator[None]:
    """One sync at a time per index folder."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise SyncBusy(f"another sync is running on this index ({lock_path} is locked); try again later") from exc
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextmanager
def database_lock(database_url: str, name: str) -> Iterator[None]:
    """One sync at a time across every host using the database; SyncError at once when another holds it."""
    target = Target.of(database_url)
    with ExitStack() as stack:
        try:
            got = stack.enter_context(try_advisory_lock(target, name))
        except DatabaseError as exc:
            raise SyncError(f"cannot take the sync lock in the database {target.label} ({exc}); try again later") from exc
        if not got:
            raise SyncBusy(
                f"another sync is running on this collection (another host or process holds the lock {name!r} "
                f"in {target.label}); try again later"
            )
        yield


@contextmanager
def sync_lock(settings: Settings) -> Iterator[None]:
    """The file lock of this host's index folder, and the database's lock when `database_url` is set."""
    with ExitStack() as stack:
        stack.enter_context(file_lock(settings.index_dir / f"sync-{settings.collection}.lock"))
        if settings.database_url:
            stack.enter_context(database_lock(settings.database_url, lock_name(settings)))
        yield
