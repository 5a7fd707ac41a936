"""Request guards: a body size limit (ASGI, before parsing) and optional bearer API keys."""

from __future__ import annotations

import hmac
import json

from fastapi import Request

from assistant.api.errors import ApiError


def _error_body(status: int, message: str, kind: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()


class BodyLimitMiddleware:
    """Rejects bodies over `max_bytes` with 413, by Content-Length or by counting a chunked upload."""

    def __init__(self, app, max_bytes: int, paths: tuple[str, ...] = ("/v1/", "/slack/")):
        self.app = app
        self.max_bytes = max_bytes
        self.paths = paths

    async def _reject(self, send) -> None:
        body = _error_body(
            413, f"the request body is larger than the limit of {self.max_bytes} bytes", "request_too_large"
        )
        await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith(self.paths):
            return await self.app(scope, receive, send)
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit():
                if int(value) > self.max_bytes:
                    return await self._reject(send)
                return await self.app(scope, receive, send)  # the server enforces the declared length
        # No usable Content-Length (chunked upload): read up to the limit first, then replay the body.
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                return await self._reject(send)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def bearer_guard(api_keys: list[str]):
    """A FastAPI dependency accepting `Authorization: Bearer <key>` for one of `api_keys` (open when empty)."""
    keys = [k.encode() for k in api_keys if k]

    def require_key(request: Request) -> None:
        if not keys:
            return
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise ApiError(401, "missing API key: send 'Authorization: Bearer <key>'", "authentication_error")
        if not any(hmac.compare_digest(token.strip().encode(), k) for k in keys):
            raise ApiError(401, "invalid API key", "authentication_error")

    return require_key
