"""Reciprocal-rank fusion of ranked id lists (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float] | None = None, k: int = 60) -> dict[str, float]:
    """Fused score per id: sum over channels of weight / (k + rank), rank from 1 (Cormack et al., 2009)."""
    scores: dict[str, float] = {}
    for channel, ids in rankings.items():
        w = 1.0 if weights is None else weights.get(channel, 1.0)
        for rank, doc_id in enumerate(ids, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + w / (k + rank)
    return scores


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Ids by descending score, ties broken by id for a stable order."""
    return sorted(scores, key=lambda i: (-scores[i], i))
