"""The reranker over real HTTP: `POST /v1/ask` through the shipped app, a local MiniLM server speaking vLLM's
rerank API, and `/metrics` counting every outcome."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from assistant.answer.extractive import assess_hit
from assistant.service import Assistant
from assistant.settings import Settings
from tests.helpers.server import ServerThread, free_port
from tests.model_server import create_model_app

QUESTION = "CUDA out of memory while loading a 70B model on two GPUs"


@pytest.fixture(scope="module")
def model_server() -> Iterator[ServerThread]:
    with ServerThread(create_model_app()) as server:
        yield server


def _metric(text: str, outcome: str) -> float:
    m = re.search(rf'^assistant_rerank_total\{{outcome="{outcome}"\}} (\S+)$', text, re.MULTILINE)
    return float(m.group(1)) if m else 0.0


@pytest.fixture
def serve_reranking(api_assistant: Assistant, api_settings: Settings, serve_api, model_server):
    """The app with reranking on, sharing the loaded model and index of the API tests."""

    def serve(url: str, mode: str = "ok", timeout: float = 20.0):
        server_mode = "ok" if mode == "down" else mode  # "down": the URL points at a closed port
        httpx.post(f"{model_server.url}/_control", json={"mode": server_mode, "delay": 3.0}).raise_for_status()
        settings = api_settings.with_overrides(rerank=True, rerank_base_url=url, rerank_timeout=timeout, rerank_top_n=5)
        a = Assistant(settings, embedder=api_assistant.embedder, store=api_assistant.store)
        return serve_api(a, settings)

    yield serve
    httpx.post(f"{model_server.url}/_control", json={"mode": "ok"}).raise_for_status()


def test_reranked_answer_shows_its_scores_and_counts_ok(client, serve_reranking, model_server, api_assistant):
    fused = client.post("/v1/ask", json={"question": QUESTION}).json()
    assert all("rerank_score" not in h for h in fused["hits"])
    with serve_reranking(model_server.url) as (_app, c):
        body = c.post("/v1/ask", json={"question": QUESTION}).json()
        metrics = c.get("/metrics").text
    # In rerank order, except that an entry the user's setup rules out is listed after the others (the answer's order)
    setup = api_assistant.setup(QUESTION)
    ruled = {h.chunk.id for h in api_assistant.retrieve(QUESTION, k=20)[1] if assess_hit(h, setup, QUESTION).contradicted}
    kept = [h["rerank_score"] for h in body["hits"] if h["id"] not in ruled]
    assert kept == sorted(kept, reverse=True) and len(body["hits"]) == len(fused["hits"])
    flags = [h["id"] in ruled for h in body["hits"]]
    assert flags == sorted(flags)  # every ruled-out entry after every other hit
    assert all(isinstance(h["rerank_score"], float) for h in body["hits"])
    assert "notice" not in body
    assert _metric(metrics, "ok") == 1.0
    assert re.search(r"^assistant_rerank_duration_seconds_count 1\.0$", metrics, re.MULTILINE)


@pytest.mark.parametrize(
    ("mode", "outcome", "says"),
    [
        ("down", "unreachable", "could not be reached"),
        ("slow", "timeout", "did not answer within 0.5 s"),
        ("garbage", "malformed", "could not be read"),
        ("short", "incomplete", "scored 4 of the 5"),
    ],
)
def test_a_failing_reranker_leaves_the_fused_order_a_notice_and_a_metric(
    client, serve_reranking, model_server, mode, outcome, says
):
    fused = client.post("/v1/ask", json={"question": QUESTION}).json()
    url = f"http://127.0.0.1:{free_port()}" if mode == "down" else model_server.url
    with serve_reranking(url, mode, timeout=0.5 if mode == "slow" else 20.0) as (_app, c):
        r = c.post("/v1/ask", json={"question": QUESTION})
        metrics = c.get("/metrics").text
    assert r.status_code == 200
    body = r.json()
    assert [h["id"] for h in body["hits"]] == [h["id"] for h in fused["hits"]]
    assert body["answer"] == fused["answer"] and body["abstained"] == fused["abstained"]
    assert says in body["notice"] and "retrieval order" in body["notice"]
    assert _metric(metrics, outcome) == 1.0 and _metric(metrics, "ok") == 0.0


def test_the_reranker_reads_a_chinese_question_in_chinese(serve_reranking, model_server):
    """bge-reranker-v2-m3 is multilingual: it gets the question's salient text, not the English view MiniLM needs."""
    question = "启动 FP8 模型时报错 RuntimeError: not home_path.empty()，怎么解决？"
    with serve_reranking(model_server.url) as (_app, c):
        body = c.post("/v1/ask", json={"question": question}).json()
    sent = httpx.get(f"{model_server.url}/_last").json()
    assert "启动" in sent["query"] and "home_path" in sent["query"]
    assert len(sent["documents"]) == sent["top_n"] == len(body["hits"])
    assert all("rerank_score" in h for h in body["hits"])
