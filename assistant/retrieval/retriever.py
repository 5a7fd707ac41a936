"""Hybrid retrieval: dense (Chroma) and lexical (BM25) candidates, fused by relative score, scored for evidence."""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, replace

import numpy as np

from assistant.index.embedder import Embedder
from assistant.index.lexical import LexicalIndex
from assistant.index.store import ChromaStore
from assistant.index.use_vectors import UseMatrix, load_matrix, use_revision
from assistant.models import Chunk, Hit, Query, RerankOutcome
from assistant.retrieval.evidence import coverage, evidence, known_share
from assistant.retrieval.fusion import channel_weights, ranked, relative_score_fusion
from assistant.retrieval.page_kind import page_kind, pages_reordered, strengthened
from assistant.retrieval.reranker import Reranker
from assistant.retrieval.versions import docs_versions, keeps, wanted_version
from assistant.settings import Settings
from assistant.text.platforms import section_platform, verdict

log = logging.getLogger(__name__)

_REVISION_CHECK_SECONDS = 5.0
_VECTOR_BATCH = 1000  # ids per Chroma read when the snapshot's vectors are loaded


@dataclass(frozen=True)
class Retrieval:
    """The hits for a question, and what the reranking stage did (None when it is off or had nothing to do)."""

    hits: list[Hit]
    rerank: RerankOutcome | None = None


class Retriever:
    def __init__(
        self,
        settings: Settings,
        store: ChromaStore,
        embedder: Embedder,
        reranker: Reranker | None = None,
        use_embedder: Embedder | None = None,
    ):
        """`use_embedder`: the multilingual USE model of the third channel (None: MiniLM and BM25 only)."""
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.reranker = reranker
        self.use_embedder = use_embedder
        # Fusion weights per language and channel; None: fusion.py's (eval/fit_fusion.py sets others to try).
        self.weights: dict[str, dict[str, float]] | None = None
        # The page-kind priors; None: the settings' (eval/fit_kind_priors.py sets {} to read the fused scores alone).
        self.kind_priors: dict[str, float] | None = None
        self._lexical: LexicalIndex | None = None
        self._revision: int | None = None
        self._use_revision = 0
        self._checked_at = 0.0
        self._versions: tuple[LexicalIndex | None, frozenset[str]] = (None, frozenset())
        self._use: tuple[tuple | None, UseMatrix | None] = (None, None)
        self._dense: tuple[tuple | None, dict[str, np.ndarray]] = (None, {})

    def _docs_versions(self, lexical: LexicalIndex) -> frozenset[str]:
        """The docs versions synced into this snapshot of the index (computed once per snapshot)."""
        if self._versions[0] is not lexical:
            self._versions = (lexical, docs_versions(lexical.chunks))
        return self._versions[1]

    @property
    def lexical(self) -> LexicalIndex:
        """The in-memory index, reloaded when the store changed (checked every few seconds)."""
        now = time.monotonic()
        if self._lexical is None or now - self._checked_at > _REVISION_CHECK_SECONDS:
            self._checked_at = now
            revision = self.store.revision()
            if self._lexical is None or revision != self._revision:
                self._lexical = self._load_lexical(revision)
                self._revision = revision
            if self.use_embedder is not None:
                self._use_revision = use_revision(self.store)  # a fill stores vectors without a new revision
        return self._lexical

    def _load_lexical(self, revision: int) -> LexicalIndex:
        path = self.settings.index_dir / f"lexical-{self.settings.collection}.json"
        with contextlib.suppress(OSError):  # caches of earlier versions were pickles: never load them
            path.with_suffix(".pkl").unlink(missing_ok=True)
        chunks = list(self.store.iter_chunks())
        cached = LexicalIndex.load(path, revision, self.store.location, chunks)
        if cached is not None:
            return cached
        index = LexicalIndex(chunks)
        try:
            index.save(path, revision, self.store.location)
        except OSError as exc:  # a read-only index folder costs the next start-up some time, nothing else
            log.warning("lexical cache not written", extra={"error": str(exc)})
        return index

    @property
    def revision(self) -> int | None:
        """The store revision of the snapshot `lexical` holds (None before it is loaded)."""
        return self._revision

    def embedded(self, query: Query) -> Query:
        """`query` with its dense text embedded: the one embedding of the question per model, used by every stage
        (the USE one only while that channel is on)."""
        if query.dense_vector is None:
            query = replace(query, dense_vector=self.embedder.embed([query.dense_text])[0])
        if query.use_vector is None and self._weights(query.lang, True).get("use") and self.use_matrix() is not None:
            # The user's own words: USE reads Chinese, so it needs no glossary rendering.
            query = replace(query, use_vector=self.use_embedder.embed([query.focus_text or query.dense_text])[0])
        return query

    def use_matrix(self) -> UseMatrix | None:
        """The USE vectors of the snapshot being served, when every chunk has one; None while the channel is off
        (not configured, or vectors missing: retrieval then fuses MiniLM and BM25, as without it)."""
        if self.use_embedder is None:
            return None
        _ = self.lexical  # follows the store to its current revision
        key = (self.store.name, self._revision, self._use_revision)
        if self._use[0] != key:
            was = self._use[1]
            matrix = load_matrix(self.store.iter_metadata())
            self._use = (key, matrix)
            if not matrix.complete:
                log.warning(
                    "USE channel off until every chunk has its USE vector (stored in the background once ready);"
                    " answering from MiniLM and BM25",
                    extra={"missing": matrix.missing, "chunks": matrix.missing + len(matrix.ids)},
                )
            elif was is None or not was.complete:
                log.info("USE channel on", extra={"chunks": len(matrix.ids)})
        matrix = self._use[1]
        return matrix if matrix is not None and matrix.complete else None

    def stored_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """The MiniLM vectors of `ids` as stored, from a table of the served snapshot's vectors read once per revision:
        a Chroma read per question cost about 1.9 ms of an answer's 31 (CPU). Ids written after the snapshot are read
        from the store."""
        key = (self.store.name, self.revision)
        if self._dense[0] != key:
            every = list(self.lexical.by_id)
            table: dict[str, np.ndarray] = {}
            for start in range(0, len(every), _VECTOR_BATCH):
                table.update(self.store.vectors(every[start : start + _VECTOR_BATCH]))
            self._dense = (key, table)
        table = self._dense[1]
        found = {cid: table[cid] for cid in ids if cid in table}
        rest = [cid for cid in ids if cid not in table]
        return {**found, **self.store.vectors(rest)} if rest else found

    def _weights(self, lang: str, with_use: bool) -> dict[str, float]:
        """The fusion weights of a question in `lang`; a language whose USE weight is 0 skips that channel."""
        if self.weights is not None:
            return dict(self.weights.get(lang, self.weights["en"]))
        return channel_weights(lang, with_use)

    def _priors(self, lang: str) -> dict[str, float]:
        """The prior of each page kind the fused scores of a question in `lang` are multiplied by ({}: none)."""
        if self.kind_priors is not None:
            return self.kind_priors
        if not self.settings.page_kind_prior:
            return {}
        strength = self.settings.page_kind_prior_strength.get(lang, 1.0)
        return strengthened(self.settings.page_kind_priors, strength)

    def refresh(self) -> None:
        self._checked_at = 0.0

    def retrieve(self, query: Query, k: int) -> Retrieval:
        """The best `k` hits: fused, then (with a reranker) the top `rerank_top_n` applicable ones re-scored by it."""
        if self.reranker is None:
            return Retrieval(self.search(query, k))
        depth = max(k, self.settings.rerank_top_n)
        applicable, elsewhere = self.candidates(query, depth)
        if len(applicable) < 2:  # nothing to order
            return Retrieval((applicable + elsewhere)[:k])
        # The salient text in the user's language: a multilingual cross-encoder needs no English view.
        ordered, outcome = self.reranker.rerank(query.focus_text or query.dense_text, applicable)
        if outcome.fell_back:
            ordered = applicable
        return Retrieval((ordered[:k] + elsewhere)[:k], outcome)

    def search(self, query: Query, k: int) -> list[Hit]:
        """The best `k` hits in fused order (no reranking)."""
        applicable, elsewhere = self.candidates(query, k)
        return (applicable + elsewhere)[:k]

    def candidates(self, query: Query, k: int) -> tuple[list[Hit], list[Hit]]:
        """Up to `k` hits that apply to the user's platform, in fused order, and those for another platform
        (`eval/fit_kind_priors.py` reads every candidate's fused score through it). With the page-kind priors on, the
        docs sections of each group are reordered among the slots they hold (`pages_reordered`); a hit's `score` stays
        its fused score."""
        lexical = self.lexical
        if lexical.n_docs == 0:
            return [], []
        n = self.settings.candidates
        vector = self.embedded(query).dense_vector
        dense_ranked = self.store.query(vector, min(n, lexical.n_docs))
        bm25_all = lexical.scores(query.lexical_tokens)
        lexical_ranked = lexical.top(bm25_all, n)
        cos, bm25 = dict(dense_ranked), dict(lexical_ranked)
        with_use = query.use_vector is not None and bool(self._weights(query.lang, True).get("use"))
        matrix = self.use_matrix() if with_use else None
        use = dict(matrix.nearest(query.use_vector, n)) if matrix is not None else {}
        # Score every candidate on every channel, so fusion compares like with like.
        missing = [cid for cid in {**bm25, **use} if cid not in cos]
        for cid, vec in self.stored_vectors(missing).items():
            cos[cid] = float(vec @ vector)
        for cid in cos:
            if cid not in bm25 and cid in lexical.position:
                bm25[cid] = float(bm25_all[lexical.position[cid]])
        channels = {"dense": cos, "lexical": bm25}
        if matrix is not None:
            use.update(matrix.similarities(query.use_vector, [cid for cid in cos if cid not in use]))
            channels["use"] = use
        # The MiniLM model reads English only: without USE, a Chinese question leans on the lexical side.
        fused = relative_score_fusion(channels, self._weights(query.lang, matrix is not None))
        # A Chinese question is measured on its own words and on its English view (English chunks
        # cannot contain its Chinese words); the better view counts.
        views = [v for v in (query.focus_tokens or query.lexical_tokens, query.english_tokens) if v]
        # A question of stopwords only ("how?") has no view: nothing it says is known or covered.
        known = max((known_share(v, lexical.idf, lambda t: t in lexical.df) for v in views), default=0.0)
        applicable, elsewhere = self._groups(ranked(fused), lexical, query)
        # The elsewhere sections fused above the k-th applicable one (the rest would never be shown).
        shown = len(elsewhere) if len(applicable) < k else sum(p < applicable[k - 1][0] for p, _ in elsewhere)
        groups = [[cid for _, cid in applicable], [cid for _, cid in elsewhere]]
        priors = self._priors(query.lang)
        if priors:  # which kind of page answers, learned (eval/fit_kind_priors.py): pages reordered among pages only
            kinds = {cid: page_kind(lexical.by_id[cid]) for group in groups for cid in group}
            groups = [pages_reordered(group, fused, kinds, priors) for group in groups]
        top3 = {i for i, _ in dense_ranked[:3]} & {i for i, _ in lexical_ranked[:3]}  # the channels agree

        def hit(cid: str) -> Hit:
            terms = lexical.terms(cid)
            cover = max((coverage(v, terms, lexical.idf) for v in views), default=0.0)
            c = cos.get(cid, 0.0)
            agree = cid in top3
            problem = None
            if self.settings.problem_evidence:  # the problem's own words, in the user's language or its English view
                own = [v for v in (query.problem_tokens, query.english_tokens) if v]
                problem = max((coverage(v, terms, lexical.idf) for v in own), default=0.0)
            return Hit(
                chunk=lexical.by_id[cid],
                score=fused[cid],
                confidence=evidence(c, cover, known, agree, problem),
                dense=c,
                use=use.get(cid) if matrix is not None else None,
                lexical=bm25.get(cid, 0.0),
                coverage=cover,
                known=known,
                agree=agree,
                problem=problem,
            )

        return [hit(cid) for cid in groups[0][:k]], [hit(cid) for cid in groups[1][:shown]]

    def _groups(
        self, order: list[str], lexical: LexicalIndex, query: Query
    ) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        """The ids of `order` (with their fused position) that apply to the user's platform, and those for a platform
        other than the default to a user who named none (shown after all that applies); another release's copy of
        the docs, a section for another platform than the user's, and an id newer than our snapshot are dropped."""
        version = wanted_version(query.signals.versions, self._docs_versions(lexical))
        applicable, elsewhere = [], []
        for position, cid in enumerate(order):
            chunk = lexical.by_id.get(cid)
            if chunk is None:  # written after our snapshot; seen on the next refresh
                continue
            if not keeps(chunk, version):  # another release's copy of the docs
                continue
            platform = verdict(_platform(chunk), query.platforms)
            if platform == "contradicts":  # written for another platform than the one the user runs
                continue
            (elsewhere if platform == "unknown" else applicable).append((position, cid))
        return applicable, elsewhere


def _platform(chunk: Chunk) -> str | None:
    """The platform a docs section is written for (None: any, and for every other kind of chunk)."""
    if chunk.kind != "doc":
        return None
    return section_platform(chunk.origin, chunk.data.get("heading_path", ()))
