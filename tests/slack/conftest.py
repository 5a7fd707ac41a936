"""The real Bolt app behind a live server, Slack's Web API replaced by a local recording HTTP server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.app import create_app
from assistant.settings import Settings
from tests.helpers.server import ServerThread
from tests.helpers.slack import SECRET, FakeSlackApi


@pytest.fixture(scope="module")
def slack_api() -> Iterator[FakeSlackApi]:
    fake = FakeSlackApi()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def bot(faces_index: Path, tmp_path_factory: pytest.TempPathFactory, slack_api: FakeSlackApi):
    """(server url, API app, fake Slack) with the Bolt app mounted at /slack/events."""
    settings = Settings(
        index_dir=faces_index,
        feedback_db=tmp_path_factory.mktemp("slack") / "feedback.sqlite3",
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack_api.url,
    )
    api = create_app(settings, ui=False)
    assert api.state.slack_mode == "http"
    with ServerThread(api) as server:
        server.wait_ready()
        yield server.url, api, slack_api


@pytest.fixture
def fake(bot) -> FakeSlackApi:
    bot[2].reset()
    return bot[2]
