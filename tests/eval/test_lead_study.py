"""eval/lead_study.py's fitting side: which records it learns from, the bar it chooses out of fold, and that the
sides it judges on are never fitted on."""

from __future__ import annotations

import importlib.util

from assistant.settings import REPO_ROOT

_spec = importlib.util.spec_from_file_location("lead_study", REPO_ROOT / "eval" / "lead_study.py")
lead = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lead)


def _features(cosine: float, kind: str = "feature") -> dict:
    base = {n: 0.0 for n in lead.NUMERIC}
    return {**base, "cosine": cosine, "confidence": cosine, "kind": kind}


def _records(batch: str, n: int, start: int = 0) -> list[dict]:
    """Docs-led items where a weak section (low cosine) costs less held back, a strong one costs less kept."""
    out = []
    for i in range(start, start + n):
        strong = i % 2 == 0
        out.append({
            "id": f"{batch}-{i}", "batch": batch, "features": _features(0.9 if strong else 0.3),
            "kept": 0.0 if strong else 1.0, "held": 0.5 if strong else 0.0,
        })  # fmt: skip
    return out


def test_the_sides_older_batches_and_the_fitting_split_fit_the_rest_is_judged():
    older = {"batch-2026-12-01"}
    assert lead.side_of({"batch": "batch-2026-12-01"}, older) == "fresh_fit"
    assert lead.side_of({"batch": "batch-2026-12-07"}, older) == "fresh_test"
    assert lead.side_of({"held_out": False, "fold": 3}, older) == "makerun_fit"
    assert lead.side_of({"held_out": True, "fold": 3}, older) == "makerun_test"


def test_a_model_learns_to_hold_back_the_weak_sections_and_costs_less_on_unseen_batches():
    records = _records("batch-2026-12-01", 40) + _records("batch-2026-12-02", 40) + _records("batch-2026-12-09", 20)
    records.append({"id": "nothing-led", "batch": "batch-2026-12-09", "features": None, "kept": 0.5, "held": 0.5})
    lines = lead.study(records, fit_batches=2)
    assert "hold back above" in lines[1]
    rows = {line.split(" | ")[0].strip("| "): line for line in lines if line.startswith("| fresh")}
    n, led, kept, held, today, model = (float(x) for x in rows["fresh_test"].strip("| ").split(" | ")[1:])
    assert (n, led, kept, held, today) == (21, 20, 10.5, 5.5, 10.5)  # no "today" recorded: today keeps every lead
    assert model == 0.5  # strong sections kept (0), weak ones held back (0), the item no section led 0.5


def test_a_model_is_fitted_only_where_holding_back_changes_the_cost():
    same = [{"id": "s", "features": _features(0.5), "kept": 0.5, "held": 0.5}]
    assert lead.fit_model(same, ["feature"]) is None  # nothing to learn from: the answer is the same either way
    assert lead.hold_probs(None, same, ["feature"]) == [0.0]  # no model holds nothing back


def test_an_entrys_applicability_is_read_with_its_evidence():
    entry = {**_features(0.8, "entry"), **{n: 1.0 for n in lead.ENTRY_NUMERIC}}
    records = [{"id": "e", "features": entry, "kept": 1.0, "held": 0.5}]
    assert lead.numeric(records) == lead.NUMERIC + lead.ENTRY_NUMERIC
    assert len(lead.matrix(records, [])[0]) == len(lead.NUMERIC) + len(lead.ENTRY_NUMERIC)
    docs = [{"id": "d", "features": _features(0.8), "kept": 1.0, "held": 0.5}]
    assert lead.matrix(docs, ["feature"]) == [[0.8, 0, 0, 0, 0.8, 0, 0, 0, 0, 0, 1.0]]


def test_no_model_is_claimed_when_the_fitting_side_has_one_outcome_only():
    same = [{"id": f"s{i}", "batch": "batch-2026-12-01", "features": _features(0.5), "kept": 1.0, "held": 0.5}
            for i in range(10)]  # fmt: skip
    assert lead.study(same, fit_batches=1)[0].startswith("No model")
