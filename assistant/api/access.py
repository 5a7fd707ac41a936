"""One access policy for every route the process serves: API, chat UI, Gradio's API, ops pages.

With `api_keys` set, every request needs `Authorization: Bearer <key>` or the session cookie that
`POST /login` sets from the same key (how a browser reaches the UI). Open: the probes (`/healthz`,
`/readyz`), `/login`, and `/slack/` (Slack signs its requests; Bolt checks the signature). `/metrics`,
`/docs` and `/openapi.json` follow `ops_access`: open on a loopback host, keyed otherwise (`auto`).
The UI takes no files, so Gradio's upload routes are off (403) for everyone. Requests that ask (every
POST) are rate-limited per key, or per client address when no keys are set.

Wrong keys are limited per client address, whichever way they are tried (a Bearer header, the session
cookie, the /login form): one bucket, spent only by failures, so a client's right key is never used up by
its own successful requests nor by another client's guesses. While a client's bucket is empty every keyed
request from it gets 429, the right key too: answering a right key then would tell a guesser when it hit.
The client address is the TCP peer, or what X-Forwarded-For says when the peer is a proxy named in
`forwarded_allow_ips` (app.py hands that to uvicorn; nothing is trusted by default).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import ipaddress
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Literal
from urllib.parse import parse_qs

from assistant.api.ratelimit import RateLimiter
from assistant.api.redirects import DEFAULT_NEXT, safe_next
from assistant.settings import Settings

log = logging.getLogger("assistant.api")

COOKIE = "assistant_session"
LOGIN_PATH = "/login"
OPEN_PATHS = ("/healthz", "/readyz", LOGIN_PATH)
OPS_PATHS = ("/metrics", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json")
UPLOAD_SUFFIXES = ("/upload", "/upload_progress", "/process_recording")
Kind = Literal["open", "slack", "ops", "upload", "keyed"]


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def session_token(key: str) -> str:
    """What the login cookie holds: derived from the key (never the key itself), so a leaked cookie
    names no key and stops working when the key is removed."""
    return hmac.new(key.encode(), b"assistant-ui-session-v1", hashlib.sha256).hexdigest()


def classify(path: str, ui_path: str = "/ui") -> Kind:
    if path in OPEN_PATHS:
        return "open"
    if path.startswith("/slack/"):
        return "slack"
    if path in OPS_PATHS:
        return "ops"
    if path.startswith(ui_path + "/") and path.rstrip("/").endswith(UPLOAD_SUFFIXES):
        return "upload"
    return "keyed"


@dataclass(frozen=True)
class Caller:
    """Who is asking: `key:<n>` for the n-th API key, else `addr:<client address>`; `tried`: a key or a
    session cookie was sent and is wrong (a failed attempt, unlike sending none)."""

    id: str
    authenticated: bool
    tried: bool = False


class AccessPolicy:
    def __init__(
        self,
        keys: Sequence[str],
        ops_open: bool,
        rate_limit_per_minute: int = 0,
        ui_path: str = "/ui",
        failed_keys_per_minute: int = 0,
    ):
        self._keys = [k.encode() for k in keys if k]
        self._tokens = [session_token(k).encode() for k in keys if k]
        self.ops_open = ops_open
        self.limiter = RateLimiter(rate_limit_per_minute) if rate_limit_per_minute > 0 else None
        self.failures = RateLimiter(failed_keys_per_minute) if failed_keys_per_minute > 0 else None
        self.ui_path = ui_path

    @classmethod
    def from_settings(cls, settings: Settings) -> AccessPolicy:
        ops_open = settings.ops_access == "open" or (settings.ops_access == "auto" and is_loopback(settings.host))
        if not settings.api_keys and not is_loopback(settings.host):
            log.warning(
                "serving beyond loopback without API keys: anyone who can reach this address can use the UI, "
                "the API, /metrics and /docs; set ASSISTANT_API_KEYS",
                extra={"host": settings.host},
            )
        failed = settings.failed_keys_per_minute
        if failed and settings.rate_limit_per_minute:  # a guess is never cheaper than a request
            failed = min(failed, settings.rate_limit_per_minute)
        return cls(
            settings.api_keys, ops_open, settings.rate_limit_per_minute, ui_path="/ui", failed_keys_per_minute=failed
        )

    def session_cookie(self, key_index: int) -> str:
        return self._tokens[key_index].decode()

    @property
    def keyed(self) -> bool:
        return bool(self._keys)

    def key_index(self, key: str) -> int | None:
        k = key.strip().encode()
        for i, known in enumerate(self._keys):
            if hmac.compare_digest(k, known):
                return i
        return None

    def identify(self, headers: dict[str, str], client: str) -> tuple[Caller, str | None]:
        """(caller, problem): problem is None when the request may pass the key check."""
        header = headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                i = self.key_index(token)
                if i is not None:
                    return Caller(f"key:{i}", True), None
                return Caller(f"addr:{client}", False, tried=True), "invalid API key"
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # noqa: BLE001 - a malformed cookie header is simply no session
            cookie = SimpleCookie()
        if COOKIE in cookie:
            value = cookie[COOKIE].value.encode()
            for i, token in enumerate(self._tokens):
                if hmac.compare_digest(value, token):
                    return Caller(f"key:{i}", True), None
            if self._tokens:
                problem = "invalid session (the key may have changed): log in again at /login"
                return Caller(f"addr:{client}", False, tried=True), problem
        problem = "missing API key: send 'Authorization: Bearer <key>' (browsers: log in at /login)"
        return Caller(f"addr:{client}", False), problem


def _error(status: int, message: str, kind: str, headers: Sequence[tuple[bytes, bytes]] = ()) -> tuple:
    body = json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()
    return status, [(b"content-type", b"application/json"), *headers], body


def login_page(next_path: str = DEFAULT_NEXT, problem: str = "") -> bytes:
    note = f'<p role="alert" style="color:#b00">{html.escape(problem)}</p>' if problem else ""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Log in · vLLM troubleshooting \
assistant</title><meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body style="font-family:sans-serif;max-width:28em;margin:4em auto">
<h1>vLLM troubleshooting assistant</h1><p>This server needs an API key.</p>{note}
<form method="post" action="{LOGIN_PATH}"><input type="hidden" name="next" value="{html.escape(next_path)}">
<label>API key <input id="key" name="key" type="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button></form></body></html>""".encode()


class AccessMiddleware:
    """ASGI middleware enforcing an `AccessPolicy` before any route (FastAPI's or Gradio's) runs."""

    def __init__(self, app, policy: AccessPolicy, max_login_body: int = 4096):
        self.app = app
        self.policy = policy
        self.max_login_body = max_login_body

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        path = scope["path"]
        kind = classify(path, self.policy.ui_path)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        client = (scope.get("client") or ("unknown", 0))[0]
        if path == LOGIN_PATH and scope["type"] == "http":
            return await self._login(scope, receive, send, headers, client)
        caller, problem = self.policy.identify(headers, client)
        if kind == "upload":  # the UI has no file input; Gradio's upload routes would store files and echo paths
            return await self._send(
                scope, send, *_error(403, "uploads are off: this UI takes no files", "permission_error")
            )
        needs_key = self.policy.keyed and (kind == "keyed" or (kind == "ops" and not self.policy.ops_open))
        if needs_key and (caller.tried or caller.authenticated):
            wait = self._locked_out(client)
            if wait is not None:
                return await self._send(scope, send, *_error(429, _locked_message(wait), "rate_limit_error", _retry(wait)))
        if needs_key and problem is not None:
            if caller.tried:
                self._failed(client, "wrong key")
            if _wants_html(scope, headers):
                query = scope["query_string"].decode("latin-1")
                raw = scope.get("raw_path") or path.encode()
                target = safe_next(raw.decode("latin-1") + (f"?{query}" if query else ""))
                page = login_page(target)  # the form posts the key to /login, which sets the cookie
                return await self._send(scope, send, 401, [(b"content-type", b"text/html; charset=utf-8")], page)
            www = [(b"www-authenticate", b'Bearer realm="assistant"')]
            return await self._send(scope, send, *_error(401, problem, "authentication_error", www))
        if (
            self.policy.limiter is not None
            and scope["type"] == "http"
            and scope["method"] == "POST"
            and kind == "keyed"
        ):
            wait = self.policy.limiter.check(caller.id)
            if wait is not None:
                message = f"rate limit exceeded: at most {int(self.policy.limiter.capacity)} requests a minute; retry in {wait} s"
                return await self._send(scope, send, *_error(429, message, "rate_limit_error", _retry(wait)))
        return await self.app(scope, receive, send)

    def _locked_out(self, client: str) -> int | None:
        """Seconds until `client` may try a key again, or None when it may now."""
        return self.policy.failures.peek(f"addr:{client}") if self.policy.failures is not None else None

    def _failed(self, client: str, what: str) -> None:
        if self.policy.failures is not None:
            self.policy.failures.check(f"addr:{client}")
        log.warning(what, extra={"client": client})

    async def _login(self, scope, receive, send, headers: dict[str, str], client: str):
        if scope["method"] == "GET":
            nxt = safe_next(parse_qs(scope["query_string"].decode("latin-1")).get("next", [DEFAULT_NEXT])[0])
            return await self._send(scope, send, 200, [(b"content-type", b"text/html; charset=utf-8")], login_page(nxt))
        if scope["method"] != "POST":
            return await self._send(
                scope, send, *_error(405, f"method {scope['method']} is not allowed on /login", "invalid_request_error")
            )
        wait = self._locked_out(client) if self.policy.keyed else None
        if wait is not None:
            page = login_page(DEFAULT_NEXT, _locked_message(wait))
            html_type = (b"content-type", b"text/html; charset=utf-8")
            return await self._send(scope, send, 429, [html_type, *_retry(wait)], page)
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            if len(body) > self.max_login_body:
                return await self._send(scope, send, *_error(413, "the login form is too large", "request_too_large"))
            if not message.get("more_body", False):
                break
        form = parse_qs(body.decode("utf-8", "replace"))
        key = (form.get("key") or [""])[0]
        nxt = safe_next((form.get("next") or [DEFAULT_NEXT])[0])
        if not self.policy.keyed:
            return await self._send(scope, send, 303, [(b"location", nxt.encode())], b"")
        i = self.policy.key_index(key) if key else None
        if i is None:
            self._failed(client, "login failed")
            page = login_page(nxt, "That key is not valid.")
            return await self._send(scope, send, 401, [(b"content-type", b"text/html; charset=utf-8")], page)
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = f"{COOKIE}={self.policy.session_cookie(i)}; Path=/; HttpOnly; SameSite=Lax{secure}"
        return await self._send(scope, send, 303, [(b"location", nxt.encode()), (b"set-cookie", cookie.encode())], b"")

    @staticmethod
    async def _send(scope, send, status: int, headers: list, body: bytes) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = [*headers, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _retry(wait: int) -> list[tuple[bytes, bytes]]:
    return [(b"retry-after", str(wait).encode())]


def _locked_message(wait: int) -> str:
    return f"too many wrong keys from this address; retry in {wait} s"


def _wants_html(scope, headers: dict[str, str]) -> bool:
    """A browser navigating to a page (not a script, not Gradio's fetches): show the login form."""
    return scope["type"] == "http" and scope["method"] == "GET" and "text/html" in headers.get("accept", "")
