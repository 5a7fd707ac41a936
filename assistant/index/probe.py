"""Check the embedded vector index in a child process before the server maps it.

Chroma reads its HNSW files in Rust: a file overwritten with garbage does not raise, it kills the process
with SIGSEGV, before any log line, on every restart. So the server first runs `check_vectors` here, in a
child (`python -m assistant.index.probe SETTINGS_JSON`): a child killed by a signal, or reporting a failed
query, means the index is damaged, and the server says so on /readyz instead of crash-looping.

A Chroma server is not probed this way: its crash is not ours, and the in-process check covers it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from assistant.settings import Settings

PROBE_TIMEOUT_SECONDS = 300.0
_FIELDS = ("index_dir", "collection", "embedding_backend", "embedding_model")
_DAMAGED = 3  # the child's exit code for "the index answered wrongly or raised"


def needs_probe(settings: Settings) -> bool:
    """An embedded index that exists on disk (a first run has nothing to check)."""
    return not settings.chroma_url and (settings.index_dir / "chroma" / "chroma.sqlite3").is_file()


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the vector index crashes the process that reads it (killed by {name})"
    return f"the index check exited with code {code}"


def probe_vector_index(settings: Settings, timeout: float = PROBE_TIMEOUT_SECONDS) -> str | None:
    """None when the embedded index answers a query on chunks it holds (or there is none yet); else why not."""
    if not needs_probe(settings):
        return None
    args = json.dumps({name: str(getattr(settings, name)) for name in _FIELDS})
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "assistant.index.probe", args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"the index check did not finish in {timeout:g} s"
    if proc.returncode == 0:
        return None
    if proc.returncode == _DAMAGED:
        lines = proc.stdout.strip().splitlines()
        try:
            return str(json.loads(lines[-1])["reason"])
        except (IndexError, ValueError, KeyError, TypeError):
            pass
    tail = (proc.stderr or "").strip().splitlines()[-1:] if proc.returncode > 0 else []
    return _describe_exit(proc.returncode) + (f": {tail[0][:300]}" if tail else "")


def _main(argv: list[str]) -> int:
    from assistant.errors import IndexMismatchError
    from assistant.index.health import check_vectors
    from assistant.index.store import ChromaStore

    fields = json.loads(argv[0])
    settings = Settings(**fields, vllm_releases=[], release_docs=False)
    try:
        reason = check_vectors(ChromaStore(settings))
    except IndexMismatchError:  # another model built it: not damage; the server says so itself
        reason = None
    if reason is None:
        return 0
    print(json.dumps({"reason": reason}), flush=True)
    return _DAMAGED


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
