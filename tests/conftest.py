"""Shared fixtures: the real embedding model, loaded once, and real Chroma indexes in temp folders.

Also two rules for the whole suite:
- Tests see no `ASSISTANT_*` variable from the developer's shell: a test's settings are what the test says
  (and the defaults), never what happens to be exported. Tests that need a variable set it themselves.
- Under CI (`CI` set, as `.ci/run` does) a skipped test is a failed test: a missing browser, model package or
  llama.cpp server must fail the run, not pass it silently.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

# Before anything below imports the package or builds a Settings(): the shell's settings stay out of the tests.
for _name in [n for n in os.environ if n.upper().startswith("ASSISTANT_")]:
    del os.environ[_name]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# numba comes only with ranx, the tests' reference for the retrieval metrics (tests/eval/test_metrics.py). Run as plain
# Python, its kernels compute the same definitions, without the minute numba spends compiling them in a fresh venv.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
# No test assistant (nor an app.py a test starts) downloads a vLLM wheel at start-up; the release tests
# sync a small wheel of their own, and one eval step reads the real one on purpose.
os.environ["ASSISTANT_VLLM_RELEASES"] = "[]"

from assistant.index.embedder import SentenceTransformerEmbedder
from assistant.index.vector_cache import CachedEmbedder
from assistant.settings import DEFAULT_EMBEDDING_MODEL, REPO_ROOT, Settings

SHARED = REPO_ROOT.parent / "shared"
SEED_PAGE = SHARED / "seed" / "000_c4401e1cdcf7b498.txt"
VLLM_DOCS = SHARED / "vllm-docs"
CURATED = len(list((REPO_ROOT / "corpus" / "entries").glob("*.yaml")))  # the curated entries: a chunk each


# Dozens of tests build an index of the same curated corpus with the same real, deterministic models: each text's
# vector is computed once per session and given back after that (`CachedEmbedder`, the answer path's own cache, made
# large enough for the session), instead of embedding the entries again for every index. Servers a test starts are
# other processes and embed for themselves; tests/index/test_embedder.py makes its own uncached embedders.
SESSION_VECTORS = 1_000_000


@pytest.fixture(scope="session")
def embedder() -> CachedEmbedder:
    model = SentenceTransformerEmbedder(DEFAULT_EMBEDDING_MODEL)
    return CachedEmbedder(model, size=SESSION_VECTORS, max_batch=SESSION_VECTORS)


@pytest.fixture(scope="session", autouse=True)
def _use_vectors_once_per_session():
    """USE v3 likewise: every `UseEmbedder` in this process answers from one session-wide cache over a real one."""
    from assistant.index.use_embedder import UseEmbedder

    real = UseEmbedder.embed
    model = UseEmbedder()
    model.embed = functools.partial(real, model)  # this instance computes; every other one reads the cache
    cache = CachedEmbedder(model, size=SESSION_VECTORS, max_batch=SESSION_VECTORS)
    UseEmbedder.embed = lambda self, texts: cache.embed(texts)
    try:
        yield
    finally:
        UseEmbedder.embed = real


def make_settings(index_dir: Path, **kw) -> Settings:
    return Settings(index_dir=index_dir, feedback_db=index_dir / "feedback.sqlite3", **kw)


@pytest.fixture(scope="session")
def faces_index(tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder) -> Path:
    """One index folder, built from corpus/ once per session in this process (with the session's vectors), for every
    face's tests: a server a test starts on it finds it built. An app.py that built it itself within its readiness
    wait took 70 to over 120 s at 461 entries, whichever face's test happened to come first."""
    from assistant.service import Assistant

    path = tmp_path_factory.getbasetemp() / "faces-index"
    Assistant(Settings(index_dir=path), embedder=embedder).ensure_index()
    return path


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


# --- under CI a skip is a failure --------------------------------------------------------------------------


def in_ci() -> bool:
    """`CI` set to anything but an explicit false (GitHub, GitLab and `.ci/run` set CI=true)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, "Skipped: reason")
        return f"{longrepr[0]}:{longrepr[1]}: {longrepr[2]}"
    return str(longrepr)


def _fail_instead(report: pytest.TestReport | pytest.CollectReport) -> None:
    report.outcome = "failed"
    report.longrepr = f"skipped under CI, which counts as a failure (a missing component?): {_skip_reason(report)}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Skips from marks, `pytest.skip` in a test or fixture and `importorskip` all land in a test's report."""
    report = yield
    if in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        _fail_instead(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """A module that skips itself at import (`importorskip` or `skip(allow_module_level=True)`)."""
    report = yield
    if in_ci() and report.skipped:
        _fail_instead(report)
    return report


# --- a real PostgreSQL server, one per test session --------------------------------------------------------


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (tests/postgres_server.py). A missing package fails, never skips."""
    from tests.postgres_server import PostgresServer

    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres) -> str:
    """A fresh, empty database on the session's server: a test sees no other test's rows."""
    return postgres.create_database()
