"""A feedback DB that cannot be written shows in /readyz from the start, not only after the first failed write."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from assistant.feedback.store import FeedbackStore


@pytest.fixture
def corrupt_db(tmp_path: Path) -> Path:
    path = tmp_path / "feedback.sqlite3"
    path.write_bytes(b"not a database " + os.urandom(4096))
    return path


@pytest.mark.parametrize(("db", "says"), [("corrupt_db", "not a database"), ("readonly_db", "readonly")])
def test_readyz_reports_an_unusable_feedback_store_before_any_write(
    api_assistant, api_settings, serve_api, request: pytest.FixtureRequest, db: str, says: str
) -> None:
    path = request.getfixturevalue(db)
    with serve_api(api_assistant, api_settings.with_overrides(feedback_db=path)) as (_app, client):
        ready = client.get("/readyz")  # the first request this server answers: nothing was written yet
        state = ready.json()["feedback_store"]
        assert ready.status_code == 200 and state.startswith("failing") and says in state, ready.text
        assert str(path) not in ready.text
        assert "assistant_feedback_store_up 0.0" in client.get("/metrics").text


def test_the_start_check_of_a_healthy_store_writes_nothing(tmp_path: Path) -> None:
    store = FeedbackStore(tmp_path / "feedback.sqlite3")
    assert store.check() is None and store.failure is None
    store.close()
    with sqlite3.connect(tmp_path / "feedback.sqlite3") as conn:
        assert conn.execute("SELECT COUNT(*) FROM thread_replies").fetchone() == (0,)
