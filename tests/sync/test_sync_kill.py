"""`python -m assistant sync` killed mid-way, then run again, ends with the index an uninterrupted sync builds:
same chunk ids, same content hashes.

The kill lands at a point the test chooses and holds, never at a time that races the sync: either right after
the sync's N-th progress line (tests/sync/paused_sync.py parks the CLI there) or while its N-th request to the
fake GitHub is held unanswered. A seed picks the point among all of them; `SYNC_KILL_SEED` replays one.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

from assistant.index.store import ChromaStore
from assistant.settings import REPO_ROOT
from assistant.sync.runner import run_sync
from assistant.sync.sources import load_sources
from tests.conftest import make_settings
from tests.helpers.env import clean_env
from tests.sync.conftest import add_docs, populate, write_sources
from tests.sync.fake_github import FakeGitHub


def _env(index_dir, github_url, sources) -> dict[str, str]:
    return clean_env(
        ASSISTANT_INDEX_DIR=str(index_dir),
        ASSISTANT_GITHUB_API_URL=github_url,
        ASSISTANT_SOURCES_FILE=str(sources),
        ASSISTANT_GITHUB_BACKOFF="0",
    )


def _start(env: dict[str, str], pause_after_line: int = 0) -> subprocess.Popen:
    """The sync CLI; with `pause_after_line` it parks for good after that progress line (0: never)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.sync.paused_sync", str(pause_after_line)],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill_after_line(env: dict[str, str], line: int) -> list[str]:
    proc = _start(env, line)
    seen: list[str] = []
    for text in proc.stderr:
        if text.startswith("["):
            seen.append(text.strip())
            if len(seen) == line:
                break
    proc.kill()  # parked after `line`, or (a failure below) already gone
    proc.wait(timeout=60)
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, f"the sync ended before its progress line {line}: {seen[-3:]}"
    return seen


def _kill_during_request(env: dict[str, str], fake: FakeGitHub, n: int) -> None:
    arrived, release = fake.hold_request(n)
    proc = _start(env)
    try:
        assert arrived.wait(timeout=300), f"the sync never made its request {n}"
        proc.kill()  # blocked on that request's answer
        proc.wait(timeout=60)
    finally:
        release.set()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def test_a_sync_killed_mid_way_resumes_to_the_same_index(tmp_path, embedder):
    seed = int(os.environ.get("SYNC_KILL_SEED") or random.randrange(1_000_000))
    sources = write_sources(tmp_path / "sources.yaml")
    progress: list[str] = []
    with FakeGitHub() as fake:  # the reference: one uninterrupted sync
        populate(fake)
        add_docs(fake)
        reference = make_settings(tmp_path / "reference", github_api_url=fake.url)
        assert run_sync(reference, load_sources(sources), embedder=lambda: embedder, progress=progress.append).ok
        requests = fake.counts()["total"]
    expected = ChromaStore(reference).hashes()
    points = [("line", n) for n in range(1, len(progress) + 1)] + [("request", n) for n in range(1, requests + 1)]
    kind, n = random.Random(seed).choice(points)
    where = f"seed {seed}: killed {'after progress line' if kind == 'line' else 'during request'} {n}"
    print(where, f"(one of {len(points)} points)")
    with FakeGitHub() as fake:
        populate(fake)
        add_docs(fake)
        env = _env(tmp_path / "killed", fake.url, sources)
        if kind == "line":
            assert _kill_after_line(env, n)[-1] == progress[n - 1], where
        else:
            _kill_during_request(env, fake, n)
        cmd = [sys.executable, "-m", "assistant", "sync"]
        done = subprocess.run(cmd, check=False, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{where}\n{done.stderr[-2000:]}"
        assert done.stdout.startswith("sync summary:") and "issues" in done.stdout and "docs-v0.31.0" in done.stdout
    resumed = ChromaStore(make_settings(tmp_path / "killed"))
    assert resumed.hashes() == expected, where
