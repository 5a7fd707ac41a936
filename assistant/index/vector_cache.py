"""A bounded memory of the vectors of short texts, in front of an embedder (thread-safe).

Answering one question embeds the question twice (once to search, once to pick the lead paragraph of a docs
section) and the paragraphs of each candidate section; the paragraphs are indexed text, the same for every
question that reaches that section. Encoding them is most of an answer's CPU on `make run`'s index. A
paragraph's vector depends only on its text and the model, so it is computed once per process and kept, up
to `size` texts (least recently used first out). Large batches (an ingest) pass straight through.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from assistant.index.embedder import Embedder


class CachedEmbedder:
    """`embed` as the wrapped embedder answers it, from memory for the texts seen recently."""

    def __init__(self, inner: Embedder, size: int = 8192, max_batch: int = 64):
        self.inner = inner
        self.name = inner.name
        self.size = size
        self.max_batch = max_batch
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        if len(texts) > self.max_batch or self.size <= 0:
            return self.inner.embed(texts)
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for t in texts:
                v = self._vectors.get(t)
                if v is not None:
                    self._vectors.move_to_end(t)
                    found[t] = v
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = self.inner.embed(missing)
            with self._lock:
                for t, v in zip(missing, fresh):
                    v = np.asarray(v, dtype=np.float32)
                    v.setflags(write=False)  # shared between requests: nobody may change it in place
                    found[t] = v
                    self._vectors[t] = v
                    self._vectors.move_to_end(t)
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        with self._lock:
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        return np.stack([found[t] for t in texts]) if texts else self.inner.embed(texts)
