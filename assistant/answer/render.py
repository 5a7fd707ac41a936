"""The plain-text rendering of an Answer and the JSON contract (pure).

The CLI, `POST /v1/ask` and the OpenAI-compatible chat route show the same text: the body followed by
a sources footer in the answer's language. The UI and Slack render `Answer.citations` their own way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.answer.text import LABELS
from assistant.models import Answer, Citation, Hit, Lang


def sources_footer(citations: Sequence[Citation], lang: Lang) -> str:
    """`Sources:` (or `来源:`) and one `[n] Title — source` line per citation; empty without citations."""
    if not citations:
        return ""
    return "\n".join([f"{LABELS[lang]['sources']}:"] + [f"[{c.n}] {c.title} — {c.source}" for c in citations])


def plain_text(answer: Answer) -> str:
    """What a user reads in a terminal or an API client: the body, then its sources footer."""
    footer = sources_footer(answer.citations, answer.language)
    return f"{answer.body}\n\n{footer}" if footer else answer.body


def _hit_json(h: Hit) -> dict[str, Any]:
    out = {"id": h.chunk.id, "title": h.chunk.title, "source": h.chunk.source, "score": round(h.score, 4)}
    if h.rerank is not None:  # the order came from the reranker
        out["rerank_score"] = round(h.rerank, 4)
    return out


def answer_json(answer: Answer) -> dict[str, Any]:
    """The stable JSON contract shared by `ask --json` and `POST /v1/ask` (documented in the README)."""
    out: dict[str, Any] = {
        "answer": plain_text(answer),
        "abstained": answer.abstained,
        "language": answer.language,
        "citations": [{"id": c.id, "title": c.title, "source": c.source} for c in answer.citations],
        "hits": [_hit_json(h) for h in answer.hits],
    }
    if answer.notice:
        out["notice"] = answer.notice
    return out
