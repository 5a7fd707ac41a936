"""Complete or not served: a first build killed mid-way is finished on restart before /readyz says 200,
and a Chroma server that is not up yet is waited for (with backoff), /readyz saying why."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from assistant.app import create_app
from assistant.ingest.loader import discover, load_file
from assistant.settings import REPO_ROOT
from tests.conftest import VLLM_DOCS, make_settings
from tests.helpers.app_process import start_app
from tests.helpers.chroma import start_chroma
from tests.helpers.chroma import stop as stop_chroma
from tests.helpers.corpus import some_entries
from tests.helpers.env import clean_env
from tests.helpers.known import KNOWN, KNOWN_ENTRY
from tests.helpers.server import ServerThread, free_port
from tests.helpers.wait import wait_until


def _corpus(tmp_path: Path) -> tuple[Path, int]:
    """A corpus of several embedding batches (vLLM's features docs and some curated entries, the known one among them)
    and its chunk count. Not everything: the build is what this test is about, and every chunk adds to its time."""
    corpus = tmp_path / "corpus"
    some_entries(corpus / "entries", also=(KNOWN_ENTRY,))
    shutil.copytree(VLLM_DOCS / "docs" / "features", corpus / "docs" / "features")
    ids = {c.id for path in discover(corpus) for c in load_file(path, corpus)}
    return corpus, len(ids)


def test_a_first_build_killed_midway_is_finished_before_ready(tmp_path: Path) -> None:
    corpus, total = _corpus(tmp_path)
    assert total > 128  # at least three embedding batches of 64
    env = clean_env(
        ASSISTANT_INDEX_DIR=str(tmp_path / "index"),
        ASSISTANT_CORPUS_DIR=str(corpus),
        ASSISTANT_FEEDBACK_DB=str(tmp_path / "fb.sqlite3"),
        # The release's docs (3,000 chunks to embed) are not what this test is about: tests/sync/test_release_docs.py
        ASSISTANT_RELEASE_DOCS="false",
    )
    first = subprocess.Popen(
        [sys.executable, "app.py", "--no-ui", "--port", str(free_port())],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in first.stderr:  # the JSON log: kill it right after the first batch is stored
            if f'"embedded 64/{total} chunks"' in line:
                first.send_signal(signal.SIGKILL)
                break
        else:
            raise AssertionError("the first build never reported progress")
    finally:
        first.kill()
        first.wait(timeout=30)

    # The log goes to a file: the release sync before ready logs more than a pipe holds, and nothing reads
    # a pipe until the end (a full pipe would block the server's logging, and the test would time out).
    log = tmp_path / "second.log"
    with log.open("w") as sink:
        second, base = start_app(["--no-ui"], env, stdout=subprocess.DEVNULL, stderr=sink, wait=600)
        try:
            ready = httpx.get(base + "/readyz", timeout=10).json()
            assert ready["status"] == "ready" and ready["chunks"] == total
            r = httpx.post(base + "/v1/ask", json={"question": KNOWN}, timeout=60)
            assert r.status_code == 200 and r.json()["citations"]
        finally:
            second.terminate()
            second.wait(timeout=30)
    assert "finishing an interrupted index build" in log.read_text()


def test_startup_waits_for_an_unreachable_chroma_and_says_why(tmp_path: Path, embedder) -> None:
    from assistant.service import Assistant

    port = free_port()
    settings = make_settings(tmp_path / "idx", chroma_url=f"http://127.0.0.1:{port}")
    app = create_app(settings, Assistant(settings, embedder=embedder), ui=False)
    chroma = None
    with ServerThread(app) as server:
        r = wait_until(
            lambda: (got := httpx.get(server.url + "/readyz", timeout=10)).json()["status"] == "waiting" and got,
            120,
            "/readyz never said it was waiting for Chroma",
            0.2,
        )
        assert r.status_code == 503 and "unreachable" in r.json()["detail"]
        assert str(port) not in r.json()["detail"]  # the server's address is not revealed
        asked = httpx.post(server.url + "/v1/ask", json={"question": "EngineDeadError"}, timeout=10)
        assert asked.status_code == 503 and asked.headers["retry-after"] == "1"

        chroma = start_chroma(tmp_path / "chroma", port)
        try:
            server.wait_ready(timeout=300)
            assert app.state.readiness.attempts >= 2
            r = httpx.post(server.url + "/v1/ask", json={"question": KNOWN}, timeout=60)
            assert r.status_code == 200 and r.json()["citations"]
        finally:
            stop_chroma(chroma)
