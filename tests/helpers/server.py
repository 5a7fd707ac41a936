"""Run an ASGI app with uvicorn in a background thread on loopback; free loopback ports."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

import uvicorn


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class LoopbackHTTP:
    """An `http.server` handler served on a free loopback port from a daemon thread, as a context manager: the base
    of the local stand-ins for remote services (GitHub, a package index, an LLM server)."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer):
        self._server = server_class(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class ServerThread:
    def __init__(self, app, host: str = "127.0.0.1", port: int | None = None):
        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning", access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name=f"uvicorn-{self.port}", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 30.0) -> ServerThread:
        self.thread.start()
        from tests.helpers.wait import wait_until

        def started() -> bool:
            if not self.thread.is_alive():
                raise RuntimeError(f"uvicorn did not start on {self.url}")
            return self.server.started

        wait_until(started, timeout, f"uvicorn did not start on {self.url}", 0.02)
        return self

    def wait_ready(self, path: str = "/readyz", timeout: float = 120.0) -> ServerThread:
        """Poll `path` until it answers 200 (the API's readiness: index loaded, model warm)."""
        from tests.helpers.wait import http_ok, wait_until

        wait_until(lambda: http_ok(self.url + path, request_timeout=5), timeout, f"{self.url}{path} is not ready")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
