"""PostgreSQL advisory locks: one runner at a time across every host that shares the database.

A lock is named by a string, hashed to the 64-bit key PostgreSQL takes. A session lock belongs to
its connection: when the process holding it dies, the server ends the session and the lock is free.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from assistant.db.connection import Connection, DatabaseError, Target, connect


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for `name` (the same on every host and Python version)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)


@contextmanager
def try_advisory_lock(target: Target, name: str) -> Iterator[bool]:
    """Yields True while this session holds the lock `name`, False (at once) when another session does.

    The connection is this lock's own, so a long job holds it without keeping a store's connection busy."""
    conn: Connection = connect(target)
    try:
        got = bool(conn.execute("SELECT pg_try_advisory_lock(?)", (lock_key(name),)).fetchone()[0])
        try:
            yield got
        finally:
            if got:
                try:
                    conn.execute("SELECT pg_advisory_unlock(?)", (lock_key(name),))
                except DatabaseError:
                    pass  # the session is gone, and with it the lock
    finally:
        conn.close()
