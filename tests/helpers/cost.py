"""How a pure function's CPU time grows with its input: linear work is ~4x for 4x the input, a backtracking
regex ~16x. Judged on growth, not on seconds, so a slow or busy machine does not fail a test."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

RATIO = 10.0  # linear is ~4x for 4x the input; quadratic ~16x
FLOOR = 0.04  # seconds: below this at 4N, too small to judge


def best_cpu(call: Callable[[], T], runs: int = 3) -> tuple[float, T]:
    """The least `time.process_time` of `runs` calls of `call()`, and what the last call returned."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.process_time()
        result = call()
        best = min(best, time.process_time() - start)
    return best, result


def assert_linear_cpu(fn: Callable[[str], object], unit: str, n: int, label: str) -> None:
    """`fn` on `unit` repeated to n and to 4n characters grows by at most RATIO (nothing under FLOOR judged)."""
    small, large = unit * (n // len(unit) + 1), unit * (4 * n // len(unit) + 1)
    (t_small, _), (t_large, _) = best_cpu(lambda: fn(small)), best_cpu(lambda: fn(large))
    if t_large < FLOOR:
        return
    assert t_large <= RATIO * max(t_small, FLOOR / RATIO), (
        f"{label} on {unit!r}×: {t_small * 1000:.1f} ms at {len(small)} chars, {t_large * 1000:.1f} ms at {len(large)}"
    )
