"""Start `python app.py` as a user would and wait until it answers /readyz (the entry tests and
benchmarks/bench_schema.py share it)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

import httpx

from tests.helpers.server import free_port
from tests.helpers.wait import TimedOut, http_ok, wait_until

REPO = Path(__file__).resolve().parents[2]


class AppNotReady(RuntimeError):
    """app.py exited, or did not answer /readyz in time (a named error: `python -O` strips an `assert`)."""


def start_app(
    args: list[str],
    env: dict[str, str],
    stdout: int | IO[str] = subprocess.PIPE,
    stderr: int | IO[str] = subprocess.PIPE,
    wait: float = 120,
    until: Callable[[httpx.Response], bool] | None = None,
) -> tuple[subprocess.Popen, str]:
    """(process, base URL) of app.py on a free loopback port, once ready (or once its /readyz answer meets
    `until`: a test of a server that must refuse readiness waits for the refusal); the caller terminates it."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "app.py", *args, "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=stdout,
        stderr=stderr,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        if proc.poll() is not None:
            raise AppNotReady(f"app.py exited with {proc.returncode}" + _stderr(proc))
        if until is None:
            return http_ok(base + "/readyz")
        try:
            return until(httpx.get(base + "/readyz", timeout=2))
        except httpx.TransportError:
            return False

    try:
        wait_until(ready, wait, "app.py is not ready", 0.1)
    except TimedOut:
        proc.kill()
        proc.wait(timeout=30)
        raise AppNotReady(f"app.py was not ready within {wait:.0f} s" + _stderr(proc)) from None
    return proc, base


def _stderr(proc: subprocess.Popen) -> str:
    """What the process wrote to a piped stderr, to say why; nothing when stderr went elsewhere."""
    return f":\n{proc.stderr.read()}" if proc.stderr else ""
