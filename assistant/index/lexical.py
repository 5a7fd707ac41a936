"""The in-memory side of the index: every chunk by id, and BM25 over their lexical tokens.

Rebuilt from the store when the store's revision changes. The chunks' tokens are cached on disk as
JSON keyed by revision, so a restart on an unchanged index tokenizes nothing. JSON, not pickle: loading
the cache can never run code, and a cache that is corrupt, truncated or from another version is
ignored and rebuilt, never an error.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from assistant.models import Chunk
from assistant.text.signals import without_log_chrome
from assistant.text.tokenize import tokenize

log = logging.getLogger(__name__)

CACHE_FORMAT = 5  # bumped whenever tokenization changes: older caches hold other tokens


class LexicalIndex:
    def __init__(self, chunks: Iterable[Chunk], tokens: list[list[str]] | None = None):
        """`tokens`: each chunk's lexical tokens when already known (from the cache), else computed."""
        import bm25s

        self.chunks: list[Chunk] = list(chunks)
        self.by_id: dict[str, Chunk] = {c.id: c for c in self.chunks}
        self.position: dict[str, int] = {c.id: i for i, c in enumerate(self.chunks)}
        corpus = tokens if tokens is not None else [lexical_tokens(c.lexical_text) for c in self.chunks]
        self.tokens = corpus
        self.df: Counter[str] = Counter()
        for toks in corpus:
            self.df.update(set(toks))
        self.n_docs = len(self.chunks)
        self._bm25 = bm25s.BM25()
        if self.chunks:
            self._bm25.index(corpus, show_progress=False)
        self._vocab = self._bm25.vocab_dict if self.chunks else {}

    def idf(self, token: str) -> float:
        """Smoothed IDF; a token the corpus lacks gets the highest value (it is as specific as it gets)."""
        return math.log(1.0 + (self.n_docs + 1) / (self.df.get(token, 0) + 0.5))

    def scores(self, tokens: Iterable[str]) -> np.ndarray:
        """BM25 score of every chunk, in `self.chunks` order."""
        known = [t for t in tokens if t in self._vocab]
        if not known or not self.chunks:
            return np.zeros(len(self.chunks), dtype=np.float32)
        return self._bm25.get_scores(known)

    def search(self, tokens: Iterable[str], n: int) -> list[tuple[str, float]]:
        return self.top(self.scores(tokens), n)

    def top(self, scores: np.ndarray, n: int) -> list[tuple[str, float]]:
        n = min(n, len(scores))
        if n == 0:
            return []
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.chunks[i].id, float(scores[i])) for i in top if scores[i] > 0]

    def terms(self, chunk_id: str) -> frozenset[str]:
        return _terms(self.by_id[chunk_id].lexical_text)

    def save(self, path: Path, revision: int, location: str) -> None:
        """Write the token cache atomically (a crash leaves the old file or the new one, never half)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        blob = {
            "format": CACHE_FORMAT,
            "revision": revision,
            "location": location,
            "ids": [c.id for c in self.chunks],
            "tokens": self.tokens,
        }
        tmp.write_text(json.dumps(blob, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, revision: int, location: str, chunks: list[Chunk]) -> LexicalIndex | None:
        """The index over `chunks` with cached tokens, if the cache matches the store's revision; else None."""
        try:
            blob = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(blob, dict) or blob.get("format") != CACHE_FORMAT:
                return None
            if blob.get("revision") != revision or blob.get("location") != location:
                return None
            ids, tokens = blob["ids"], blob["tokens"]
            if ids != [c.id for c in chunks] or len(tokens) != len(chunks):
                return None
            if not all(isinstance(t, list) and all(isinstance(x, str) for x in t) for t in tokens):
                raise ValueError("tokens are not lists of strings")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError) as exc:
            log.warning("lexical cache unusable; rebuilding it", extra={"cache": path.name, "error": str(exc)[:200]})
            return None
        return cls(chunks, tokens)


def lexical_tokens(text: str) -> list[str]:
    """A chunk's BM25 tokens: its text without log chrome (sample tracebacks must not match every paste)."""
    return tokenize(without_log_chrome(text))


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    return frozenset(lexical_tokens(text))
