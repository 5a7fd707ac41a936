"""The store's backends: every test that takes `make_store` or `store` runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.feedback.store import FeedbackStore


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request, tmp_path: Path) -> str:
    """Where a test's store lives: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_url")
    return str(tmp_path / "sub" / "feedback.sqlite3")


@pytest.fixture
def make_store(location: str):
    opened: list[FeedbackStore] = []

    def make(**kw) -> FeedbackStore:
        opened.append(FeedbackStore(location, **kw))
        return opened[-1]

    yield make
    for s in opened:
        s.close()


@pytest.fixture
def store(make_store) -> FeedbackStore:
    return make_store()
