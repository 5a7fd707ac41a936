"""eval/docs_bar_study.py's arithmetic: the fit / held-out sides of its table (an outcome's cost: test_outcomes.py)."""

from __future__ import annotations

import importlib.util

from assistant.settings import REPO_ROOT

_spec = importlib.util.spec_from_file_location("docs_bar_study", REPO_ROOT / "eval" / "docs_bar_study.py")
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)


def test_the_older_batches_and_the_fitting_split_are_the_fit_side():
    fresh = [
        {"batch": "batch-2026-12-01", "costs": [1.0, 0.5]},
        {"batch": "batch-2026-12-02", "costs": [1.0, 0.0]},
        {"batch": "batch-2026-12-07", "costs": [0.0, 1.0]},  # newer: out of sample
    ]
    makerun = [{"held_out": False, "costs": [0.5, 0.5]}, {"held_out": True, "costs": [0.0, 1.0]}]
    rows = study.table(fresh, makerun, [0.0, 0.9], fit_batches=2)
    assert rows[2:] == ["| 0 | 2.0 | 0.5 | 2.5 | 0.0 | 0.0 |", "| 0.9 | 0.5 | 0.5 | 1.0 | 1.0 | 1.0 |"]
