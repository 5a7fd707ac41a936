"""`python -m assistant sync` killed at a random point, then run again, ends with the index an
uninterrupted sync builds: same chunk ids, same content hashes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time

from assistant.index.store import ChromaStore
from assistant.settings import REPO_ROOT
from assistant.sync.runner import run_sync
from assistant.sync.sources import load_sources
from tests.conftest import make_settings
from tests.sync.conftest import add_docs, populate, write_sources
from tests.sync.fake_github import FakeGitHub


def _env(index_dir, github_url, sources) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_") and k != "GITHUB_TOKEN"}
    env |= {
        "ASSISTANT_INDEX_DIR": str(index_dir),
        "ASSISTANT_GITHUB_API_URL": github_url,
        "ASSISTANT_SOURCES_FILE": str(sources),
        "ASSISTANT_GITHUB_BACKOFF": "0",
        "HF_HUB_OFFLINE": "1",
    }
    return env


def _sync_cli(env, kill_after_lines: int | None = None, delay: float = 0.0) -> tuple[int, list[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "assistant", "sync"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    killed = threading.Event()
    for line in proc.stderr:
        if line.startswith("["):
            lines.append(line.strip())
        if kill_after_lines is not None and len(lines) >= kill_after_lines and not killed.is_set():
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            killed.set()
            break
    out = proc.stdout.read() if kill_after_lines is None else ""
    proc.wait(timeout=600)
    proc.stdout.close()
    proc.stderr.close()
    return proc.returncode, lines, out


def test_a_sync_killed_mid_way_resumes_to_the_same_index(tmp_path, embedder):
    seed = random.randrange(1_000_000)
    rng = random.Random(seed)
    sources = write_sources(tmp_path / "sources.yaml")
    progress: list[str] = []
    with FakeGitHub() as fake:  # the reference: one uninterrupted sync
        populate(fake)
        add_docs(fake)
        reference = make_settings(tmp_path / "reference", github_api_url=fake.url)
        assert run_sync(reference, load_sources(sources), embedder=lambda: embedder, progress=progress.append).ok
    expected = ChromaStore(reference).hashes()
    with FakeGitHub() as fake:
        populate(fake)
        add_docs(fake)
        env = _env(tmp_path / "killed", fake.url, sources)
        kill_at = rng.randint(2, len(progress) - 1)
        delay = rng.uniform(0.0, 0.5)
        rc, lines, _ = _sync_cli(env, kill_at, delay)
        assert rc == -signal.SIGKILL, f"seed {seed}: the sync ended before the kill ({rc}; {lines[-3:]})"
        rc, _, out = _sync_cli(env)
        assert rc == 0, f"seed {seed}"
        assert out.startswith("sync summary:") and "issues" in out and "docs-v0.31.0" in out
    resumed = ChromaStore(make_settings(tmp_path / "killed"))
    assert resumed.hashes() == expected, f"seed {seed}: killed after {kill_at} progress lines + {delay:.2f}s"
