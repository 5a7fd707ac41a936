"""The systems the eval compares, all over the same index (one Assistant's store, model and BM25).

- full: `Assistant.ask` — query analysis, dense + BM25 fused by relative score fusion, evidence score, abstention,
  and the configured answer backend.
- bm25: plain BM25 over the same lexical index, the raw question tokenized by the index's own
  tokenizer (no salient-line focus, no signal boosting, no Chinese→English glossary).
- dense: what LangChain's default vector-store retriever does (`as_retriever()`, search_type
  "similarity"): embed the raw question with the same model, take Chroma's cosine nearest neighbours.

A plain retriever has no notion of "I don't know", so the baselines answer from whatever ranks
first — the same extractive composer as the full pipeline, with the evidence bar at 0 — and abstain
only when nothing is retrieved. Their answers are therefore comparable in form (same layout, same
[n] citations); what differs is what they retrieve and that they never hold back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from assistant.answer.extractive import compose
from assistant.models import Answer, Hit
from assistant.retrieval.query import analyze
from assistant.service import Assistant, validate_question
from assistant.text.tokenize import tokenize

EVAL_K = 10  # hits kept per query: MRR@10 and nDCG@10 need ten


class System(Protocol):
    name: str

    def answer(self, question: str) -> Answer: ...


@dataclass
class FullPipeline:
    assistant: Assistant
    name: str = "full"

    def answer(self, question: str) -> Answer:
        # k only widens the hit list the metrics see; the answer uses the same top hits as the default k.
        return self.assistant.ask(question, k=EVAL_K)


def _answer_from_ranking(assistant: Assistant, text: str, ranking: list[tuple[str, float]], channel: str) -> Answer:
    """A plain retriever's answer: its ranked chunks as hits, composed with the evidence bar at 0."""
    chunks = assistant.retriever.lexical.by_id  # ids to chunks, as a store returns documents
    hits = [Hit(chunk=chunks[cid], score=score, confidence=1.0, **{channel: score}) for cid, score in ranking if cid in chunks]
    return compose(analyze(text), hits, min_confidence=0.0)


@dataclass
class BM25Only:
    assistant: Assistant
    name: str = "bm25"

    def answer(self, question: str) -> Answer:
        text = validate_question(question, self.assistant.settings.max_question_chars)
        ranking = self.assistant.retriever.lexical.search(tokenize(text), EVAL_K)
        return _answer_from_ranking(self.assistant, text, ranking, "lexical")


@dataclass
class DenseOnly:
    assistant: Assistant
    name: str = "dense"

    def answer(self, question: str) -> Answer:
        text = validate_question(question, self.assistant.settings.max_question_chars)
        vector = self.assistant.embedder.embed([text])[0]
        ranking = self.assistant.store.query(vector, EVAL_K)
        return _answer_from_ranking(self.assistant, text, ranking, "dense")


SYSTEMS = {"full": FullPipeline, "bm25": BM25Only, "dense": DenseOnly}


def check_system_names(names: list[str]) -> None:
    from assistant.errors import ConfigError

    unknown = [n for n in names if n not in SYSTEMS]
    if unknown or not names:
        raise ConfigError(f"unknown system {(unknown or [''])[0]!r}; choose from: {', '.join(SYSTEMS)}")


def make_systems(assistant: Assistant, names: list[str]) -> list[System]:
    check_system_names(names)
    return [SYSTEMS[n](assistant) for n in names]
