"""Does the index answer? One vector query and one lexical query on chunks it holds (cheap, no model).

A vector index whose files were damaged can still count its chunks and list them (that is SQLite), so a
count says nothing: only a query that reads the HNSW files does. Each check takes a few stored chunks
(first, middle, last) and asks for each by its own stored vector and by its own rarest words; the chunk
must come back. A failure is a sentence saying what did not answer, for /readyz and the log.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.index.lexical import LexicalIndex
from assistant.index.store import ChromaStore

SAME_VECTOR = 0.999  # cosine similarity of a stored vector with itself, allowing for float rounding
RARE_TOKENS = 8
LEXICAL_TOP = 10


def _positions(total: int) -> Sequence[int]:
    return sorted({0, total // 2, total - 1}) if total > 0 else []


def check_vectors(store: ChromaStore) -> str | None:
    """None when each sampled chunk is its own nearest neighbour; else what went wrong."""
    try:
        total = store.count()
        for offset in _positions(total):
            sampled = store.vector_at(offset)
            if sampled is None:
                return f"the vector index lists {total} chunks but returns none at position {offset}"
            chunk_id, vector = sampled
            hits = store.query(vector, min(3, total))
            if not hits or hits[0][1] < SAME_VECTOR:
                nearest = f"{hits[0][0]!r} at similarity {hits[0][1]:.3f}" if hits else "nothing"
                return f"the vector index does not find chunk {chunk_id!r} by its own vector (it returned {nearest})"
    except Exception as exc:  # noqa: BLE001 - whatever a damaged index raises is the finding
        return f"the vector index fails a query ({type(exc).__name__}: {exc})"
    return None


def check_lexical(lexical: LexicalIndex) -> str | None:
    """None when each sampled chunk comes back among the first hits for its own rarest words (ties count
    for it: copies of one section, as several releases' docs hold, score alike)."""
    for position in _positions(lexical.n_docs):
        tokens = sorted(set(lexical.tokens[position]), key=lambda t: (-lexical.idf(t), t))[:RARE_TOKENS]
        if not tokens:
            continue  # a chunk without words (a bare code block) cannot be looked up by them
        scores = lexical.scores(tokens)
        own = float(scores[position])
        if own <= 0 or int((scores > own).sum()) >= LEXICAL_TOP:
            return f"the lexical index does not find chunk {lexical.chunks[position].id!r} by its own words"
    return None


def check_index(store: ChromaStore, lexical: LexicalIndex | None = None) -> str | None:
    """The vector check, then the lexical one when a lexical index is given; the first failure."""
    return check_vectors(store) or (check_lexical(lexical) if lexical is not None else None)


