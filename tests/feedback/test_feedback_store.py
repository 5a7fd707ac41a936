"""The feedback store's contract, on both backends: durable records, knowledge gaps, export, Slack thread
turns, masking, retention. Each test runs on a SQLite file and on a database of the session's real
PostgreSQL server (tests/postgres_server.py); the file's permissions are SQLite's own test."""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import pytest

from assistant.errors import InputError
from assistant.feedback.store import FeedbackStore
from assistant.models import Turn


def stored_text(store: FeedbackStore) -> str:
    """Every text column of every row, read straight from the database (not through the store's own reads)."""
    from assistant.db.connection import connect

    conn = connect(store.target)
    try:
        tables = {
            "questions": "question",
            "feedback": "question || ' ' || answer || ' ' || comment",
            "threads": "content",
            "thread_replies": "text",
        }
        return "\n".join(r[0] for t, col in tables.items() for r in conn.execute(f"SELECT {col} FROM {t}").fetchall())
    finally:
        conn.close()


def test_feedback_survives_a_new_connection(store: FeedbackStore) -> None:
    qid = store.record_question("ui", "RuntimeError: not home_path.empty()", False, "deepgemm-fp8-home-path-empty")
    fid = store.record("ui", "up", "RuntimeError: not home_path.empty()", "answer [1]", False, "worked", "u1", qid)
    store.close()
    again = FeedbackStore(store.location)
    [rec] = again.list()
    assert (rec.id, rec.face, rec.rating, rec.comment, rec.user, rec.question_id) == (
        fid,
        "ui",
        "up",
        "worked",
        "u1",
        qid,
    )
    assert again.question(qid).top_hit == "deepgemm-fp8-home-path-empty"


def test_gaps_are_the_abstained_questions_newest_first(store: FeedbackStore) -> None:
    store.record_question("api", "known error", False)
    store.record_question("slack", "first unknown", True)
    store.record_question("ui", "second unknown", True)
    assert [g.question for g in store.gaps()] == ["second unknown", "first unknown"]
    assert [g.face for g in store.gaps(limit=1)] == ["ui"]


def test_bad_feedback_is_refused(store: FeedbackStore) -> None:
    with pytest.raises(InputError, match="choose one of: up, down"):
        store.record("ui", "meh", "q", "a", False)
    with pytest.raises(InputError, match="the limit is 2000"):
        store.record("ui", "down", "q", "a", False, comment="x" * 2001)
    assert store.list() == []


def test_export_json_and_csv(store: FeedbackStore, tmp_path: Path) -> None:
    store.record("ui", "up", "q1", "a1", False, "nice, thanks")
    store.record("slack", "down", "q2", "a2", True, user="U1")
    assert store.export(tmp_path / "fb.json") == 2
    data = json.loads((tmp_path / "fb.json").read_text())
    assert [d["question"] for d in data] == ["q2", "q1"]
    assert store.export(tmp_path / "fb.csv") == 2
    rows = list(csv.DictReader((tmp_path / "fb.csv").open()))
    assert rows[1]["comment"] == "nice, thanks" and rows[0]["face"] == "slack"
    with pytest.raises(InputError, match=r"use a \.json or \.csv"):
        store.export(tmp_path / "fb.xlsx")


def test_thread_turns_keep_order_per_conversation(store: FeedbackStore) -> None:
    store.append_turn("slack:C1:1.0", Turn("user", "q1"))
    store.append_turn("slack:C2:9.0", Turn("user", "other"))
    store.append_turn("slack:C1:1.0", Turn("assistant", "a1"))
    assert store.turns("slack:C1:1.0") == [Turn("user", "q1"), Turn("assistant", "a1")]
    assert store.turns("slack:C1:1.0", limit=1) == [Turn("assistant", "a1")]


def test_concurrent_writers(store: FeedbackStore) -> None:
    def write(n: int) -> None:
        for i in range(25):
            store.record_question("api", f"q{n}-{i}", i % 2 == 0)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.gaps(limit=1000)) == 52


SECRET = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"


def test_secrets_are_masked_before_they_are_stored(store: FeedbackStore) -> None:
    question = f"HF_TOKEN={SECRET} vllm serve x fails: Authorization: Bearer sk-live-0123456789abcdefXYZ"
    qid = store.record_question("api", question, False)
    store.record("ui", "down", question, "answer", False, comment=f"my token is {SECRET}", question_id=qid)
    store.append_turn("slack:C1:1.0", Turn("user", question))
    store.link_thread("slack:C1:1.0", qid)
    assert store.record_reply("slack:C1:1.0", "2.0", "U2", f"try HF_TOKEN={SECRET}")
    dump = stored_text(store)
    assert SECRET not in dump and "sk-live-0123456789abcdefXYZ" not in dump
    assert dump.count("HF_TOKEN=[REDACTED]") == 4 and "my token is [REDACTED]" in dump and "vllm serve x fails" in dump


def test_the_sqlite_file_and_its_folder_are_private(tmp_path: Path) -> None:
    import os
    import stat

    store = FeedbackStore(tmp_path / "new" / "feedback.sqlite3")
    store.record_question("api", "q", False)
    store.close()
    for f in (tmp_path / "new").iterdir():  # the database and its WAL/SHM companions
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o600, f
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o700


def test_retention_purges_old_rows(make_store) -> None:
    import time

    store = make_store(retention_days=7)
    old = store.record_question("api", "old question", True)
    store.record("api", "up", "old question", "a", False, question_id=old)
    store.append_turn("slack:C:1", Turn("user", "old turn"))
    now = time.time()
    assert store.purge(now=now + 8 * 86400) == 3
    assert store.question(old) is None and store.list() == [] and store.turns("slack:C:1") == []
    fresh = store.record_question("api", "new question", True)
    assert store.purge(now=now + 86400) == 0 and store.question(fresh) is not None


def test_question_logging_can_be_off(make_store) -> None:
    store = make_store(log_questions=False)
    assert store.record_question("api", "anything", True) is None
    assert store.gaps() == []


def test_an_unwritable_store_raises_a_store_error_and_remembers_it(tmp_path: Path) -> None:
    from assistant.errors import StoreError

    folder = tmp_path / "db-is-a-folder"
    folder.mkdir()
    store = FeedbackStore(folder)  # SQLite cannot open a folder: every write fails
    with pytest.raises(StoreError, match="cannot be written"):
        store.record_question("api", "q", False)
    assert store.failure and store.failures == 1


def test_replies_in_threads_the_assistant_abstained_in_are_answered_gaps_in_time_order(store: FeedbackStore) -> None:
    gap = store.record_question("slack", "unknown error", True)
    store.link_thread("slack:C1:1.0", gap)
    store.link_thread("slack:C1:1.0", gap)  # linking twice keeps one link
    assert not store.record_reply("slack:C9:1.0", "2.0", "U1", "a thread the assistant is not in")
    assert store.record_reply("slack:C1:1.0", "1700000010.5", "U2", "second")
    assert store.record_reply("slack:C1:1.0", "999999999.9", "U3", "first (an earlier time, fewer digits)")
    assert store.record_reply("slack:C1:1.0", "1700000010.5", "U2", "second, edited")  # the same message again
    [answered] = store.answered_gaps()
    assert answered.question.id == gap and answered.conversation == "slack:C1:1.0"
    assert [(r.user, r.text) for r in answered.replies] == [("U3", "first (an earlier time, fewer digits)"),
                                                             ("U2", "second, edited")]  # fmt: skip


def test_times_keep_their_precision(store: FeedbackStore) -> None:
    import time

    before = time.time()
    qid = store.record_question("api", "q", True)
    assert abs(store.question(qid).ts - before) < 5  # PostgreSQL's 4-byte REAL would be minutes off


def test_an_unreachable_database_is_a_store_error_that_names_no_password() -> None:
    from assistant.errors import StoreError
    from tests.helpers.server import free_port

    port = free_port()
    store = FeedbackStore(f"postgresql://assistant:s3cret-pw@127.0.0.1:{port}/assistant")
    with pytest.raises(StoreError, match="cannot be written") as caught:
        store.record_question("api", "q", False)
    assert "s3cret-pw" not in str(caught.value) and f"postgresql://127.0.0.1:{port}/assistant" in str(caught.value)
    assert store.failure and store.failures == 1
    with pytest.raises(StoreError, match="cannot be read"):
        store.gaps()


def test_a_connection_the_server_dropped_is_replaced(postgres_url: str) -> None:
    import psycopg

    store = FeedbackStore(postgres_url)
    store.record_question("api", "before the restart", True)
    with psycopg.connect(postgres_url, autocommit=True) as admin:  # what a server restart does to a session
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
    store.record_question("api", "after the restart", True)  # noticed at BEGIN, nothing lost: a new session
    assert [g.question for g in store.gaps()] == ["after the restart", "before the restart"]
    assert store.failure is None
    store.close()


def test_the_secret_shapes_that_used_to_pass_are_masked_in_the_db(tmp_path: Path) -> None:
    """Issue 23's shapes, stored verbatim before: through the real store, read back from the file."""
    import sqlite3

    passed = {
        "redis://:RedisPassw0rd@cache.local:6379": "RedisPassw0rd",
        "postgres://admin:pa/ss123word@db.local": "ss123word",
        "https://bob:p@ssw0rd!@proxy": "ssw0rd",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "wJalrXUtnFEMI",
        "curl -H 'X: 1' -H Bearer mysecretbearertoken123456": "mysecretbearertoken123456",
    }
    store = FeedbackStore(tmp_path / "feedback.sqlite3")
    question = "vllm serve x fails with\n" + "\n".join(passed)
    qid = store.record_question("api", question, False)
    store.record("ui", "down", question, "answer", False, comment=question, question_id=qid)
    store.close()
    raw = sqlite3.connect(tmp_path / "feedback.sqlite3")
    dump = "\n".join(raw.iterdump())
    raw.close()
    for secret in passed.values():
        assert secret not in dump
    assert "@cache.local:6379" in dump and "vllm serve x fails" in dump


def test_a_write_that_reads_first_is_not_refused_when_another_process_writes_in_between(tmp_path: Path) -> None:
    """Two processes on one SQLite file (API workers). `record_reply` reads, then writes. If another process commits
    between the two, a transaction that only read so far cannot become a writer: SQLite refuses it at once ("database
    is locked", the busy timeout is not waited). The store's transactions take the write lock when they begin, so the
    other process waits its turn instead, and both writes land."""
    path = tmp_path / "state.sqlite3"
    mine, other = FeedbackStore(path), FeedbackStore(path)
    mine.link_thread("slack:C1:1.0", mine.record_question("slack", "why?", True))
    other.record_question("api", "warm-up", False)  # both connected and migrated
    others: list[BaseException] = []

    def other_writes() -> None:
        try:
            other.record_question("api", "written in between", False)
        except BaseException as exc:  # noqa: BLE001 - collected, asserted below
            others.append(exc)

    between: list[threading.Thread] = []

    def after_the_read(statement: str) -> None:  # runs as `mine` starts its INSERT, after its SELECT has read
        if statement.lstrip().upper().startswith("INSERT") and not between:
            between.append(threading.Thread(target=other_writes))
            between[0].start()
            between[0].join(timeout=1.0)  # a writer that is not made to wait commits within this second

    mine._connection().raw.set_trace_callback(after_the_read)
    assert mine.record_reply("slack:C1:1.0", "2.0", "U1", "the answer")
    between[0].join(timeout=30)
    assert others == []
    assert [r.text for g in mine.answered_gaps() for r in g.replies] == ["the answer"]
    assert stored_text(other).count("written in between") == 1
    mine.close()
    other.close()
