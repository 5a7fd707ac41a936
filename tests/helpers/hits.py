"""A docs section as retrieval returns it, for tests of the answer step."""

from __future__ import annotations

from assistant.models import Chunk, Hit


def doc_hit(body: str, source: str, title: str, confidence: float, score: float = 1.0) -> Hit:
    """A docs section (one part) with `body`, found at `source` (its id too) with this evidence."""
    origin = source.split("#", 1)[0]
    chunk = Chunk(
        id=source,
        kind="doc",
        title=title,
        source=source,
        origin=origin,
        dense_text=body,
        lexical_text=body,
        data={"body": body},
    )
    return Hit(chunk=chunk, score=score, confidence=confidence)
