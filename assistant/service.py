"""The library call every face uses: `Assistant.ask(question, history) -> Answer`.

Cheap to construct; the store, the embedding model and the lexical index load on first use and are
shared by everything the process serves.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path

from assistant.answer.extractive import compose
from assistant.answer.generative import GenerativeWriter
from assistant.errors import InputError
from assistant.index.embedder import Embedder, make_embedder
from assistant.index.store import ChromaStore
from assistant.ingest.pipeline import IngestReport, Progress, ingest
from assistant.models import Answer, Hit, Query, Turn
from assistant.retrieval.query import analyze, contextualize
from assistant.retrieval.retriever import Retriever
from assistant.settings import Settings


def validate_question(question: object, max_chars: int) -> str:
    if not isinstance(question, str):
        raise InputError(f"the question must be a string, got {type(question).__name__}")
    text = question.strip()
    if not text:
        raise InputError("the question is empty: paste an error message, a traceback or describe the problem")
    if len(text) > max_chars:
        raise InputError(f"the question is {len(text)} characters long; the limit is {max_chars} (keep the key lines)")
    return text


class Assistant:
    def __init__(self, settings: Settings, embedder: Embedder | None = None, store: ChromaStore | None = None):
        self.settings = settings
        self._embedder = embedder
        self._store = store

    @cached_property
    def embedder(self) -> Embedder:
        return self._embedder or make_embedder(self.settings)

    @cached_property
    def store(self) -> ChromaStore:
        return self._store or ChromaStore(self.settings)

    @cached_property
    def retriever(self) -> Retriever:
        return Retriever(self.settings, self.store, self.embedder)

    @cached_property
    def writer(self) -> GenerativeWriter:
        """The LLM answer writer (answer_backend=openai); its client is created on the first call."""
        return GenerativeWriter(self.settings)

    def _generative(self, answer: Answer) -> bool:
        """Whether to ask the LLM: only with the openai backend, and never when retrieval abstained."""
        return self.settings.answer_backend == "openai" and not answer.abstained

    def ingest(self, paths: Sequence[Path], progress: Progress = lambda _m: None) -> IngestReport:
        report = ingest(paths, self.store, self.embedder, progress)
        self.retriever.refresh()
        return report

    def ensure_index(self, progress: Progress = lambda _m: None) -> IngestReport | None:
        """Build the index from the curated corpus when it is empty; None when there was nothing to do."""
        if self.store.count() > 0:
            return None
        progress(f"building the index from {self.settings.corpus_dir} (first run)")
        return self.ingest([self.settings.corpus_dir], progress)

    def warm_up(self) -> None:
        """Load the model and the indexes now rather than on the first question."""
        self.embedder.embed(["warm up"])
        _ = self.retriever.lexical
        if self.settings.answer_backend == "openai":
            self.writer.warm_up()

    def retrieve(self, question: str, history: list[Turn] | None = None, k: int | None = None) -> tuple[Query, list[Hit]]:
        text = validate_question(question, self.settings.max_question_chars)
        query = analyze(contextualize(text, history))
        return query, self.retriever.search(query, k or self.settings.top_k)

    def ask(self, question: str, history: list[Turn] | None = None, k: int | None = None) -> Answer:
        query, hits = self.retrieve(question, history, k)
        answer = compose(query, hits, self.settings.min_confidence)
        if not self._generative(answer):
            return answer
        return self.writer.write(query, hits, answer, history)

    def stream(self, question: str, history: list[Turn] | None = None, k: int | None = None) -> Iterator[str | Answer]:
        """Text deltas as the answer is written, then the final (verified) Answer as the last item.

        Extractive answers arrive as one delta; a generative backend yields tokens as they come, and its
        final Answer (verified, or the extractive fallback) may differ from the streamed text.
        """
        query, hits = self.retrieve(question, history, k)
        answer = compose(query, hits, self.settings.min_confidence)
        if not self._generative(answer):
            yield answer.text
            yield answer
            return
        yield from self.writer.stream(query, hits, answer, history)
