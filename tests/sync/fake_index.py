"""A local HTTP server standing in for a package index's simple API (PEP 691 JSON and PEP 503 HTML) and its files.

`index.add("vllm-0.0.1.tar.gz", blob)` lists a file under /simple/vllm/ and serves it under /files/;
`Settings(package_index_url=index.url)` points the assistant at it.
"""

from __future__ import annotations

import hashlib
import json
from http.server import BaseHTTPRequestHandler

from tests.helpers.server import LoopbackHTTP


class FakeIndex(LoopbackHTTP):
    def __init__(self, html: bool = False):
        self.html = html  # serve the PEP 503 HTML page instead of PEP 691 JSON
        self.files: dict[str, bytes] = {}
        self.wrong_hash: set[str] = set()  # files listed with a SHA-256 that is not theirs
        self.requests: list[str] = []
        super().__init__(self._handler())

    @property
    def url(self) -> str:
        return self.root + "/simple"

    def add(self, name: str, blob: bytes) -> None:
        self.files[name] = blob

    def _sha(self, name: str) -> str:
        digest = hashlib.sha256(self.files[name]).hexdigest()
        return "0" * 64 if name in self.wrong_hash else digest

    def _page(self) -> tuple[str, bytes]:
        if self.html:
            links = "".join(f'<a href="../../files/{n}#sha256={self._sha(n)}">{n}</a><br/>' for n in self.files)
            return "text/html", f"<!DOCTYPE html><html><body>{links}</body></html>".encode()
        files = [{"filename": n, "url": f"../../files/{n}", "hashes": {"sha256": self._sha(n)}} for n in self.files]
        body = {"meta": {"api-version": "1.1"}, "name": "vllm", "files": files}
        return "application/vnd.pypi.simple.v1+json", json.dumps(body).encode()

    def _handler(self):
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def do_GET(self) -> None:
                index.requests.append(self.path)
                if self.path == "/simple/vllm/":
                    kind, body = index._page()
                    self._send(200, kind, body)
                elif self.path.startswith("/files/") and self.path[7:] in index.files:
                    self._send(200, "application/octet-stream", index.files[self.path[7:]])
                else:
                    self._send(404, "text/plain", b"not found")

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
