"""Shared fixtures: the real embedding model, loaded once, and real Chroma indexes in temp folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from assistant.index.embedder import SentenceTransformerEmbedder  # noqa: E402
from assistant.settings import DEFAULT_EMBEDDING_MODEL, REPO_ROOT, Settings  # noqa: E402

SHARED = REPO_ROOT.parent / "shared"
SEED_PAGE = SHARED / "seed" / "000_c4401e1cdcf7b498.txt"
VLLM_DOCS = SHARED / "vllm-docs"


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(DEFAULT_EMBEDDING_MODEL)


def make_settings(index_dir: Path, **kw) -> Settings:
    return Settings(index_dir=index_dir, feedback_db=index_dir / "feedback.sqlite3", **kw)


@pytest.fixture(scope="session")
def corpus_assistant(tmp_path_factory, embedder):
    """The curated corpus only, as the README's run path builds it."""
    from assistant.service import Assistant

    a = Assistant(make_settings(tmp_path_factory.mktemp("corpus-index")), embedder=embedder)
    a.ensure_index()
    return a


@pytest.fixture(scope="session")
def docs_assistant(tmp_path_factory, embedder):
    """The curated corpus plus vLLM's documentation from ../shared."""
    from assistant.service import Assistant

    if not VLLM_DOCS.is_dir():
        pytest.skip(f"{VLLM_DOCS} is missing")
    a = Assistant(make_settings(tmp_path_factory.mktemp("docs-index")), embedder=embedder)
    report = a.ingest([a.settings.corpus_dir, VLLM_DOCS])
    assert not report.skipped
    return a
