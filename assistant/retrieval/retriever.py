"""Hybrid retrieval: dense (Chroma) and lexical (BM25) candidates, fused by RRF, scored for evidence."""

from __future__ import annotations

import time

from assistant.index.embedder import Embedder
from assistant.index.lexical import LexicalIndex
from assistant.index.store import ChromaStore
from assistant.models import Hit, Query
from assistant.retrieval.evidence import coverage, evidence
from assistant.retrieval.fusion import ranked, rrf
from assistant.settings import Settings

_REVISION_CHECK_SECONDS = 5.0


class Retriever:
    def __init__(self, settings: Settings, store: ChromaStore, embedder: Embedder):
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self._lexical: LexicalIndex | None = None
        self._revision: int | None = None
        self._checked_at = 0.0

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
        return self._lexical

    def _load_lexical(self, revision: int) -> LexicalIndex:
        path = self.settings.index_dir / f"lexical-{self.settings.collection}.pkl"
        cached = LexicalIndex.load(path, revision, self.store.location)
        if cached is not None:
            return cached
        index = LexicalIndex(self.store.iter_chunks())
        index.save(path, revision, self.store.location)
        return index

    def refresh(self) -> None:
        self._checked_at = 0.0

    def search(self, query: Query, k: int) -> list[Hit]:
        lexical = self.lexical
        if lexical.n_docs == 0:
            return []
        n = self.settings.candidates
        vector = self.embedder.embed([query.dense_text])[0]
        dense = self.store.query(vector, n)
        lex = lexical.search(query.lexical_tokens, n)
        # The embedding model reads English only: a Chinese question leans on the lexical side.
        weights = {"dense": 0.6 if query.lang == "zh" else 1.0, "lexical": 1.0}
        fused = rrf({"dense": [i for i, _ in dense], "lexical": [i for i, _ in lex]}, weights)
        cos = dict(dense)
        bm25 = dict(lex)
        hits = []
        for cid in ranked(fused)[: max(k, 10)]:
            chunk = lexical.by_id.get(cid)
            if chunk is None:  # written after our snapshot; seen on the next refresh
                continue
            cover = coverage(query.lexical_tokens, lexical.terms(cid), lexical.idf)
            c = cos.get(cid, 0.0)
            hits.append(
                Hit(chunk=chunk, score=fused[cid], confidence=evidence(c, cover), dense=c, lexical=bm25.get(cid, 0.0), coverage=cover)
            )
        return hits[:k]
