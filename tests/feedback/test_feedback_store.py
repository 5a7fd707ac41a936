"""The SQLite feedback store: durable records, knowledge gaps, export, Slack thread turns."""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import pytest

from assistant.errors import InputError
from assistant.feedback.store import FeedbackStore
from assistant.models import Turn


@pytest.fixture
def store(tmp_path: Path) -> FeedbackStore:
    return FeedbackStore(tmp_path / "sub" / "feedback.sqlite3")


def test_feedback_survives_a_new_connection(store: FeedbackStore) -> None:
    qid = store.record_question("ui", "RuntimeError: not home_path.empty()", False, "deepgemm-fp8-home-path-empty")
    fid = store.record("ui", "up", "RuntimeError: not home_path.empty()", "answer [1]", False, "worked", "u1", qid)
    store.close()
    again = FeedbackStore(store.path)
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


def test_secrets_are_masked_before_they_are_stored_and_the_file_is_private(tmp_path: Path) -> None:
    import os
    import sqlite3
    import stat

    store = FeedbackStore(tmp_path / "new" / "feedback.sqlite3")
    question = f"HF_TOKEN={SECRET} vllm serve x fails: Authorization: Bearer sk-live-0123456789abcdefXYZ"
    qid = store.record_question("api", question, False)
    store.record("ui", "down", question, "answer", False, comment=f"my token is {SECRET}", question_id=qid)
    store.append_turn("slack:C1:1.0", Turn("user", question))
    store.close()
    raw = sqlite3.connect(tmp_path / "new" / "feedback.sqlite3")
    dump = "\n".join(raw.iterdump())
    raw.close()
    assert SECRET not in dump and "sk-live-0123456789abcdefXYZ" not in dump
    assert "HF_TOKEN=[REDACTED]" in dump and "vllm serve x fails" in dump
    for f in (tmp_path / "new").iterdir():  # the database and its WAL/SHM companions
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o600, f
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o700


def test_retention_purges_old_rows(tmp_path: Path) -> None:
    import time

    store = FeedbackStore(tmp_path / "f.sqlite3", retention_days=7)
    old = store.record_question("api", "old question", True)
    store.record("api", "up", "old question", "a", False, question_id=old)
    store.append_turn("slack:C:1", Turn("user", "old turn"))
    now = time.time()
    assert store.purge(now=now + 8 * 86400) == 3
    assert store.question(old) is None and store.list() == [] and store.turns("slack:C:1") == []
    fresh = store.record_question("api", "new question", True)
    assert store.purge(now=now + 86400) == 0 and store.question(fresh) is not None


def test_question_logging_can_be_off(tmp_path: Path) -> None:
    store = FeedbackStore(tmp_path / "f.sqlite3", log_questions=False)
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
