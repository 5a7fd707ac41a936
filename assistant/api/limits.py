"""A body size limit on every route (ASGI, before parsing); the keys and rate limits live in `access`."""

from __future__ import annotations

import json


def _error_body(status: int, message: str, kind: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()


class BodyLimitMiddleware:
    """Rejects bodies over `max_bytes` with 413, by Content-Length or by counting a chunked upload."""

    def __init__(self, app, max_bytes: int, paths: tuple[str, ...] = ("/",)):
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
