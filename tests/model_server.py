"""A local model server speaking vLLM's rerank and embeddings APIs, with the real MiniLM model behind them.

    python -m tests.model_server --port 8002                  # /rerank, /v1/rerank, /v2/rerank, /v1/embeddings
    python -m tests.model_server --port 8002 --llm FILE.gguf  # and llama.cpp's /v1/chat/completions: one server

No cross-encoder ships inside a registry package (shared/STACK.md), so the relevance score is the cosine
similarity of MiniLM embeddings of the query and each document: a real scoring function, not a canned list.
The protocol is vLLM's (vllm/entrypoints/pooling/score/protocol.py and serving.py): results best first, cut
to `top_n` (0: all), each with `index`, `document.text` and `relevance_score`.

Tests make it misbehave through `POST /_control` ({"mode": "ok" | "slow" | "error" | "garbage" | "wrong_shape"
| "short" | "bad_index", "delay": seconds}); `GET /_stats` counts the requests by path, `GET /_last` is the last rerank request. The same app runs in
a thread (`tests.server.ServerThread`) or as a process of its own (the benchmark, docs/deploy.md).
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from collections import Counter
from contextlib import asynccontextmanager
from pathlib import Path

import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

RERANK_MODEL = "BAAI/bge-reranker-v2-m3"  # the name it answers to: what `vllm serve` would serve
MODES = ("ok", "slow", "error", "garbage", "wrong_shape", "short", "bad_index")


class MiniLM:
    """The packaged MiniLM model, loaded on first use (one lock: encoding is not re-entrant-safe here)."""

    def __init__(self) -> None:
        self._embedder = None
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            if self._embedder is None:
                import torch

                from assistant.index.embedder import SentenceTransformerEmbedder
                from assistant.settings import DEFAULT_EMBEDDING_MODEL

                torch.set_num_threads(1)  # requests are serialized anyway; two spinning threads slow a busy machine
                self._embedder = SentenceTransformerEmbedder(DEFAULT_EMBEDDING_MODEL)
            return self._embedder.embed(texts)


def relevance(model: MiniLM, query: str, documents: list[str]) -> list[float]:
    """The score of each document for the query: cosine similarity of unit MiniLM vectors."""
    vectors = model.embed([query, *documents])
    return [float(v @ vectors[0]) for v in vectors[1:]]


def _error(status: int, message: str) -> JSONResponse:
    # vLLM's ErrorResponse shape
    return JSONResponse({"error": {"message": message, "type": "BadRequestError", "code": status}}, status)


def create_model_app(
    rerank_model: str = RERANK_MODEL, embedding_model: str = "all-MiniLM-L6-v2", llm_gguf: Path | None = None
) -> FastAPI:
    model = MiniLM()

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        await asyncio.to_thread(model.embed, ["warm up"])  # load the model before the first request, as vLLM does
        yield

    app = FastAPI(title="local model server (MiniLM rerank + embeddings)", lifespan=lifespan)
    state = {"mode": "ok", "delay": 0.0}
    stats: Counter[str] = Counter()
    app.state.control, app.state.stats, app.state.model = state, stats, model

    @app.middleware("http")
    async def count(request: Request, call_next):
        if not request.url.path.startswith("/_"):
            stats[request.url.path] += 1
        return await call_next(request)

    @app.post("/_control")
    async def control(body: dict) -> dict:
        if body.get("mode", "ok") not in MODES:
            return _error(400, f"mode must be one of {MODES}")
        state["mode"] = body.get("mode", "ok")
        state["delay"] = float(body.get("delay", 0.0))
        return state

    @app.get("/_stats")
    async def get_stats() -> dict:
        return dict(stats)

    @app.get("/_last")
    async def last() -> dict:
        return state.get("last_rerank", {})

    @app.get("/health")
    async def health() -> PlainTextResponse:
        return PlainTextResponse("")

    async def rerank(request: Request):
        body = await request.json()
        state["last_rerank"] = body
        if body.get("model") not in (None, rerank_model):
            return _error(404, f"The model `{body.get('model')}` does not exist.")
        query, documents = body.get("query"), body.get("documents")
        if (
            not isinstance(query, str)
            or not isinstance(documents, list)
            or not all(isinstance(d, str) for d in documents)
        ):
            return _error(400, "query must be a string and documents a list of strings")
        mode = state["mode"]
        if mode == "slow":
            await asyncio.sleep(state["delay"])
        if mode == "error":
            return _error(500, "the engine died")
        if mode == "garbage":
            return PlainTextResponse("<html>502 Bad Gateway</html>", 200)
        if mode == "wrong_shape":
            return JSONResponse({"data": [{"index": 0, "score": 1.0}]})
        scores = await asyncio.to_thread(relevance, model, query, documents)
        results = [
            {"index": i, "document": {"text": documents[i]}, "relevance_score": scores[i]}
            for i in sorted(range(len(documents)), key=lambda i: -scores[i])
        ]
        top_n = int(body.get("top_n") or 0) or len(results)
        results = results[:top_n]
        if mode == "short" and results:
            results = results[:-1]
        if mode == "bad_index" and results:
            results[0]["index"] = len(documents)
        tokens = sum(len(d.split()) for d in documents)
        return {"id": f"rerank-{time.time_ns()}", "model": rerank_model, "usage": {"total_tokens": tokens},
                "results": results}  # fmt: skip

    for path in ("/rerank", "/v1/rerank", "/v2/rerank"):
        app.add_api_route(path, rerank, methods=["POST"])

    @app.post("/v1/embeddings")
    async def embeddings(request: Request):
        body = await request.json()
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "input must be a string or a list of strings")
        vectors = await asyncio.to_thread(model.embed, texts)
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        return {"object": "list", "model": body.get("model", embedding_model), "data": data,
                "usage": {"prompt_tokens": 0, "total_tokens": 0}}  # fmt: skip

    if llm_gguf is not None:  # llama.cpp's own OpenAI-compatible app answers everything else (chat, models)
        from llama_cpp.server.app import create_app as create_llama_app
        from llama_cpp.server.settings import Settings as LlamaSettings

        llama = create_llama_app(
            LlamaSettings(model=str(llm_gguf), model_alias="smollm2", n_ctx=4096, n_threads=1, n_threads_batch=1)
        )
        app.mount("/", llama)
    else:

        @app.get("/v1/models")
        async def models() -> dict:
            return {"object": "list", "data": [{"id": rerank_model, "object": "model"}]}

    return app


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Serve MiniLM behind vLLM's rerank and embeddings APIs on loopback.")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8002)
    p.add_argument("--model", default=RERANK_MODEL, help="the rerank model name it answers to")
    p.add_argument("--llm", type=Path, help="a GGUF file: also serve llama.cpp's chat API from this process")
    args = p.parse_args(argv)
    import uvicorn

    uvicorn.run(create_model_app(args.model, llm_gguf=args.llm), host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
