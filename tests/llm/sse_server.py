"""An OpenAI-compatible chat server in its own process that streams a planted reply, token by token.

`python tests/llm/sse_server.py --port N --reply-file F` serves `POST /v1/chat/completions`: with
`"stream": true`, real Server-Sent Events (`data: {chat.completion.chunk}` lines, then `data: [DONE]`),
one short token per event (at most 4 characters, cut as a BPE tokenizer would: a word and its space, a
name in pieces), flushed one by one with a small pause, so a client sees the reply as a model writes it.
The reply is read from the file at each request: the test controls what the "model" says. A real model
cannot be made to invent a given flag on cue; this is the protocol with that one thing scripted.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_TOKEN = re.compile(r"\s*[A-Za-z]{1,4}|\s*\d{1,3}|\s*[^\sA-Za-z\d]|\s+")


def tokens(text: str) -> list[str]:
    """`text` cut into short pieces; joined they give it back exactly."""
    out = _TOKEN.findall(text)
    assert "".join(out) == text
    return out


def serve(port: int, reply_file: Path, pause: float) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args) -> None:
            pass

        def do_GET(self) -> None:
            self._json(200, {"object": "list", "data": [{"id": "planted", "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            reply = reply_file.read_text(encoding="utf-8")
            if not body.get("stream"):
                message = {"role": "assistant", "content": reply}
                self._json(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "planted",
                                 "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for token in tokens(reply):
                    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "planted",
                             "choices": [{"index": 0, "delta": {"content": token}, "finish_reason": None}]}  # fmt: skip
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(pause)
                end = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "planted",
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading: it abandoned the answer, as it may
            self.close_connection = True

        def _json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--reply-file", type=Path, required=True)
    parser.add_argument("--pause", type=float, default=0.002, help="seconds between tokens")
    args = parser.parse_args()
    serve(args.port, args.reply_file, args.pause)
