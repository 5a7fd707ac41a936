"""The gate's floors, read from floors.csv beside it: one row per change, so a floor never moves down silently.

A row is (floor, bound, value, date, commit, reason). `min` floors must be reached, `max` ones not exceeded;
`retired` ends a floor. The last row of a floor is the value the gate holds. Loosening a floor (a lower `min`, a
higher `max`) means adding a row that says why; tests/eval/test_floors.py checks it.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

HISTORY = Path(__file__).with_name("floors.csv")
BOUNDS = ("min", "max", "retired")
_ROUNDING = 1e-9  # far below one question in any set (1/500)


@dataclass(frozen=True)
class Floor:
    name: str
    bound: str
    value: float | None  # None on a `retired` row
    date: str
    commit: str
    reason: str

    def looser_than(self, other: Floor) -> bool:
        """This value lets through a result `other` would fail."""
        assert self.value is not None and other.value is not None
        return self.value < other.value if self.bound == "min" else self.value > other.value

    def holds(self, measured: float) -> bool:
        """A measurement is a ratio of question counts: 17/20 - 18/20 is -0.05, though in floating point it is
        -0.05000000000000004, so a value within rounding error of the floor is on it."""
        assert self.value is not None
        if self.bound == "min":
            return measured >= self.value - _ROUNDING
        return measured <= self.value + _ROUNDING


def history(path: Path = HISTORY) -> list[Floor]:
    with path.open(encoding="utf-8", newline="") as f:
        return [
            Floor(
                r["floor"], r["bound"], float(r["value"]) if r["value"] else None, r["date"], r["commit"], r["reason"]
            )
            for r in csv.DictReader(f)
        ]


def latest(path: Path = HISTORY) -> dict[str, Floor]:
    """Each live floor's last row (retired floors left out)."""
    last: dict[str, Floor] = {}
    for row in history(path):
        last[row.name] = row
    return {name: row for name, row in last.items() if row.bound != "retired"}


def check(name: str, value: float, floors: dict[str, Floor] | None = None) -> str:
    """`value` against the live floor `name`: an empty string when it holds, else the line a failure starts with."""
    f = (floors if floors is not None else latest())[name]
    return "" if f.holds(value) else f"{name} {value:.3f} {'<' if f.bound == 'min' else '>'} {f.value}"
