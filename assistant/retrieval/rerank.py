"""The reranking stage's logic (pure): the request to a Jina/Cohere-style `/rerank` API, checking its answer,
and the new order.

vLLM's rerank API (`vllm serve BAAI/bge-reranker-v2-m3`; routes `/rerank`, `/v1/rerank`, `/v2/rerank`) takes
`{"model", "query", "documents": [...], "top_n"}` and answers `{"results": [{"index", "relevance_score",
"document"}, ...]}`, best first. Every candidate sent must come back scored, or the answer is not used: a
partial ranking cannot be merged with the fused one honestly.

The rerank score only orders. Whether to answer is still decided by each hit's evidence score
(`retrieval/evidence.py`, calibrated in eval/calibration.md), which is about the chunk and the question, not
about rank: a reranked first hit below the bar does not answer, and the next one that clears it does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from assistant.models import Hit, RerankOutcome, RerankStatus

# The text of a candidate sent for scoring: cross-encoders read ~512 tokens; more only costs time.
DOCUMENT_CHARS = 2000

NOTICES: dict[RerankStatus, str] = {
    "timeout": "the reranker did not answer within {seconds:g} s; sources are in retrieval order",
    "unreachable": "the reranker could not be reached; sources are in retrieval order",
    "http_error": "the reranker answered HTTP {detail}; sources are in retrieval order",
    "malformed": "the reranker's answer could not be read ({detail}); sources are in retrieval order",
    "incomplete": "the reranker scored {detail}; sources are in retrieval order",
}


class BadRerankResponse(ValueError):
    """The rerank server answered 200 with something that is not a full ranking of what was sent."""

    def __init__(self, status: RerankStatus, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


def document_text(hit: Hit) -> str:
    """What the cross-encoder reads of a candidate: its title and the text the embedding model sees."""
    chunk = hit.chunk
    text = chunk.dense_text if chunk.dense_text.startswith(chunk.title) else f"{chunk.title}\n{chunk.dense_text}"
    return text[:DOCUMENT_CHARS]


def build_request(model: str, query: str, hits: Sequence[Hit]) -> dict[str, Any]:
    """The request body: every candidate is asked for (`top_n` = their number), so each gets a score."""
    return {"model": model, "query": query, "documents": [document_text(h) for h in hits], "top_n": len(hits)}


def parse_scores(payload: object, n: int) -> list[float]:
    """One relevance score per document sent, in the order sent; `BadRerankResponse` when the answer is not that."""
    if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
        raise BadRerankResponse("malformed", "no results list")
    results = payload["results"]
    if len(results) != n:
        raise BadRerankResponse("incomplete", f"{len(results)} of the {n} candidates sent")
    scores: dict[int, float] = {}
    for item in results:
        if not isinstance(item, dict):
            raise BadRerankResponse("malformed", "a result is not an object")
        index, score = item.get("index"), item.get("relevance_score")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise BadRerankResponse("malformed", f"result index {index!r} is not one of 0..{n - 1}")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise BadRerankResponse("malformed", f"relevance_score {score!r} is not a number")
        if index in scores:
            raise BadRerankResponse("incomplete", f"index {index} twice")
        scores[index] = float(score)
    return [scores[i] for i in range(n)]


def reorder(hits: Sequence[Hit], scores: Sequence[float]) -> list[Hit]:
    """The hits best score first, each carrying its score; ties keep the fused order."""
    order = sorted(range(len(hits)), key=lambda i: -scores[i])  # sorted() is stable: ties stay in fused order
    return [replace(hits[i], rerank=scores[i]) for i in order]


def fallback(status: RerankStatus, seconds: float, detail: str = "", timeout: float = 0.0) -> RerankOutcome:
    """The outcome of a rerank call whose answer is not used, with the notice the user sees."""
    return RerankOutcome(status, seconds, NOTICES[status].format(seconds=timeout, detail=detail))
