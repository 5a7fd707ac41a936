"""The start-up build embeds on every core, and the server answers on `torch_threads` once it is ready.

The first start of `make run` embeds the release's ~3,000 docs sections; on one PyTorch thread that was most of its
CPU time (benchmarks/README.md). Nothing is answered until /readyz says ready, so the build may take every core.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import torch
from threadpoolctl import threadpool_info

from assistant.api.readiness import Readiness
from assistant.index.embedder import apply_torch_threads, build_threads
from assistant.service import Assistant
from assistant.settings import REPO_ROOT
from tests.conftest import make_settings


def _blas_limits() -> set[int]:
    return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}


def test_build_threads_gives_the_build_its_count_and_then_the_serving_count_back(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, torch_threads=1, build_threads=2)
    apply_torch_threads(settings)
    with build_threads(settings) as n:
        assert n == 2
        assert torch.get_num_threads() == 2
        assert _blas_limits() <= {2}
    assert torch.get_num_threads() == 1
    assert _blas_limits() <= {1}
    with build_threads(make_settings(tmp_path, torch_threads=1)) as n:  # 0: every core the process may run on
        assert n == len(os.sched_getaffinity(0))
    assert torch.get_num_threads() == 1


class _Recording:
    """The real embedder, noting PyTorch's thread count at each call."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.threads = inner, inner.name, []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.threads.append((torch.get_num_threads(), texts == ["warm up"]))
        return self.inner.embed(texts)


def test_the_start_up_build_embeds_on_build_threads_and_serves_on_torch_threads(tmp_path: Path, embedder) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(REPO_ROOT / "corpus" / "entries", corpus / "entries")
    settings = make_settings(
        tmp_path / "index", corpus_dir=corpus, torch_threads=1, build_threads=2, release_docs=False, vllm_releases=[]
    )
    apply_torch_threads(settings)  # as app.py does before serving
    recording = _Recording(embedder)
    a = Assistant(settings, embedder=recording)
    readiness = Readiness()
    readiness.prepare(a)
    assert readiness.ready, readiness.detail
    build = [n for n, warm_up in recording.threads if not warm_up]
    assert build and set(build) == {2}  # the curated corpus, embedded on two threads
    assert [n for n, warm_up in recording.threads if warm_up] == [1]  # loading the model for serving, after the build
    assert torch.get_num_threads() == 1
    done = len(recording.threads)
    a.ask("CUDA out of memory while loading the model")  # the first answer: on the serving count
    assert recording.threads[done:] and {n for n, _ in recording.threads[done:]} == {1}
    if readiness.fill is not None:
        readiness.fill.join(60)
