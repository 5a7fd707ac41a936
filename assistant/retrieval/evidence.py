"""How much a chunk is about the question: the score abstention is decided on (pure).

Two independent views: dense cosine similarity (meaning) and IDF-weighted term coverage (the
question's specific words, identifiers and error strings found in the chunk). A chunk must be
supported by at least one of them strongly; the weights and the cut-off are calibrated on the eval
data by `eval/calibrate.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def coverage(query_tokens: Iterable[str], chunk_terms: frozenset[str], idf: Callable[[str], float]) -> float:
    """IDF-weighted share of the query's distinct informative tokens that the chunk contains."""
    terms = {t for t in query_tokens if len(t) > 1 and not t.isdigit()}
    if not terms:
        return 0.0
    total = sum(idf(t) for t in terms)
    found = sum(idf(t) for t in terms if t in chunk_terms)
    return found / total if total else 0.0


def evidence(cosine: float, cover: float) -> float:
    """One 0..1 score from the two views; either view alone can carry a clear match."""
    dense = min(max((cosine - 0.2) / 0.5, 0.0), 1.0)  # MiniLM: unrelated ~0.0-0.2, on-topic 0.5-0.8
    return max(0.6 * dense + 0.4 * cover, 0.4 * dense + 0.6 * cover)
