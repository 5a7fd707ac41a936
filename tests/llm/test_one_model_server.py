"""The LLM, the embeddings and the reranker served by one process: a single base URL is all the settings need.

The process is `python -m tests.model_server --llm SmolLM2.gguf`: llama.cpp's chat API, MiniLM behind
`/v1/embeddings` and behind vLLM's rerank API. (With vLLM each model is usually its own `vllm serve`; the
three-server layout is the default of tests/retrieval/test_reranker.py and docs/deploy.md.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assistant.service import Assistant
from assistant.settings import REPO_ROOT
from tests.conftest import make_settings
from tests.helpers.corpus import some_entries
from tests.helpers.known import KNOWN, KNOWN_ENTRY
from tests.llm.conftest import _require_llama_cpp, free_port, smollm2_gguf


@pytest.fixture(scope="module")
def one_server(tmp_path_factory) -> Iterator[str]:
    _require_llama_cpp()
    port = free_port()
    log = tmp_path_factory.mktemp("one-server") / "server.log"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "tests.model_server", "--port", str(port), "--llm", str(smollm2_gguf())]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the model server exited: {Path(log).read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the model server did not answer within 120 s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_llm_embeddings_and_reranker_from_one_server(one_server, tmp_path):
    base = f"{one_server}/v1"
    # Only the LLM's URL names the server for the reranker: rerank_base_url is unset on purpose.
    corpus = tmp_path / "corpus"  # some entries, the known one among them: each is embedded over HTTP
    some_entries(corpus / "entries", also=(KNOWN_ENTRY,))
    settings = make_settings(
        tmp_path / "index", corpus_dir=corpus,
        embedding_backend="openai", embedding_model="all-MiniLM-L6-v2", embedding_base_url=base,
        answer_backend="openai", llm_base_url=base, llm_model="smollm2", llm_timeout=120, llm_max_tokens=64,
        rerank=True, rerank_timeout=30,
    )  # fmt: skip
    assert settings.rerank_url == f"{base}/rerank"
    a = Assistant(settings)
    a.ensure_index()  # the corpus embedded through the server's /v1/embeddings
    answer = a.ask(KNOWN)
    assert answer.rerank is not None and answer.rerank.status == "ok"
    assert answer.hits and all(h.rerank is not None for h in answer.hits)
    stats = httpx.get(f"{one_server}/_stats").json()
    assert stats.get("/v1/embeddings", 0) >= 2  # the index build, then the question
    assert stats.get("/v1/rerank") == 1
    assert stats.get("/v1/chat/completions") == 1  # the LLM was asked (its answer verified or replaced)
    assert answer.written_by == "llm" or answer.notice
