"""Events per minute per caller, as a token bucket (pure): requests per key or client address, and failed
key attempts per client address."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class RateLimiter:
    """Each caller may make `per_minute` requests a minute, in bursts of up to `per_minute`.

    `check` answers None when the request may go ahead, else the seconds to wait (for `Retry-After`).
    """

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic, max_callers: int = 10_000):
        if per_minute < 1:
            raise ValueError(f"per_minute must be at least 1, got {per_minute}")
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0  # tokens per second
        self.clock = clock
        self.max_callers = max_callers
        self._buckets: dict[str, tuple[float, float]] = {}  # caller -> (tokens, last refill time)
        self._lock = threading.Lock()

    def check(self, caller: str) -> int | None:
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(caller, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[caller] = (tokens - 1.0, now)
                self._forget_idle(now)
                return None
            self._buckets[caller] = (tokens, now)
            return max(1, math.ceil((1.0 - tokens) / self.rate))

    def peek(self, caller: str) -> int | None:
        """Like `check`, but spends nothing: None while the caller has a token left, else the seconds to wait.

        The failed-attempt limit asks this before a key is even compared, and spends a token (`check`)
        only when the key turns out wrong."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(caller, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            return None if tokens >= 1.0 else max(1, math.ceil((1.0 - tokens) / self.rate))

    def _forget_idle(self, now: float) -> None:
        """Bound memory: drop callers whose bucket has refilled (they are indistinguishable from new ones)."""
        if len(self._buckets) <= self.max_callers:
            return
        full = self.capacity / self.rate
        for caller in [c for c, (_, last) in self._buckets.items() if now - last >= full]:
            del self._buckets[caller]
