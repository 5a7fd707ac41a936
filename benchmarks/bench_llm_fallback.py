"""How long the LLM path takes to fall back to the extractive answer when the LLM server misbehaves.

    python benchmarks/bench_llm_fallback.py [--timeout 1.5] [--retries 2] [--repeat 3]

The tests check that each failure gives the extractive answer with the right notice; this measures the
time, which the tests must not assert on a shared machine. Three loopback servers: nothing listening
(connection refused), one that accepts and never answers, and one that streams a word every 0.4 s for
20 s. The time is the LLM part alone (retrieval excluded), median and max over --repeat calls.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from assistant.answer.extractive import compose
from assistant.service import Assistant
from assistant.settings import Settings

QUESTION = "Why is VLLM_BATCH_INVARIANT=1 not batch-invariant for my AWQ model on an A100 (SM80)?"


class Misbehaving(BaseHTTPRequestHandler):
    """`hang`: read the request, never answer. `drip`: a chat-completion stream of 50 words, 0.4 s apart."""

    mode = "hang"
    release = threading.Event()

    def log_message(self, *_args) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.mode == "hang":
            self.release.wait(120)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for i in range(50):
                chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                         "choices": [{"index": 0, "delta": {"content": f"w{i} "}, "finish_reason": None}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                if self.release.wait(0.4):
                    return
        except (BrokenPipeError, ConnectionResetError):
            pass


def serve(mode: str) -> ThreadingHTTPServer:
    handler = type(f"Misbehaving_{mode}", (Misbehaving,), {"mode": mode})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=1.5, help="ASSISTANT_LLM_TIMEOUT for every case")
    parser.add_argument("--retries", type=int, default=2, help="ASSISTANT_LLM_MAX_RETRIES for every case")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    hang, drip = serve("hang"), serve("drip")
    cases = {
        "server down (connection refused)": dead_url(),
        "server accepts, never answers": f"http://127.0.0.1:{hang.server_address[1]}/v1",
        "stream stalls (a word every 0.4 s)": f"http://127.0.0.1:{drip.server_address[1]}/v1",
    }
    with tempfile.TemporaryDirectory() as tmp:
        base = Assistant(Settings(index_dir=Path(tmp)))
        base.ensure_index()
        base.warm_up()
        query, hits = base.retrieve(QUESTION)
        fallback = compose(query, hits, base.settings.min_confidence)
        print(f"llm_timeout={args.timeout:g} s, llm_max_retries={args.retries}, {args.repeat} calls each\n")
        print("| case | notice | median s | max s |\n|---|---|---|---|")
        for name, url in cases.items():
            settings = base.settings.with_overrides(
                answer_backend="openai", llm_base_url=url, llm_model="m",
                llm_timeout=args.timeout, llm_max_retries=args.retries,
            )  # fmt: skip
            assistant = Assistant(settings, embedder=base.embedder, store=base.store)
            assistant.warm_up()
            seconds, notice = [], ""
            for _ in range(args.repeat):
                t = time.perf_counter()
                answer = assistant.writer.write(query, hits, fallback)
                seconds.append(time.perf_counter() - t)
                notice = (answer.notice or "none").split(";")[0]
            print(f"| {name} | {notice} | {statistics.median(seconds):.2f} | {max(seconds):.2f} |")
    Misbehaving.release.set()
    hang.shutdown()
    drip.shutdown()


if __name__ == "__main__":
    main()
