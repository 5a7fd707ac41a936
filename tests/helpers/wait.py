"""Polling until a condition holds or a deadline passes: the one loop the tests wait with (never a bare sleep)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import TypeVar

import httpx

T = TypeVar("T")


class TimedOut(AssertionError):
    """The condition did not hold in time (an AssertionError, so pytest shows it as a failed check)."""


def wait_until(check: Callable[[], T], timeout: float, what: str | Callable[[], str], every: float = 0.05) -> T:
    """The first truthy result of `check()`, tried every `every` s for `timeout` s; else TimedOut saying `what`
    (a callable is asked at the end, to show the state that was waited on)."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimedOut(f"after {timeout:.0f} s: {what() if callable(what) else what}")
        time.sleep(every)


def http_ok(url: str, proc: subprocess.Popen | None = None, request_timeout: float = 2.0) -> bool:
    """`url` answers 200 now; raises when `proc` (the server behind it) has exited, so a dead server fails fast."""
    if proc is not None and proc.poll() is not None:
        raise RuntimeError(f"the server process exited with {proc.returncode} before {url} answered")
    try:
        return httpx.get(url, timeout=request_timeout).status_code == 200
    except httpx.TransportError:
        return False
