"""How a pure function's CPU time grows with its input: linear work is ~4x for 4x the input, a backtracking
regex ~16x. Judged on growth, not on seconds, so a slow or busy machine does not fail a test."""

from __future__ import annotations

import time
from collections.abc import Callable

RATIO = 10.0  # linear is ~4x for 4x the input; quadratic ~16x
FLOOR = 0.04  # seconds: below this at 4N, too small to judge


def best_cpu(fn: Callable[[str], object], text: str, runs: int = 3) -> float:
    """The least `time.process_time` of `runs` calls of `fn(text)`."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn(text)
        best = min(best, time.process_time() - start)
    return best


def assert_linear_cpu(fn: Callable[[str], object], unit: str, n: int, label: str) -> None:
    """`fn` on `unit` repeated to n and to 4n characters grows by at most RATIO (nothing under FLOOR judged)."""
    small, large = unit * (n // len(unit) + 1), unit * (4 * n // len(unit) + 1)
    t_small, t_large = best_cpu(fn, small), best_cpu(fn, large)
    if t_large < FLOOR:
        return
    assert t_large <= RATIO * max(t_small, FLOOR / RATIO), (
        f"{label} on {unit!r}×: {t_small * 1000:.1f} ms at {len(small)} chars, {t_large * 1000:.1f} ms at {len(large)}"
    )
