"""The library call every face uses: `Assistant.ask(question, history) -> Answer`.

Cheap to construct; the store, the embedding model and the lexical index load on first use and are
shared by everything the process serves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.answer.extractive import assess_hit, compose
from assistant.answer.generative import GenerativeWriter
from assistant.answer.passages import BlockScorer
from assistant.answer.verify import ReleaseCheck
from assistant.errors import IncompleteIndexError, InputError, SyncError
from assistant.history import check_history
from assistant.index import block_vectors, manifest, use_vectors
from assistant.index.embedder import Embedder, make_embedder
from assistant.index.store import ChromaStore
from assistant.index.use_embedder import UseEmbedder
from assistant.index.vector_cache import CachedEmbedder
from assistant.ingest.markdown_docs import adjacent_part_ids
from assistant.ingest.pipeline import IngestReport, Progress, ingest, plan_ingest
from assistant.models import Answer, Chunk, Hit, Query, RerankOutcome, Signals, Turn
from assistant.release.fetch import release_version
from assistant.release.knowledge import Findings, ReleaseKnowledge
from assistant.release.models import SyncReport
from assistant.release.store import ReleaseStore
from assistant.retrieval.evidence import min_confidence_for
from assistant.retrieval.query import analyze, contextualize
from assistant.retrieval.reranker import Reranker
from assistant.retrieval.retriever import Retrieval, Retriever
from assistant.settings import Settings
from assistant.text.sanitize import clean_text, has_words
from assistant.text.setup import UserSetup, conversation_setup
from assistant.text.signals import extract_signals

if TYPE_CHECKING:
    from assistant.sync.runner import SyncReport as SyncRunReport


@dataclasses.dataclass(frozen=True)
class PreparedIndex:
    """What `Assistant.prepare_index` did: each report is None (or empty) where nothing had to be done."""

    index: IngestReport | None  # the curated corpus: built or finished, None when it already was complete
    releases: list[SyncReport]  # releases whose code facts were read now
    docs: SyncRunReport | None  # the releases' docs sync (None: `release_docs` off, or it failed: see docs_error)
    docs_error: str | None = None


def validate_question(question: object, max_chars: int) -> str:
    """The question, cleaned (valid Unicode, no control characters); an `InputError` saying what to paste
    when it is empty, too long or has nothing to search for (only punctuation, symbols or emoji)."""
    if not isinstance(question, str):
        raise InputError(f"the question must be a string, got {type(question).__name__}")
    text = clean_text(question).strip()
    if not text:
        raise InputError("the question is empty: paste the error message, a traceback or describe the problem")
    if len(text) > max_chars:
        raise InputError(f"the question is {len(text)} characters long; the limit is {max_chars} (keep the key lines)")
    if not has_words(text):
        raise InputError(
            "the question has no words to search for (only punctuation, symbols or emoji): "
            "paste the error message, a traceback or describe the problem"
        )
    return text


def _user_turns(history: list[Turn] | None) -> list[str]:
    """The user's earlier messages, cleaned like the question (they are read for the setup and quoted back)."""
    return [clean_text(t.content) for t in history or [] if t.role == "user" and t.content.strip()]


class Assistant:
    def __init__(self, settings: Settings, embedder: Embedder | None = None, store: ChromaStore | None = None):
        self.settings = settings
        self._embedder = embedder
        self._store = store
        self._blocks = block_vectors.SnapshotBlocks()

    @cached_property
    def embedder(self) -> Embedder:
        return self._embedder or make_embedder(self.settings)

    @cached_property
    def query_embedder(self) -> CachedEmbedder:
        """The embedder for answering: questions and docs paragraphs recur, and their vectors are kept."""
        return CachedEmbedder(self.embedder, self.settings.vector_cache_size)

    @cached_property
    def use_embedder(self) -> UseEmbedder | None:
        """The multilingual model of the third retrieval channel (`use_channel`); loads on first use."""
        return UseEmbedder() if self.settings.use_channel else None

    @cached_property
    def store(self) -> ChromaStore:
        return self._store or ChromaStore(self.settings)

    @cached_property
    def reranker(self) -> Reranker | None:
        """The cross-encoder stage (`rerank` on); its HTTP client is created on the first question."""
        return Reranker(self.settings) if self.settings.rerank else None

    @cached_property
    def retriever(self) -> Retriever:
        use = self.use_embedder
        use_query = CachedEmbedder(use, self.settings.vector_cache_size) if use is not None else None
        return Retriever(self.settings, self.store, self.query_embedder, self.reranker, use_query)

    @cached_property
    def releases(self) -> ReleaseKnowledge:
        """The vLLM releases synced into this index (raise sites, env vars, flags), loaded on first use."""
        return ReleaseKnowledge(ReleaseStore(self.settings.index_dir))

    @cached_property
    def writer(self) -> GenerativeWriter:
        """The LLM answer writer (answer_backend=openai); its client is created on the first call."""
        return GenerativeWriter(self.settings)

    def _generative(self, answer: Answer) -> bool:
        """Whether to ask the LLM: only with the openai backend, and never when retrieval abstained."""
        return self.settings.answer_backend == "openai" and not answer.abstained

    def ingest(self, paths: Sequence[Path], progress: Progress = lambda _m: None) -> IngestReport:
        """Ingest `paths`; the build manifest says "building" until the last write is done, then "complete"."""
        for p in paths:
            if not Path(p).exists():
                raise InputError(f"{p}: no such file or folder")
        manifest.begin(self.store, paths)
        report = ingest(paths, self.store, self.embedder, progress, use_embedder=self.use_embedder)
        manifest.complete(self.store, paths)
        self.retriever.refresh()
        return report

    def index_status(self) -> tuple[str, manifest.BuildManifest | None]:
        """("complete" | "empty" | "incomplete" | "unverified", manifest); "unverified": chunks but no
        manifest (built before manifests, or a first build that was interrupted before it wrote one)."""
        built = manifest.read(self.store)
        if built is not None:
            return ("complete" if built.complete else "incomplete"), built
        return ("empty" if self.store.count() == 0 else "unverified"), None

    def ensure_index(self, progress: Progress = lambda _m: None) -> IngestReport | None:
        """Make the index complete: build it from the curated corpus on first run, finish an interrupted
        build (only what is missing is embedded); None when it already was complete."""
        status, built = self.index_status()
        if status == "complete":
            return self._refresh_corpus(built, progress)
        if status == "incomplete" and built is not None and built.pending:
            missing = [p for p in built.pending if not Path(p).exists()]
            if missing:
                raise IncompleteIndexError(
                    f"the index build was interrupted and its source {missing[0]} is gone: "
                    "ingest the sources again or delete the index to rebuild it"
                )
            progress(f"finishing an interrupted index build ({self.store.count()} chunks so far)")
            return self.ingest([Path(p) for p in built.pending], progress)
        if status == "empty":
            progress(f"building the index from {self.settings.corpus_dir} (first run)")
        else:
            progress(f"checking an index without a completion record ({self.store.count()} chunks) against the corpus")
        return self.ingest([self.settings.corpus_dir], progress)

    def _refresh_corpus(self, built: manifest.BuildManifest | None, progress: Progress) -> IngestReport | None:
        """A complete index built from the curated corpus follows its later edits (a `git pull` that brings new
        entries): only what changed is embedded. None when nothing changed, when the index was built from
        other folders, or when another process holds the sync lock (it is then updating the index itself)."""
        from assistant.sync.lock import sync_lock  # imported here: it loads the database driver

        corpus = str(Path(self.settings.corpus_dir).resolve())
        if built is None or corpus not in built.sources or not Path(corpus).exists():
            return None
        plan = plan_ingest([Path(corpus)], self.store)
        if not plan.changes:
            return None
        try:
            with sync_lock(self.settings):
                progress(
                    f"the curated corpus changed since the index was built ({plan.report.added} new, "
                    f"{plan.report.updated} changed, {plan.report.removed} removed chunks): updating the index"
                )
                # Planned again under the lock, on purpose: another process may have written in between.
                return self.ingest([Path(corpus)], progress)
        except SyncError as exc:  # another process holds the lock, or the database cannot be reached
            progress(f"the curated corpus changed but is not updated now: {exc}")
            return None

    def require_complete_index(self) -> None:
        """For an index the user named: say what is wrong with it instead of building something else into it."""
        status, built = self.index_status()
        where = self.store.location
        if status == "empty":
            raise IncompleteIndexError(
                f"the index at {where} is empty: build it with `python -m assistant ingest PATH... --index-dir DIR`"
            )
        if status == "incomplete":
            pending = ", ".join(built.pending) if built else "?"
            raise IncompleteIndexError(
                f"the index at {where} is incomplete: an ingest of {pending} was interrupted "
                f"({self.store.count()} chunks so far); run that ingest again to finish it"
            )

    def sync(
        self,
        specs: Sequence[str],
        progress: Progress = lambda _m: None,
        force: bool = False,
        as_version: str | None = None,
    ) -> list[SyncReport]:
        """Index vLLM releases from their source (`vllm==X`, a wheel, a source tree, `installed`); known ones are skipped."""
        from assistant.release.sync import sync_release

        store = ReleaseStore(self.settings.index_dir)
        cache, workers = self.settings.wheel_cache_dir, self.settings.release_workers
        return [sync_release(s, store, progress, cache, workers, as_version=as_version, force=force) for s in specs]

    def ensure_releases(self, progress: Progress = lambda _m: None) -> list[SyncReport]:
        """Sync the releases `vllm_releases` lists that the index lacks (the first run downloads them)."""
        store = ReleaseStore(self.settings.index_dir)
        missing = [v for v in self.settings.vllm_releases if not store.has(release_version(v))]
        return self.sync(missing, progress) if missing else []

    def ensure_release_docs(self, progress: Progress = lambda _m: None) -> SyncRunReport | None:
        """Index the documentation of each release `vllm_releases` lists, from its source distribution on the
        package index (read once; later starts find it unchanged). None when `release_docs` is off.

        A release whose docs cannot be fetched (no network) is reported and retried on the next start; the
        assistant still answers from everything else."""
        if not self.settings.release_docs:
            return None
        from assistant.sync.runner import run_sync
        from assistant.sync.sources import release_docs_source

        sources = [s for s in map(release_docs_source, self.settings.vllm_releases) if s is not None]
        if not sources:
            return None
        report = run_sync(self.settings, sources, embedder=lambda: self.embedder, progress=progress)
        self.store.revision()  # follow the pointer to the generation the sync made live
        self.retriever.refresh()
        return report

    def prepare_index(self, progress: Progress = lambda _m: None) -> PreparedIndex:
        """Everything `make run`'s start-up indexes, in its order: the curated corpus (first run), the code facts of
        each release `vllm_releases` lists, then their docs. One method for the server and the eval, so the eval's
        release corpus is the index a user gets (`assistant/eval/release_corpus.py`).

        A release's docs that cannot be synced (another sync holds the index, no network) are reported in
        `docs_error` rather than raised: the server answers from everything else and tries again on its next start."""
        from assistant.errors import SyncError

        index = self.ensure_index(progress=progress)
        releases = self.ensure_releases(progress=progress)
        try:
            docs, error = self.ensure_release_docs(progress=progress), None
        except SyncError as exc:
            docs, error = None, str(exc)
        return PreparedIndex(index, releases, docs, error)

    def warm_up(self) -> None:
        """Load the model and the indexes now rather than on the first question."""
        self.embedder.embed(["warm up"])
        _ = self.retriever.lexical
        self.retriever.stored_vectors([])  # the snapshot's MiniLM vectors, read once
        if self.retriever.use_matrix() is not None:  # else it loads when the background fill completes it
            self.use_embedder.embed(["warm up"])
        self._block_table()
        self.releases.warm_up()
        if self.settings.answer_backend == "openai":
            self.writer.warm_up()

    def retrieve(
        self, question: str, history: list[Turn] | None = None, k: int | None = None
    ) -> tuple[Query, list[Hit]]:
        query, found = self._retrieval(question, history, k)
        return query, found.hits

    def _retrieval(self, question: str, history: list[Turn] | None, k: int | None) -> tuple[Query, Retrieval]:
        text = validate_question(question, self.settings.max_question_chars)
        check_history(history, self.settings)
        own = extract_signals(text)  # read once, passed down: each pass over a long paste costs
        context = contextualize(text, history, own)
        query = self.retriever.embedded(
            analyze(
                context,
                _user_turns(history),
                own if context == text else None,
                chinese_words=self.settings.chinese_prose_words,
            )
        )
        return query, self.retriever.retrieve(query, k or self.settings.top_k)

    def code_findings(self, query: Query, vllm_version: str | None = None) -> Findings:
        """What the indexed releases' source says about the question (empty when none is indexed)."""
        return self.releases.findings(
            query.text,
            query.signals.env_vars,
            query.signals.flags,
            version=vllm_version,
            default_version=self.settings.vllm_version,
        )

    @staticmethod
    def setup(question: str, history: list[Turn] | None = None, signals: Signals | None = None) -> UserSetup:
        """The user's setup over the whole conversation: a follow-up's "an A100" completes the first turn.
        `signals`: the question's, when the caller has them (`Query.signals` of the question itself)."""
        return conversation_setup(clean_text(question), _user_turns(history), signals)  # quoted back: valid Unicode

    def _block_table(self) -> block_vectors.BlockTable:
        """The paragraph vectors stored with the chunks of the snapshot the retriever serves."""
        _ = self.retriever.lexical  # follows the store to its current revision
        return self._blocks.table(self.retriever.revision, lambda: (m for _, m in self.store.iter_metadata()))

    def _scorer(self, query: Query) -> BlockScorer:
        """The question's cosine similarity to each paragraph of a docs section, for choosing the lead passage:
        the question's vector from retrieval, the paragraphs' stored at ingest (embedded here only if not)."""
        query = self.retriever.embedded(query)
        table = self._block_table()
        return lambda blocks: table.similarities(query.dense_vector, blocks, self.query_embedder.embed)

    def missing_block_vectors(self) -> list[tuple[str, list[str]]]:
        """The docs sections stored without their paragraph vectors (see `ensure_block_vectors`)."""
        return block_vectors.missing(self.store)

    def ensure_block_vectors(
        self, progress: Progress = lambda _m: None, todo: list[tuple[str, list[str]]] | None = None
    ) -> int:
        """Store the paragraph vectors an index built by an earlier version lacks (once; later starts find
        none missing); returns how many docs sections got them."""
        done = block_vectors.backfill(self.store, self.embedder.embed, progress, todo=todo)
        if done:
            self.retriever.refresh()
        return done

    def missing_use_vectors(self) -> list[str]:
        """The chunks stored without their USE vector (none to fill when `use_channel` is off)."""
        return use_vectors.missing(self.store) if self.use_embedder is not None else []

    def ensure_use_vectors(self, progress: Progress = lambda _m: None, todo: list[str] | None = None) -> int:
        """Store the USE vectors the index lacks (a sync's docs sections, an index built before the channel);
        the channel joins once every chunk has one. Returns how many chunks got theirs."""
        if self.use_embedder is None:
            return 0
        done = use_vectors.backfill(self.store, self.use_embedder.embed, progress, todo=todo)
        if done:
            self.retriever.refresh()
        return done

    def _neighbours(self, chunk: Chunk) -> list[Chunk]:
        """The indexed parts of a long docs section either side of `chunk`: its fix often opens the next part."""
        by_id = self.retriever.lexical.by_id
        return [by_id[i] for i in adjacent_part_ids(chunk) if i in by_id]

    def prepare(
        self, question: str, history: list[Turn] | None = None, k: int | None = None, vllm_version: str | None = None
    ) -> Prepared:
        """Everything an extractive answer is composed from, read once: retrieval, the user's setup, what the
        release's source says, and the evidence bar for this kind of message (see `Prepared.compose`)."""
        query, found = self._retrieval(question, history, k)
        same = query.text == clean_text(question)  # no borrowed turn, nothing stripped: its signals are the question's
        setup = self.setup(question, history, query.signals if same else None)
        if vllm_version and setup.vllm_version is None:  # the release the user gave beside the question (API, CLI)
            setup = dataclasses.replace(setup, vllm_version=vllm_version)
        findings = self.code_findings(query, setup.vllm_version)  # the release the setup holds: one for the answer
        return Prepared(
            query=query,
            hits=found.hits,
            rerank=found.rerank,
            setup=setup,
            findings=findings,
            check=self.releases.check(findings.release),
            bar=min_confidence_for(query.text, *self.settings.evidence_bars, unnamed=query.vllm_unnamed),
            entry_bar=self.settings.min_confidence_entry_unquoted,
            docs_bar=self.settings.min_confidence_docs,
            scorer=self._scorer(query),
            neighbours=self._neighbours,
        )

    def ask(
        self, question: str, history: list[Turn] | None = None, k: int | None = None, vllm_version: str | None = None
    ) -> Answer:
        p = self.prepare(question, history, k, vllm_version)
        answer = p.compose()
        if not self._generative(answer):
            return with_rerank(answer, p.rerank)
        return with_rerank(self.writer.write(p.query, p.usable(), answer, history, p.check), p.rerank)

    def stream(
        self, question: str, history: list[Turn] | None = None, k: int | None = None, vllm_version: str | None = None
    ) -> Iterator[str | Answer]:
        """Body deltas as the answer is written, then the final (verified) Answer as the last item.

        Extractive answers arrive as one delta; a generative backend yields tokens as they come, and its
        final Answer (verified, or the extractive fallback) may differ from the streamed text. The deltas
        never carry the sources: each face renders them from the final Answer's citations.
        """
        p = self.prepare(question, history, k, vllm_version)
        answer = p.compose()
        if not self._generative(answer):
            yield answer.body
            yield with_rerank(answer, p.rerank)
            return
        for item in self.writer.stream(p.query, p.usable(), answer, history, p.check):
            yield with_rerank(item, p.rerank) if isinstance(item, Answer) else item


@dataclasses.dataclass(frozen=True)
class Prepared:
    """One question read for answering (`Assistant.prepare`): composing it is cheap, so a study of the evidence
    bars composes one retrieval at many bars instead of retrieving again."""

    query: Query
    hits: list[Hit]
    rerank: RerankOutcome | None
    setup: UserSetup
    findings: Findings
    check: ReleaseCheck | None  # None when no release is indexed
    bar: float  # the evidence bar the settings give this kind of message
    entry_bar: float  # the least evidence of a known problem matched by words alone (no error message quoted)
    docs_bar: float  # the least evidence of a docs section that answers
    scorer: BlockScorer
    neighbours: Callable[[Chunk], list[Chunk]]

    def compose(self, bar: float | None = None, docs_bar: float | None = None, entry_bar: float | None = None) -> Answer:
        """The extractive answer at `bar`, `docs_bar` and `entry_bar` (the settings' when None)."""
        bar = self.bar if bar is None else bar
        docs_bar = self.docs_bar if docs_bar is None else docs_bar
        entry_bar = self.entry_bar if entry_bar is None else entry_bar
        return compose(
            self.query, self.hits, bar, self.setup, self.scorer, self.findings, self.check, self.neighbours,
            entry_bar, docs_bar,
        )

    def usable(self) -> list[Hit]:
        """The hits an LLM may use: never a known problem the user's setup rules out."""
        return [h for h in self.hits if not assess_hit(h, self.setup, self.query.text).contradicted]


def with_rerank(answer: Answer, rerank: RerankOutcome | None) -> Answer:
    """The final answer with what the reranker did; a fallback's notice comes first, before any LLM notice."""
    if rerank is None:
        return answer
    notice = "; ".join(n for n in (rerank.notice, answer.notice) if n) or None
    return replace(answer, rerank=rerank, notice=notice)
