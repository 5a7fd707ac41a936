"""Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (e.g. `vllm serve BAAI/bge-m3`).

A served multilingual model is how Chinese questions get a dense channel worth having; the local
MiniLM model only reads English. The client is created on first use.
"""

from __future__ import annotations

import threading

import numpy as np

from assistant.errors import ConfigError, IndexError_
from assistant.settings import Settings

_BATCH = 64


class OpenAIEmbedder:
    def __init__(self, settings: Settings):
        if not settings.embedding_base_url:
            raise ConfigError(
                "embedding_backend=openai needs embedding_base_url (e.g. http://127.0.0.1:8001/v1, "
                "where `vllm serve BAAI/bge-m3 --port 8001` listens)"
            )
        self.name = settings.embedding_model
        self.settings = settings
        self._client = None
        self._lock = threading.Lock()

    @property
    def client(self):
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.settings.embedding_base_url,
                    api_key=self.settings.embedding_api_key,
                    timeout=self.settings.llm_timeout,
                    max_retries=self.settings.llm_max_retries,
                )
        return self._client

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in the order given."""
        import openai

        rows: list[list[float]] = []
        for start in range(0, len(texts), _BATCH):
            batch = [t if t.strip() else " " for t in texts[start : start + _BATCH]]
            try:
                res = self.client.embeddings.create(model=self.name, input=batch, encoding_format="float")
            except openai.OpenAIError as exc:
                raise IndexError_(
                    f"the embeddings endpoint {self.settings.embedding_base_url} failed for model {self.name!r}: {exc}"
                ) from exc
            data = sorted(res.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise IndexError_(f"the embeddings endpoint returned {len(data)} vectors for {len(batch)} texts")
            rows += [d.embedding for d in data]
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        vecs = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.where(norms == 0, 1.0, norms)
