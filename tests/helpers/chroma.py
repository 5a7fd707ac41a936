"""A real `chroma run` server for the client/server path, on a loopback port."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.server import free_port
from tests.helpers.wait import http_ok, wait_until


def chroma_exe() -> str:
    return shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")


def start_chroma(path: Path, port: int, log: Path | None = None) -> subprocess.Popen:
    """`chroma run` on `path` and `port`, not waited for (a test may want the API up before its store)."""
    out = log.open("w") if log is not None else subprocess.DEVNULL
    try:
        cmd = [chroma_exe(), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)]
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    finally:
        if log is not None:
            out.close()  # the child keeps its own handle


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=30)


@contextmanager
def chroma_server(folder: Path, timeout: float = 60.0) -> Iterator[str]:
    """A running `chroma run` storing in `folder/db` (its log in `folder/server.log`); yields its URL."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "server.log"
    proc = start_chroma(folder / "db", port, log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: http_ok(url + "/api/v2/heartbeat", proc), timeout, lambda: log.read_text()[-2000:], 0.2)
        yield url
    finally:
        stop(proc)
