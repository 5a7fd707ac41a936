"""Versioned migrations: applied once each, in order, idempotent, and safe when processes start together."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from assistant.db.connection import Connection, Target, connect
from assistant.db.migrations import MIGRATIONS, Migration, applied_versions, migrate
from assistant.feedback.store import FeedbackStore

LATEST = [m.version for m in MIGRATIONS]


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path: Path) -> Target:
    if request.param == "postgresql":
        return Target.of(request.getfixturevalue("postgres_url"))
    return Target.of(tmp_path / "state.sqlite3")


def _tables(conn: Connection) -> set[str]:
    if conn.dialect == "sqlite":
        sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
    else:
        sql = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    return {r[0] for r in conn.execute(sql).fetchall()}


def test_a_new_database_gets_every_migration_once(target: Target) -> None:
    conn = connect(target)
    assert migrate(conn) == LATEST
    assert migrate(conn) == []  # the second start finds nothing to do
    assert applied_versions(conn) == LATEST
    assert {"questions", "feedback", "threads", "thread_questions", "thread_replies"} <= _tables(conn)
    conn.close()


def test_a_later_migration_is_applied_on_the_next_start_and_a_failed_one_changes_nothing(target: Target) -> None:
    conn = connect(target)
    migrate(conn)

    def broken(c: Connection) -> None:
        c.execute("CREATE TABLE half_done (x INTEGER)")
        c.execute("SELECT * FROM no_such_table")  # fails after a first statement

    from assistant.db.connection import DatabaseError

    with pytest.raises(DatabaseError):
        migrate(conn, (*MIGRATIONS, Migration(99, "broken", broken)))
    assert applied_versions(conn) == LATEST and "half_done" not in _tables(conn)  # DDL rolled back with it
    added = Migration(3, "a column", lambda c: c.execute("ALTER TABLE feedback ADD COLUMN extra TEXT"))
    assert migrate(conn, (*MIGRATIONS, added)) == [3]
    assert migrate(conn, (*MIGRATIONS, added)) == []
    assert migrate(conn) == []  # older code on a newer schema: used as it is
    conn.close()


def test_processes_starting_together_apply_each_migration_once(target: Target) -> None:
    """Eight stores opening one new database at the same moment, as API workers starting do."""
    stores = [FeedbackStore(target.location) for _ in range(8)]
    start = threading.Barrier(len(stores))
    errors: list[BaseException] = []

    def first_write(store: FeedbackStore) -> None:
        start.wait()
        try:
            store.record_question("api", "q", True)
        except BaseException as exc:  # noqa: BLE001 - collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=first_write, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    conn = connect(target)
    assert applied_versions(conn) == LATEST
    assert conn.execute("SELECT COUNT(*) FROM questions").fetchone()[0] == 8
    conn.close()
    for s in stores:
        s.close()


def test_a_sqlite_file_made_before_versioning_is_adopted_with_its_rows(tmp_path: Path) -> None:
    """The store as it was before threads had a `ts` column and before `schema_migrations` existed."""
    path = tmp_path / "feedback.sqlite3"
    raw = sqlite3.connect(path)
    raw.executescript(
        """
        CREATE TABLE questions (id INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, face TEXT NOT NULL,
            question TEXT NOT NULL, abstained INTEGER NOT NULL, top_hit TEXT);
        CREATE TABLE threads (conversation TEXT NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL,
            content TEXT NOT NULL);
        INSERT INTO questions (ts, face, question, abstained) VALUES (1700000000.0, 'ui', 'an old gap', 1);
        INSERT INTO threads (conversation, role, content) VALUES ('slack:C:1', 'user', 'an old turn');
        """
    )
    raw.close()
    store = FeedbackStore(path)
    assert [g.question for g in store.gaps()] == ["an old gap"]
    assert [t.content for t in store.turns("slack:C:1")] == ["an old turn"]
    store.append_turn("slack:C:1", __import__("assistant.models", fromlist=["Turn"]).Turn("assistant", "a reply"))
    store.close()
    conn = connect(Target.of(path))
    assert applied_versions(conn) == LATEST
    assert "ts" in {r[1] for r in conn.execute("PRAGMA table_info(threads)").fetchall()}
    conn.close()
