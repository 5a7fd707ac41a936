"""A local Slack Web API: answers the methods the bot calls like Slack does and records every call."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

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
