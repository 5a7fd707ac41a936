"""Test helper: a real `chroma run` server on a free loopback port, its data in a temp folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.server import free_port


@contextmanager
def chroma_server(data: Path, wait: float = 60) -> Iterator[str]:
    """Yields the server's URL once it answers its heartbeat; stops it on exit."""
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    data.mkdir(parents=True, exist_ok=True)
    log = (data / "server.log").open("w")
    cmd = [exe, "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {proc.returncode}:\n{(data / 'server.log').read_text()}")
            try:
                if httpx.get(url + "/api/v2/heartbeat", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chroma run did not answer its heartbeat")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
