"""Slack's side for the Slack tests: a local Web API that answers like Slack and records every call, the bot
identity it hands out, and signed Events API requests to the real Bolt app."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

import httpx
from slack_sdk.signature import SignatureVerifier

from tests.helpers.known import KNOWN
from tests.helpers.server import LoopbackHTTP
from tests.helpers.wait import wait_until

# The identity the fake's auth.test hands out, and the secret requests are signed with.
BOT_USER, BOT_ID, SECRET = "UBOT", "BBOT", "test-signing-secret"


class FakeSlackApi(LoopbackHTTP):
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

        super().__init__(Handler)
        self.url = self.root + "/api/"
        self.__enter__()  # serving from the start; `close` stops it

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
        wait_until(
            lambda: len(self.posts(method)) >= count,
            timeout,
            lambda: f"expected {count} {method} calls, got {self.posts(method)}",
            0.02,
        )
        return self.posts(method)

    def reset(self) -> None:
        with self._lock:
            self.calls = [c for c in self.calls if c[0] == "auth.test"]

    def close(self) -> None:
        self.__exit__()


def signed_post(
    url: str, body: str, content_type: str, *, secret: str = SECRET, ts: int | None = None, headers: dict | None = None
) -> httpx.Response:
    ts = int(time.time()) if ts is None else ts
    sig = SignatureVerifier(secret).generate_signature(timestamp=str(ts), body=body)
    hdrs = {"content-type": content_type, "x-slack-request-timestamp": str(ts), "x-slack-signature": sig}
    if headers is not None:
        hdrs = headers
    return httpx.post(url + "/slack/events", content=body, headers=hdrs, timeout=30)


def event(url: str, ev: dict, **kw) -> httpx.Response:
    body = json.dumps(
        {
            "type": "event_callback",
            "team_id": "T1",
            "api_app_id": "A1",
            "event": ev,
            "event_id": f"Ev{time.monotonic_ns()}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": "T1", "user_id": BOT_USER, "is_bot": True}],
        }
    )
    return signed_post(url, body, "application/json", **kw)


def mention(text: str, ts: str, thread_ts: str | None = None, channel: str = "C1") -> dict:
    ev = {"type": "app_mention", "user": "U1", "text": f"<@{BOT_USER}> {text}", "ts": ts, "channel": channel}
    if thread_ts:
        ev["thread_ts"] = thread_ts
    return ev


def text_of(post: dict) -> str:
    return json.dumps(post.get("blocks", [])) + post.get("text", "")


def assert_only_the_sentinel_is_answered(url: str, fake: FakeSlackApi, before: int = 0) -> None:
    """After requests that must be ignored, a valid mention that must be answered; then nothing else was posted.

    The sentinel asks the same question, so an answer to the ignored requests, started earlier, would have been
    posted by the time the sentinel's is: the test waits for a reply instead of sleeping and hoping.
    `before`: the posts that were already there (and expected) when the ignored requests were sent.
    """
    assert event(url, mention(KNOWN, "999.1", channel="CSENTINEL")).status_code == 200
    posts = fake.wait_posts(before + 1)[before:]
    assert [(p["channel"], p["thread_ts"]) for p in posts] == [("CSENTINEL", "999.1")], posts
