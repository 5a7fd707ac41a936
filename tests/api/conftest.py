"""A real index (built once per session from corpus/ with the real embedding model) and live API servers."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from assistant.app import create_app
from assistant.service import Assistant
from assistant.settings import Settings
from tests.helpers.server import ServerThread


@pytest.fixture(scope="session")
def api_assistant(faces_index: Path) -> Assistant:
    assistant = Assistant(Settings(index_dir=faces_index))
    assistant.ensure_index()
    assistant.warm_up()
    return assistant


@pytest.fixture(scope="session")
def serve_api():
    """A context manager: a live uvicorn server on loopback for the shipped app, `create_app(settings, assistant, ...)`
    (without the UI unless `ui=True`: these tests are about the API)."""

    @contextmanager
    def serve(assistant: Assistant, settings: Settings, wait: bool = True, ui: bool = False, **kwargs):
        app = create_app(settings, assistant, ui=ui, **kwargs)
        with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
            if wait:
                server.wait_ready()
            yield app, client

    return serve


@pytest.fixture(scope="module")
def api_settings(faces_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(index_dir=faces_index, feedback_db=tmp_path_factory.mktemp("api") / "feedback.sqlite3")


@pytest.fixture(scope="module")
def live(api_assistant: Assistant, api_settings: Settings, serve_api) -> Iterator[tuple]:
    """A live uvicorn server on loopback, ready (index loaded): (app, client)."""
    with serve_api(api_assistant, api_settings) as (app, client):
        yield app, client


@pytest.fixture(scope="module")
def client(live) -> httpx.Client:
    return live[1]


@pytest.fixture(scope="module")
def base_url(live) -> str:
    return str(live[1].base_url).rstrip("/")


@pytest.fixture
def readonly_db(tmp_path: Path):
    """A feedback DB the process cannot write, even as root: an immutable file (chattr +i)."""
    from assistant.feedback.store import FeedbackStore

    path = tmp_path / "feedback.sqlite3"
    store = FeedbackStore(path)
    store.record_question("api", "before it went read-only", False)
    store.close()
    for extra in path.parent.glob("feedback.sqlite3-*"):
        extra.unlink()
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)
