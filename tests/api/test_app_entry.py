"""`python app.py`: one process serving UI and API on loopback, printing where to open it, logging JSON."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.helpers.app_process import start_app
from tests.helpers.env import clean_env
from tests.helpers.known import KNOWN


def test_app_serves_ui_and_api_and_says_where(faces_index: Path, api_assistant, tmp_path: Path) -> None:
    env = clean_env(ASSISTANT_INDEX_DIR=str(faces_index), ASSISTANT_FEEDBACK_DB=str(tmp_path / "fb.sqlite3"))
    proc, base = start_app([], env)
    try:
        root = httpx.get(base + "/", timeout=10)
        assert root.status_code == 307 and root.headers["location"] == "/ui/"
        ui = httpx.get(base + "/ui/", timeout=10)
        assert ui.status_code == 200 and "<html" in ui.text.lower()
        r = httpx.post(base + "/v1/ask", json={"question": KNOWN}, timeout=30)
        assert r.status_code == 200 and r.json()["citations"]
        assert httpx.post(base + "/slack/events", content=b"{}", timeout=10).status_code == 404  # Slack is off
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert f"chat UI   {base}/ui/" in out
    lines = [line for line in err.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every stderr line is a JSON log record
    assert any(r["msg"] == "ready" for r in records)
    assert any(r["msg"] == "request" and r.get("path") == "/v1/ask" and r["status"] == 200 for r in records)
