"""A gate floor never moves down silently: its history is floors.csv, and the gate holds the latest row.

Fast: reads the CSV and the gate's source, runs no eval.
"""

from __future__ import annotations

import ast
import csv
from pathlib import Path

import pytest

from tests.eval import floors
from tests.eval.floors import BOUNDS, Floor, history, latest

GATES = (Path(__file__).with_name("test_gate.py"), Path(__file__).with_name("test_gate_release.py"))
FIRST_UNRECORDED_DAY = "2026-12-01"  # from this day on, every loosening says why


def _gate_floor_names(source: str) -> set[str]:
    """The floors the gate looks up: the string in every `_check("name", ...)` (f-strings: each parametrized set)."""
    names: set[str] = set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_check":
            arg = node.args[0]
            if isinstance(arg, ast.Constant):
                names.add(arg.value)
            elif isinstance(arg, ast.JoinedStr):  # f"{set_name}_key_facts": the sets it is parametrized with
                for call in ast.walk(tree):
                    if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "parametrize":
                        values = ast.literal_eval(call.args[1])
                        names |= {
                            "".join(p.value if isinstance(p, ast.Constant) else v for p in arg.values)
                            for v in values
                            if isinstance(v, str)
                        }
    return names


def _literal_thresholds(source: str) -> list[str]:
    """Comparisons in the gate's asserts against a number written in the code instead of a floor from the file."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
                sides = [cmp.left, *cmp.comparators]
                if any(isinstance(s, ast.Constant) and type(s.value) in (int, float) for s in sides):
                    found.append(ast.unparse(cmp))
    return found


def _says_why(row: Floor) -> bool:
    return bool(row.reason.strip()) and not (row.date >= FIRST_UNRECORDED_DAY and "not recorded" in row.reason)


def _problems(rows: list[Floor]) -> list[str]:
    """What is wrong with a floor history: unknown bounds, dates out of order, a loosening without a reason."""
    out, last = [], {}
    for row in rows:
        prev = last.get(row.name)
        if row.bound not in BOUNDS:
            out.append(f"{row.name}: bound {row.bound!r} is not one of {', '.join(BOUNDS)}")
        elif row.bound != "retired" and row.value is None:
            out.append(f"{row.name} on {row.date}: no value")
        elif prev is not None and row.date < prev.date:
            out.append(f"{row.name}: {row.date} comes after {prev.date}; add rows at the end")
        elif prev is not None and prev.bound == "retired":
            out.append(f"{row.name}: a row after it was retired")
        elif prev is not None and row.bound != "retired" and row.bound != prev.bound:
            out.append(f"{row.name}: bound {prev.bound} -> {row.bound}; a new bound is a new floor")
        elif prev is not None and row.bound != "retired" and row.looser_than(prev) and not _says_why(row):
            out.append(f"{row.name}: {prev.value} -> {row.value} on {row.date} without a reason")
        last[row.name] = row
    return out


def test_the_history_is_well_formed_and_every_loosening_says_why():
    rows = history()
    assert rows, "floors.csv is empty"
    assert not _problems(rows)


def test_the_gates_hold_each_floors_latest_value_and_no_number_of_their_own():
    """The gate on the shared docs (test_gate.py) and the one on `make run`'s corpus (test_gate_release.py)."""
    names: set[str] = set()
    for gate in GATES:
        source = gate.read_text(encoding="utf-8")
        names |= _gate_floor_names(source)
        assert not _literal_thresholds(source), f"a threshold written in {gate.name}: add a row to floors.csv instead"
    assert names == set(latest()), "the gates' floors and floors.csv's live floors differ"
    from tests.eval import test_gate, test_gate_release  # imports the pipeline modules, runs nothing

    for name, row in latest().items():
        module = test_gate_release if name.startswith("release_") else test_gate
        held = module.FLOOR[name]
        assert held.bound == row.bound and not held.looser_than(row), f"{module.__name__} holds {name} at {held.value}"


def _write(path: Path, rows: list[tuple[str, ...]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["floor", "bound", "value", "date", "commit", "reason"])
        w.writerows(rows)
    return path


@pytest.mark.parametrize(
    "rows, problem",
    [
        (
            [("a", "min", "0.8", "2026-12-02", "", "first"), ("a", "min", "0.7", "2026-12-03", "", "")],
            "without a reason",
        ),
        (
            [("a", "max", "0.1", "2026-12-02", "", "first"), ("a", "max", "0.2", "2026-12-03", "", "not recorded")],
            "without a reason",
        ),
        ([("a", "min", "0.8", "2026-12-03", "", "x"), ("a", "min", "0.9", "2026-12-02", "", "y")], "comes after"),
        ([("a", "min", "0.8", "2026-12-02", "", "x"), ("a", "max", "0.9", "2026-12-02", "", "y")], "a new bound"),
        ([("a", "least", "0.8", "2026-12-02", "", "x")], "is not one of"),
        ([("a", "retired", "", "2026-12-02", "", "x"), ("a", "min", "0.9", "2026-12-03", "", "y")], "retired"),
    ],
)
def test_a_history_that_hides_a_change_is_caught(tmp_path, rows, problem):
    found = _problems(history(_write(tmp_path / "floors.csv", rows)))
    assert len(found) == 1 and problem in found[0], found


def test_a_tighter_floor_needs_no_reason_and_the_last_row_wins(tmp_path):
    path = _write(
        tmp_path / "floors.csv",
        [
            ("a", "min", "0.7", "2026-12-02", "", "first"),
            ("a", "min", "0.8", "2026-12-03", "", ""),
            ("b", "max", "0.1", "2026-12-02", "", "x"),
            ("b", "retired", "", "2026-12-03", "", "gone"),
        ],
    )
    assert not _problems(history(path))
    assert {n: f.value for n, f in floors.latest(path).items()} == {"a": 0.8}
    assert floors.latest(path)["a"].holds(0.8) and not floors.latest(path)["a"].holds(0.79)
    assert Floor("b", "max", 0.1, "", "", "").holds(0.1) and not Floor("b", "max", 0.1, "", "", "").holds(0.11)


def test_a_gap_of_question_counts_exactly_on_the_floor_holds_despite_floating_point():
    floor = Floor("zh_minus_en_hit_at_3", "min", -0.05, "2026-12-02", "", "x")
    assert 17 / 20 - 18 / 20 < -0.05 and floor.holds(17 / 20 - 18 / 20)  # one pair behind: on the floor
    assert not floor.holds(16 / 20 - 18 / 20)
    assert Floor("f", "max", 0.1, "2026-12-02", "", "x").holds(0.1 + 1e-12)
