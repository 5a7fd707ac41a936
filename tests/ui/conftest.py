"""The chat UI mounted on the API, served live on loopback, and a real headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.app import create_app
from assistant.settings import Settings
from tests.helpers.server import ServerThread

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def ui_server(faces_index: Path, tmp_path_factory: pytest.TempPathFactory):
    """(base url, API app) with the Gradio UI mounted at /ui."""
    settings = Settings(index_dir=faces_index, feedback_db=tmp_path_factory.mktemp("ui") / "feedback.sqlite3")
    api = create_app(settings)
    with ServerThread(api) as server:
        server.wait_ready()
        yield server.url, api


@pytest.fixture(scope="module")
def browser() -> Iterator:
    if not CHROMIUM.exists():
        pytest.skip("headless browser test needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()
