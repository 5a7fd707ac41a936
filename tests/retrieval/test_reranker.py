"""The reranking stage through the real retriever and answer path: a real index, the real embedding model, and
a local server speaking vLLM's rerank API with MiniLM's cosine similarity as its relevance score."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from assistant.answer.extractive import assess_hit
from assistant.retrieval.rerank import document_text
from assistant.service import Assistant
from tests.conftest import make_settings
from tests.helpers.server import ServerThread, free_port
from tests.model_server import create_model_app

# The fused first hit is not the one MiniLM finds closest, so reranking visibly changes the order.
QUESTION = "How do I reduce GPU memory usage when serving a large model?"


@pytest.fixture(scope="module")
def model_server() -> Iterator[ServerThread]:
    with ServerThread(create_model_app()) as server:
        yield server


@pytest.fixture
def control(model_server):
    def set_mode(mode: str, delay: float = 0.0) -> None:
        httpx.post(f"{model_server.url}/_control", json={"mode": mode, "delay": delay}).raise_for_status()

    yield set_mode
    set_mode("ok")


def _reranking(docs_assistant: Assistant, url: str, **kw) -> Assistant:
    settings = make_settings(docs_assistant.settings.index_dir, rerank=True, rerank_base_url=url, **kw)
    return Assistant(settings, embedder=docs_assistant.embedder, store=docs_assistant.store)


def test_reranker_orders_the_top_candidates_by_its_own_scores(docs_assistant, model_server, embedder):
    before = httpx.get(f"{model_server.url}/_stats").json().get("/v1/rerank", 0)
    a = _reranking(docs_assistant, f"{model_server.url}/v1", rerank_top_n=12, top_k=5, rerank_timeout=20)
    query, fused = docs_assistant.retrieve(QUESTION)
    answer = a.ask(QUESTION)
    assert answer.rerank is not None and answer.rerank.status == "ok" and answer.notice is None
    assert httpx.get(f"{model_server.url}/_stats").json()["/v1/rerank"] == before + 1
    hits = answer.hits
    assert len(hits) == 5
    # in rerank order, except that an entry the user's setup rules out is listed after the others
    setup = a.setup(QUESTION)
    ruled = [assess_hit(h, setup, QUESTION).contradicted != () for h in hits]
    assert ruled == sorted(ruled)
    scores = [h.rerank for h, out in zip(hits, ruled) if not out]
    assert scores == sorted(scores, reverse=True)
    # Each score is the server's cosine for that very hit: the client mapped results back by index, not position.
    vectors = embedder.embed([query.dense_text, *(document_text(h) for h in hits)])
    for h, v in zip(hits, vectors[1:]):
        assert h.rerank == pytest.approx(float(v @ vectors[0]), abs=1e-4)
    assert [h.chunk.id for h in hits] != [h.chunk.id for h in fused]  # not a pass-through of the fused order
    # Evidence still decides: the answer cites a hit that clears the bar, in the reranked order.
    assert not answer.abstained
    first = next(h for h in hits if h.confidence >= a.settings.min_confidence)
    assert answer.citations[0].id == first.chunk.id


def test_rerank_off_sends_nothing(docs_assistant, model_server):
    before = httpx.get(f"{model_server.url}/_stats").json()
    answer = docs_assistant.ask(QUESTION)
    assert answer.rerank is None and all(h.rerank is None for h in answer.hits)
    assert httpx.get(f"{model_server.url}/_stats").json() == before


@pytest.mark.parametrize(
    ("mode", "status", "says"),
    [
        ("slow", "timeout", "did not answer within 0.5 s"),
        ("error", "http_error", "answered HTTP 500"),
        ("garbage", "malformed", "could not be read (not JSON)"),
        ("wrong_shape", "malformed", "no results list"),
        ("short", "incomplete", "scored 11 of the 12 candidates"),
        ("bad_index", "malformed", "result index 12"),
        ("down", "unreachable", "could not be reached"),
    ],
)
def test_every_failure_keeps_the_fused_order_with_a_notice(docs_assistant, model_server, control, mode, status, says):
    url = f"http://127.0.0.1:{free_port()}" if mode == "down" else model_server.url
    if mode != "down":
        control(mode, delay=3.0)
    # Modes that score for real get time for it on a busy machine; "slow" must hit the 0.5 s deadline.
    a = _reranking(docs_assistant, url, rerank_top_n=12, rerank_timeout=0.5 if mode == "slow" else 20)
    fused = docs_assistant.ask(QUESTION)
    answer = a.ask(QUESTION)
    assert [h.chunk.id for h in answer.hits] == [h.chunk.id for h in fused.hits]
    assert all(h.rerank is None for h in answer.hits)
    assert answer.rerank.status == status
    assert says in answer.notice and "retrieval order" in answer.notice
    assert answer.body == fused.body and answer.citations == fused.citations
    if mode == "slow":
        assert answer.rerank.seconds < 1.5  # the deadline holds although the server takes 3 s
