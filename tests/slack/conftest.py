"""The real Bolt app behind a live server, Slack's Web API replaced by a local recording HTTP server."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from assistant.app import create_app
from assistant.settings import Settings
from tests.helpers.server import ServerThread

BOT_USER, BOT_ID, SECRET = "UBOT", "BBOT", "test-signing-secret"


class FakeSlackApi:
    """Answers Slack Web API methods like Slack does (`{"ok": true, ...}`) and records every call."""

    bot_user, bot_id, signing_secret = BOT_USER, BOT_ID, SECRET

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.socket_url = ""  # what apps.connections.open hands out (Socket Mode tests)
        self._lock = threading.Lock()
        self._ts = 1_700_000_000
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
                if self.headers.get("content-type", "").startswith("application/json"):
                    args = json.loads(raw or "{}")
                else:
                    args = {k: v[0] for k, v in parse_qs(raw).items()}
                    if isinstance(args.get("blocks"), str):
                        args["blocks"] = json.loads(args["blocks"])
                method = self.path.rsplit("/", 1)[-1]
                body = json.dumps(fake.respond(method, args)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def respond(self, method: str, args: dict) -> dict:
        with self._lock:
            self.calls.append((method, args))
            self._ts += 1
            ts = f"{self._ts}.000100"
        if method == "auth.test":
            return {
                "ok": True,
                "user_id": BOT_USER,
                "bot_id": BOT_ID,
                "team_id": "T1",
                "user": "assistant",
                "team": "test",
                "url": "https://test.slack.com/",
            }
        if method == "chat.postMessage":
            return {
                "ok": True,
                "channel": args.get("channel"),
                "ts": ts,
                "message": {"text": args.get("text"), "ts": ts},
            }
        if method == "apps.connections.open":
            return {"ok": True, "url": self.socket_url}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": ts}
        return {"ok": True}

    def posts(self, method: str = "chat.postMessage") -> list[dict]:
        with self._lock:
            return [a for m, a in self.calls if m == method]

    def wait_posts(self, count: int, method: str = "chat.postMessage", timeout: float = 20.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while len(self.posts(method)) < count:
            assert time.monotonic() < deadline, f"expected {count} {method} calls, got {self.posts(method)}"
            time.sleep(0.02)
        return self.posts(method)

    def reset(self) -> None:
        with self._lock:
            self.calls = [c for c in self.calls if c[0] == "auth.test"]

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture(scope="session")
def faces_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "faces-index"


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
