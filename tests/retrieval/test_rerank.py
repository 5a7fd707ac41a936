"""The reranking stage's pure logic: the request, reading the answer, the new order, the fallback notice."""

from __future__ import annotations

import math

import pytest

from assistant.models import Answer, Chunk, Hit, RerankOutcome
from assistant.retrieval.rerank import (
    DOCUMENT_CHARS,
    BadRerankResponse,
    build_request,
    document_text,
    fallback,
    parse_scores,
    reorder,
)
from assistant.service import with_rerank
from assistant.settings import Settings


def _hit(i: int, text: str = "", title: str | None = None) -> Hit:
    title = title or f"Section {i}"
    chunk = Chunk(id=f"c{i}", kind="doc", title=title, source=f"docs/x.md#s{i}", origin="docs/x.md",
                  dense_text=text or f"{title}\nbody {i}", lexical_text="")  # fmt: skip
    return Hit(chunk=chunk, score=1.0 - i / 10, confidence=0.5)


def _results(scores: list[float]) -> dict:
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return {"id": "r", "model": "m", "usage": {"total_tokens": 1},
            "results": [{"index": i, "document": {"text": "t"}, "relevance_score": scores[i]} for i in order]}  # fmt: skip


def test_request_asks_for_every_candidate_in_the_order_given():
    hits = [_hit(0), _hit(1), _hit(2)]
    body = build_request("BAAI/bge-reranker-v2-m3", "why OOM", hits)
    assert body == {
        "model": "BAAI/bge-reranker-v2-m3",
        "query": "why OOM",
        "documents": ["Section 0\nbody 0", "Section 1\nbody 1", "Section 2\nbody 2"],
        "top_n": 3,
    }


def test_document_text_has_the_title_once_and_is_bounded():
    assert document_text(_hit(0, text="plain body", title="T")) == "T\nplain body"
    assert document_text(_hit(0, text="T\nbody", title="T")) == "T\nbody"
    assert len(document_text(_hit(0, text="x" * 10_000))) == DOCUMENT_CHARS


def test_scores_come_back_in_the_order_sent_whatever_order_the_server_ranks_them():
    assert parse_scores(_results([0.1, 0.9, 0.5]), 3) == [0.1, 0.9, 0.5]


@pytest.mark.parametrize(
    ("payload", "status", "says"),
    [
        ("<html>", "malformed", "no results list"),
        ({"data": []}, "malformed", "no results list"),
        ({"results": "x"}, "malformed", "no results list"),
        ({"results": [{"index": 0, "relevance_score": 1.0}]}, "incomplete", "1 of the 2"),
        ({"results": [{"index": 0, "relevance_score": 1.0}] * 3}, "incomplete", "3 of the 2"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": 0, "relevance_score": 0.5}]}, "incomplete",
         "index 0 twice"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": 2, "relevance_score": 0.5}]}, "malformed",
         "index 2"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": "1", "relevance_score": 0.5}]}, "malformed",
         "index '1'"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": True, "relevance_score": 0.5}]}, "malformed",
         "index True"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": 1, "relevance_score": math.nan}]},
         "malformed", "nan"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": 1, "relevance_score": "high"}]},
         "malformed", "'high'"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, [1, 0.5]]}, "malformed", "not an object"),
    ],
)  # fmt: skip
def test_anything_but_a_full_ranking_is_refused(payload, status, says):
    with pytest.raises(BadRerankResponse) as caught:
        parse_scores(payload, 2)
    assert caught.value.status == status
    assert says in caught.value.detail


def test_reorder_puts_the_best_score_first_and_keeps_fused_order_on_ties():
    hits = [_hit(0), _hit(1), _hit(2), _hit(3)]
    out = reorder(hits, [0.2, 0.7, 0.2, 0.9])
    assert [h.chunk.id for h in out] == ["c3", "c1", "c0", "c2"]
    assert [h.rerank for h in out] == [0.9, 0.7, 0.2, 0.2]
    assert [h.confidence for h in out] == [0.5] * 4  # the evidence score is untouched: it still decides abstention
    assert all(h.rerank is None for h in hits)  # the fused hits are not modified


def test_fallback_notices_say_what_happened_and_that_the_order_is_the_fused_one():
    assert fallback("timeout", 2.1, timeout=2.0).notice == (
        "the reranker did not answer within 2 s; sources are in retrieval order"
    )
    assert "HTTP 503" in fallback("http_error", 0.1, "503").notice
    assert "scored 1 of the 2" in fallback("incomplete", 0.1, "1 of the 2 candidates sent").notice
    assert fallback("unreachable", 0.0).fell_back


def test_the_rerank_notice_comes_before_an_llm_notice_and_is_not_repeated():
    answer = Answer(body="b", abstained=False, language="en", citations=(), hits=(), notice="the LLM was slow")
    merged = with_rerank(answer, fallback("unreachable", 0.0))
    assert merged.notice == "the reranker could not be reached; sources are in retrieval order; the LLM was slow"
    ok = with_rerank(answer, RerankOutcome("ok", 0.01))
    assert ok.notice == "the LLM was slow" and ok.rerank.status == "ok"
    assert with_rerank(answer, None) is answer


def test_rerank_is_off_by_default_and_its_url_defaults_to_the_llm_server():
    s = Settings()
    assert s.rerank is False
    assert s.rerank_url == "http://127.0.0.1:8000/v1/rerank"  # one server for all: only llm_base_url is needed
    three = Settings(llm_base_url="http://llm:8000/v1", embedding_base_url="http://emb:8001/v1",
                     rerank_base_url="http://rr:8002/")  # fmt: skip
    assert three.rerank_url == "http://rr:8002/rerank"
    with pytest.raises(ValueError, match="rerank_base_url must start with http"):
        Settings(rerank_base_url="rr:8002")
