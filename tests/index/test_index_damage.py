"""A damaged vector index is never served as ready, and never crash-loops the server silently.

A real on-disk Chroma index, built by the real ingest with the real model, then damaged the two ways seen in
the field: `data_level0.bin` truncated to 0 bytes (queries raise "Error finding id"), and 256 KB of it
overwritten with random bytes (Chroma's Rust bindings segfault on the first query). Chroma keeps an index
of under 1,000 vectors in its log rather than those files, so the corpus here has just over 1,000 chunks.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from assistant.api.readiness import Readiness
from assistant.index.health import check_index
from assistant.index.probe import probe_vector_index
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings
from tests.helpers.app_process import start_app

NOTES = 1010  # generated docs sections, on top of the curated entries


def _settings(root: Path, corpus: Path) -> Settings:
    return Settings(
        index_dir=root / "index",
        corpus_dir=corpus,
        feedback_db=root / "fb.sqlite3",
        vllm_releases=[],
        release_docs=False,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, embedder) -> tuple[Path, Path]:
    """(index folder, corpus folder) of a healthy index of just over 1,000 chunks."""
    root = tmp_path_factory.mktemp("damage")
    corpus = root / "corpus"
    shutil.copytree(REPO_ROOT / "corpus" / "entries", corpus / "entries")
    (corpus / "docs").mkdir()
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    words += ["india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
    lines = ["# Generated notes", ""]
    for i in range(NOTES):
        a, b, c = words[i % 16], words[(i // 16) % 16], words[(i // 256) % 16]
        lines += [f"## Note {i} {a} {b}", "", f"Setting knob_{i} to {c} changes the {a} behaviour, case {i}.", ""]
    (corpus / "docs" / "notes.md").write_text("\n".join(lines), encoding="utf-8")
    assistant = Assistant(_settings(root, corpus), embedder=embedder)
    assistant.ensure_index()
    assert assistant.store.count() > 1000
    assert list((root / "index" / "chroma").glob("*/data_level0.bin"))
    return root / "index", corpus


def truncate(path: Path) -> None:
    path.write_bytes(b"")


def overwrite_256k(path: Path) -> None:
    """256 KB of random bytes over the vectors after the first 256 KB (at the very start of the file the same
    bytes make queries raise instead: checked for seeds 0-3, and this offset segfaulted for each)."""
    with path.open("r+b") as f:
        f.seek(256 * 1024)
        f.write(random.Random(23).randbytes(256 * 1024))


DAMAGE: dict[str, Callable[[Path], None]] = {"truncated": truncate, "overwritten": overwrite_256k}


def damaged_copy(built: tuple[Path, Path], tmp_path: Path, how: str) -> Settings:
    index, corpus = built
    root = tmp_path / how
    shutil.copytree(index, root / "index")
    (level0,) = (root / "index" / "chroma").glob("*/data_level0.bin")
    DAMAGE[how](level0)
    return _settings(root, corpus)


def test_a_healthy_index_passes_both_checks(built: tuple[Path, Path], embedder) -> None:
    index, corpus = built
    settings = _settings(index.parent, corpus)
    assert probe_vector_index(settings) is None
    assistant = Assistant(settings, embedder=embedder)
    assert check_index(assistant.store, assistant.retriever.lexical) is None


@pytest.mark.parametrize(
    ("how", "says"),
    [("truncated", "fails a query"), ("overwritten", "crashes the process that reads it (killed by SIGSEGV)")],
)
def test_the_child_process_check_finds_the_damage(built, tmp_path: Path, how: str, says: str) -> None:
    problem = probe_vector_index(damaged_copy(built, tmp_path, how))
    assert problem is not None and says in problem


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_the_recheck_after_a_sync_probes_a_damaged_index_before_this_process_opens_it(
    built, tmp_path: Path, embedder, how: str
) -> None:
    """Opening a damaged index in-process can crash the process (Chroma's bindings segfaulted on a truncated
    file in one run of the suite, and raised in others): the recheck asks the child process first."""
    broken = Assistant(damaged_copy(built, tmp_path, how), embedder=embedder)
    readiness = Readiness()
    assert readiness.recheck(broken) is False
    assert readiness.state == "failed" and "Repair:" in readiness.detail
    assert "store" not in broken.__dict__  # this process never opened the damaged store


def test_recheck_after_a_sync_turns_readiness_off_and_on_again(built, tmp_path: Path, embedder) -> None:
    index, corpus = built
    healthy = Assistant(_settings(index.parent, corpus), embedder=embedder)
    readiness = Readiness()
    readiness.prepare(healthy)
    assert readiness.ready
    broken = Assistant(damaged_copy(built, tmp_path, "truncated"), embedder=embedder)
    assert readiness.recheck(broken) is False
    assert not readiness.ready and readiness.state == "failed" and "Repair:" in readiness.detail
    assert readiness.recheck(healthy) is True and readiness.ready and readiness.state == "ready"


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_app_py_on_a_damaged_index_stays_up_and_says_why_and_how_to_repair(built, tmp_path: Path, how: str) -> None:
    settings = damaged_copy(built, tmp_path, how)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")},
        "ASSISTANT_INDEX_DIR": str(settings.index_dir),
        "ASSISTANT_CORPUS_DIR": str(settings.corpus_dir),
        "ASSISTANT_FEEDBACK_DB": str(settings.feedback_db),
        "ASSISTANT_VLLM_RELEASES": "[]",
        "ASSISTANT_RELEASE_DOCS": "false",
    }
    settled = lambda r: r.json().get("status") in ("failed", "ready")  # refused, or (wrongly) served
    proc, base = start_app(["--no-ui"], env, stdout=subprocess.DEVNULL, wait=300, until=settled)
    try:
        ready = httpx.get(base + "/readyz", timeout=10)
        assert ready.status_code == 503, ready.text
        detail = ready.json()["detail"]
        assert "the index does not answer" in detail and "Repair:" in detail and "mv <index_dir>" in detail
        assert str(settings.index_dir) not in detail  # the server's folders stay private
        asked = httpx.post(base + "/v1/ask", json={"question": "knob_7 alpha"}, timeout=30)
        assert asked.status_code == 503
        assert httpx.get(base + "/healthz", timeout=10).status_code == 200
        assert proc.poll() is None  # still up: no crash, no crash loop
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    damaged = [r for r in records if r["msg"] == "index damaged; not ready"]
    assert len(damaged) == 1 and "mv " in damaged[0]["repair"], err[-2000:]
