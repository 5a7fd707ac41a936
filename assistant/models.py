"""Typed values passed between the assistant's subsystems."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from assistant.entry import Entry

Lang = Literal["en", "zh"]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


@dataclass(frozen=True)
class Chunk:
    """One indexed unit: a curated entry, a Q&A from a page, a documentation section part, or a GitHub issue's
    problem or resolution."""

    id: str
    kind: Literal["entry", "qa", "doc", "issue"]
    title: str
    source: str  # citable: a URL or a repo-relative path, plus '#section' for documents
    origin: str  # the file it was read from, for incremental sync
    dense_text: str  # what the embedding model sees (English where there is English)
    lexical_text: str  # what BM25 sees (every language the chunk has)
    lang: Lang = "en"
    data: dict[str, Any] = field(default_factory=dict)  # the structured entry / section fields

    @cached_property
    def entry(self) -> Entry | None:
        """A curated entry's fields as the typed `Entry` (None for other kinds): read it, not `data`."""
        if self.kind != "entry":
            return None
        from assistant.entry import Entry  # the entry schema reads text analysis, which reads this module

        return Entry.model_validate(self.data)

    def full_text(self) -> str:
        """Everything the chunk states, in every language it has: what a citation of it is checked against."""
        return "\n".join([self.title, self.source, self.dense_text, self.lexical_text, *_strings(self.data)])

    @property
    def content_hash(self) -> str:
        payload = json.dumps(
            [self.kind, self.title, self.source, self.dense_text, self.lexical_text, self.lang, self.data],
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Signals:
    """What a pasted log or question says, pulled out by query analysis."""

    exceptions: tuple[str, ...] = ()  # exception type names, e.g. RuntimeError
    messages: tuple[str, ...] = ()  # error lines, e.g. "RuntimeError: not home_path.empty()"
    env_vars: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()  # code identifiers: CamelCase, snake_case, dotted names

    def strong_terms(self) -> tuple[str, ...]:
        """Signals specific enough that sharing one with a chunk is evidence of a match."""
        return tuple(dict.fromkeys(self.env_vars + self.flags + self.identifiers + self.exceptions + self.models))


@dataclass(frozen=True)
class Query:
    """An analysed question: the text, its language, its signals and the channel inputs."""

    text: str
    lang: Lang
    signals: Signals
    dense_text: str
    lexical_tokens: tuple[str, ...]
    focus_tokens: tuple[str, ...] = ()  # tokens of the salient part only: what evidence is measured on
    english_tokens: tuple[str, ...] = ()  # tokens of the English view (a Chinese question's renderings)
    platforms: frozenset[str] = frozenset()  # the hardware platforms the user names (empty: the default, CUDA)
    # neither this message nor the user's earlier turns show vLLM (`software.names_vllm`): held to a higher bar
    vllm_unnamed: bool = False
    focus_text: str = ""  # the salient part in the user's own language: what a (multilingual) reranker reads
    problem_tokens: tuple[str, ...] = ()  # what went wrong: the problem part without command lines and setup terms
    # `dense_text` embedded once (the retriever's model), shared by retrieval and the lead-passage choice
    dense_vector: Any = field(default=None, compare=False, repr=False)
    # `focus_text` embedded once by the multilingual USE model (None while that channel is off or not ready)
    use_vector: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with its fused score and the evidence behind it."""

    chunk: Chunk
    score: float  # fused rank score, for ordering
    confidence: float  # calibrated-ish 0..1 evidence that the chunk is about the question
    dense: float = 0.0  # cosine similarity
    use: float | None = None  # cosine similarity under the multilingual USE model (None: channel off)
    lexical: float = 0.0  # BM25 score
    coverage: float = 0.0  # IDF-weighted share of the query's terms the chunk contains
    known: float = 0.0  # IDF-weighted share of the query's terms the corpus knows at all
    agree: bool = False  # both channels rank the chunk in their top 3
    rerank: float | None = None  # the cross-encoder's relevance score, when the reranker ordered this hit
    # IDF-weighted share of the problem's own tokens (`Query.problem_tokens`) the chunk holds; None unless
    # `Settings.problem_evidence` is on
    problem: float | None = None

    @property
    def features(self) -> tuple[float, ...]:
        """The evidence model's inputs, in `evidence()` order (the problem share last, when measured)."""
        base = (self.dense, self.coverage, self.known, float(self.agree))
        return base if self.problem is None else (*base, self.problem)


RerankStatus = Literal["ok", "timeout", "unreachable", "http_error", "malformed", "incomplete"]


@dataclass(frozen=True)
class RerankOutcome:
    """What the reranking stage did for one question: "ok", or why the fused order was kept (and the notice)."""

    status: RerankStatus
    seconds: float
    notice: str | None = None  # set whenever status is not "ok"

    @property
    def fell_back(self) -> bool:
        return self.status != "ok"


@dataclass(frozen=True)
class Citation:
    """Source `[n]` of an answer: the chunk it points to, as a face shows it in its sources list."""

    n: int
    id: str
    title: str
    source: str


@dataclass(frozen=True)
class Answer:
    """What every face shows: the body with its [n] markers, the sources they point to, and the hits.

    The body carries no sources list: each face renders `citations` its own way (a plain-text footer
    for the CLI and the API, links in the UI, a context block in Slack), so no face has to find and
    strip a footer written in some language.
    """

    body: str
    abstained: bool
    language: Lang
    citations: tuple[Citation, ...]
    hits: tuple[Hit, ...]
    notice: str | None = None  # e.g. "the LLM was unreachable; extractive answer shown"
    lead: str = ""  # the part that answers (the answering source's passage), without related reading
    written_by: Literal["extractive", "llm"] = "extractive"  # "llm" only when a generated answer passed verification
    # Abstained by rule, not for want of knowledge: the message instructs the assistant, or is not about vLLM. Not a
    # knowledge gap.
    declined: bool = False
    rerank: RerankOutcome | None = None  # None: reranking is off (or there was nothing to rerank)

    def cited_hit(self, n: int) -> Hit | None:
        """The hit behind citation [n] (its chunk's data: what a face shows about the source)."""
        citation = next((c for c in self.citations if c.n == n), None)
        if citation is None:
            return None
        return next((h for h in self.hits if h.chunk.id == citation.id), None)


@dataclass(frozen=True)
class Switch:
    """A stream item: the generated text streamed so far stops here, and the deltas after it are the extractive
    answer. A face that can redraw drops what it showed; one that cannot (an SSE client) shows `notice`."""

    notice: str


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, for follow-up questions."""

    role: Literal["user", "assistant"]
    content: str
