"""Start `python app.py` as a user would and wait until it answers /readyz (shared by the entry tests)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.server import free_port

REPO = Path(__file__).resolve().parents[1]


def start_app(args: list[str], env: dict[str, str], stdout=subprocess.PIPE, wait: float = 120) -> tuple[subprocess.Popen, str]:
    """(process, base URL) of app.py on a free loopback port, once ready; the caller terminates it."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "app.py", *args, "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait
    while True:
        assert proc.poll() is None, proc.stderr.read()
        try:
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                return proc, base
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            proc.terminate()
            raise AssertionError("app.py did not turn ready")
        time.sleep(0.1)
