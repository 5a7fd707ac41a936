"""The vector memory in front of the embedding model: same vectors as the model, each text encoded once."""

from __future__ import annotations

import threading

import numpy as np

from assistant.index.vector_cache import CachedEmbedder


class Counting:
    """The real model, counting the texts it is asked to encode."""

    def __init__(self, inner):
        self.inner, self.name, self.encoded = inner, inner.name, 0

    def embed(self, texts):
        self.encoded += len(texts)
        return self.inner.embed(texts)


def test_vectors_match_the_model_and_each_text_is_encoded_once(embedder):
    model = Counting(embedder)
    cached = CachedEmbedder(model, size=16)
    texts = ["CUDA out of memory", "set --gpu-memory-utilization 0.8", "CUDA out of memory"]
    first = cached.embed(texts)
    again = cached.embed(texts[::-1])
    assert model.encoded == 2  # the repeated text, and the second call, cost nothing
    assert np.allclose(first, embedder.embed(texts), atol=1e-5)
    assert np.allclose(again, first[::-1])
    assert not cached._vectors[texts[0]].flags.writeable  # shared between requests: read-only


def test_it_is_bounded_and_forgets_the_least_recently_used(embedder):
    model = Counting(embedder)
    cached = CachedEmbedder(model, size=2)
    cached.embed(["a one"]), cached.embed(["b two"]), cached.embed(["a one"]), cached.embed(["c three"])
    assert list(cached._vectors) == ["a one", "c three"]
    cached.embed(["b two"])
    assert model.encoded == 4


def test_large_batches_pass_through_and_threads_share_it(embedder):
    model = Counting(embedder)
    cached = CachedEmbedder(model, size=100, max_batch=4)
    cached.embed([f"chunk {i}" for i in range(10)])
    assert not cached._vectors and model.encoded == 10
    threads = [threading.Thread(target=cached.embed, args=([f"q {i % 3}"],)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(cached._vectors) == 3 and cached.hits + cached.misses == 12
