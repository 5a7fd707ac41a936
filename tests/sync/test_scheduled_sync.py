"""Sync on a schedule inside a live server: answers keep flowing during the sync, the new knowledge
appears at once when the generation is promoted, a failed sync leaves it serving, and /readyz and
/metrics report the last successful sync per source."""

from __future__ import annotations

import httpx

from assistant.api import create_api
from assistant.service import Assistant
from tests.conftest import make_settings
from tests.helpers.server import ServerThread
from tests.helpers.wait import wait_until
from tests.sync.conftest import REPO, SWAP_ERROR

ISSUE = f"https://github.com/{REPO}/issues/2"


def _sources(path, fake_url):
    path.write_text(f"sources:\n  - name: issues\n    kind: github_issues\n    repo: {REPO}\n", encoding="utf-8")
    return path


def _cited(client: httpx.Client) -> list[str]:
    r = client.post("/v1/ask", json={"question": f"the server crashed: {SWAP_ERROR}"})
    assert r.status_code == 200, r.text
    return [c["source"] for c in r.json()["citations"]]


def test_scheduled_sync_serves_answers_throughout_and_publishes_atomically(tmp_path, fake_github, embedder):
    settings = make_settings(
        tmp_path / "index",
        github_api_url=fake_github.url,
        github_backoff=0.0,
        sources_file=_sources(tmp_path / "sources.yaml", fake_github.url),
        sync_interval_minutes=60,
    )
    assistant = Assistant(settings, embedder=embedder)
    assistant.ensure_index()  # the curated corpus, built before the server starts (the sync adds to it)
    arrived, release = fake_github.hold("/issues/8/timeline")  # the sync pauses after #2 and #4 are staged
    app = create_api(assistant, settings)
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        server.wait_ready(timeout=600)
        assert arrived.wait(300), "the scheduled sync did not start"
        assert ISSUE not in _cited(client)  # staged, not yet live
        assert client.get("/readyz").json()["sync"]["issues"]["last_success"] is None
        release.set()
        last_success = lambda: (client.get("/readyz").json().get("sync", {}).get("issues") or {}).get("last_success")
        wait_until(last_success, 300, "the scheduled sync of issues never succeeded", 0.2)
        assert ISSUE in _cited(client) and f"{ISSUE}#issuecomment-1002" in _cited(client)
        metrics = client.get("/metrics").text
        assert 'assistant_sync_last_success_timestamp_seconds{source="issues"}' in metrics
        assert 'assistant_sync_failing{source="issues"} 0.0' in metrics

        fake_github.repos[REPO].issues[2]["updated_at"] = "2026-05-01T00:00:00Z"
        fake_github.fail("/issues", 502, times=100)
        assert app.state.sync.run_once() is not None
        ready = client.get("/readyz").json()
        assert ready["status"] == "ready" and "502" in ready["sync"]["issues"]["last_error"]
        assert ISSUE in _cited(client)  # the previous knowledge keeps serving
        assert 'assistant_sync_failing{source="issues"} 1.0' in client.get("/metrics").text
