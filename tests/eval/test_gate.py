"""The CI gate: the full pipeline on the held-out split, with the thresholds of issues #3 and #9.

Real components throughout (the embedding model, an on-disk Chroma, BM25) over the curated corpus
plus the vLLM docs. Only held-out questions are scored (`assistant/eval/split.py`): the evidence
model and the abstention threshold were fitted, with cross-validation, on the other questions
(`eval/calibrate.py`), so these are out-of-sample numbers. Every near-miss is held out. If a
threshold fails, improve the pipeline; never lower a threshold to hide a regression or drop a hard query. When
harder questions join the sets, the floors follow the new measurement, and the comment below says so.
"""

from pathlib import Path

import pytest

from assistant.eval.runner import (
    DEFAULT_DOCS_DIR,
    EvalRun,
    build_index,
    eval_settings,
    failure_lines,
    paired_chinese,
    run_eval,
)
from assistant.models import Turn
from assistant.service import Assistant
from assistant.settings import Settings

SETS = ["seed", "docs", "docs_zh", "reports", "negatives", "near_miss"]
AWQ_ENTRY = "awq-batch-invariance-sm80"

# Issue #9's targets, and where the held-out measurement is below one, the level the gate holds instead. Measured
# (eval/results.md, held-out split, 2026-11-30, after 72 fresh items joined the sets): docs key-fact recall on the lead
# 0.815 = 22/27 (target 0.90); abstention recall 0.806 = 29/36 (target 0.90); false abstentions 0.110 = 9/82 (target
# 0.05); answered without the fix 0.122 = 10/82 (no target of its own). These floors stop a regression of more than
# one question; they are not the goal, and they only move towards it, with these exceptions said here:
# - false abstentions: 0.06 -> 0.09 when the `reports` set (GitHub issues as users file them) joined the gate (on
#   seed, docs and docs_zh it was 3/55 then), back to 0.08, then 0.08 -> 0.125 by choice: a pasted report or log now
#   has its own bar (`min_confidence_paste`, eval/calibration.md), and the three held-out reports it turned into
#   abstentions (rep-17, rep-18, rep-22) were all answered from a section without their fix before.
# - reports key-fact recall: 0.5 -> 0.4 when rep-17..rep-28, written without running the assistant on them, joined.
# - docs key-fact recall 0.90 -> 0.77, abstention recall 0.80 -> 0.77, answered without the fix 0.065 -> 0.135 and
#   reports key-fact recall 0.4 -> 0.3 when 72 more fresh items (doc-61..80, doczh-40..49, rep-29..40, neg-79..108,
#   written by people who never ran the assistant on them) joined; 23 of them are held out. That is a harder test,
#   not a regression: on the 95 held-out items of before, the same code scores false abstentions 5/65 (was 7/65),
#   answers without the fix 4/65 (was 3/65), abstention recall 25/30 (same) and docs key-fact recall 18/19 (same);
#   on the 23 new ones 4/17, 6/17, 4/6 and 4/8 (eval/README.md, "The second fresh batch").
DOCS_KEY_FACTS = 0.77  # target 0.90; one question below the measurement (21/27 = 0.778)
ABSTAIN_RECALL = 0.77  # target 0.90; one question below the measurement (28/36 = 0.778)
FALSE_ABSTENTION = 0.125  # target 0.05; one question above the measurement (10/82 = 0.122)
ANSWERED_WITHOUT_FIX = 0.135  # one question above the measurement (11/82 = 0.134)
REPORTS_KEY_FACTS = 0.3  # no target of its own; measured 0.385 = 5/13, one question below is 4/13 = 0.308


@pytest.fixture(scope="module")
def assistant() -> Assistant:
    if not Path(DEFAULT_DOCS_DIR).is_dir():
        pytest.fail(f"the gate needs the vLLM docs at {DEFAULT_DOCS_DIR}")
    a = Assistant(eval_settings(Settings(answer_backend="extractive")))
    build_index(a, DEFAULT_DOCS_DIR)
    return a


@pytest.fixture(scope="module")
def run(assistant) -> EvalRun:
    return run_eval(assistant.settings, SETS, ["full", "dense"], assistant=assistant, split="held_out")


def _row(run: EvalRun, set_name: str, system: str = "full") -> dict[str, float]:
    return next(r.metrics for r in run.rows if r.set == set_name and r.system == system)


def _failures(run: EvalRun, sets: tuple[str, ...], needle: str) -> str:
    lines = [f for f in failure_lines([r for r in run.results if r.item.set in sets], "full") if needle in f]
    return "\n".join(lines)


def test_seed_hit_at_1(run):
    value = _row(run, "seed")["hit@1"]
    assert value >= 0.95, f"seed hit@1 {value:.3f} < 0.95\n{_failures(run, ('seed',), 'top hit')}"


def test_near_miss_wrong_fix_rate(run):
    value = _row(run, "near_miss")["wrong_fix_rate"]
    assert value <= 0.10, (
        f"near-miss wrong-fix rate {value:.3f} > 0.10\n{_failures(run, ('near_miss',), 'gave the fix')}"
    )


@pytest.mark.parametrize("set_name, floor", [("seed", 0.9), ("docs", DOCS_KEY_FACTS), ("reports", REPORTS_KEY_FACTS)])
def test_key_fact_recall_on_the_lead(run, set_name, floor):
    value = _row(run, set_name)["key_fact_recall"]
    assert value >= floor, f"{set_name} key-fact recall {value:.3f} < {floor}\n{_failures(run, (set_name,), '')}"


def test_citation_validity(run):
    value = _row(run, "all")["citation_validity"]
    assert value == 1.0, f"citation validity {value:.3f} != 1.0\n{_failures(run, tuple(SETS), 'invalid citation')}"


def test_abstention_recall_on_negatives(run):
    value = _row(run, "all")["abstain_recall"]
    detail = _failures(run, ("negatives",), "answered a negative")
    assert value >= ABSTAIN_RECALL, (
        f"abstention recall {value:.3f} < {ABSTAIN_RECALL} (negatives abstained on)\n{detail}"
    )


def test_false_abstentions_on_answerable(run):
    value = _row(run, "all")["false_abstention"]
    detail = _failures(run, ("seed", "docs", "docs_zh", "reports"), "abstained on an answerable")
    assert value <= FALSE_ABSTENTION, (
        f"false abstentions {value:.3f} > {FALSE_ABSTENTION} (answerable abstained on)\n{detail}"
    )


def test_few_answers_lack_the_fix(run):
    value = _row(run, "all")["answered_without_fix"]
    detail = _failures(run, ("seed", "docs", "docs_zh", "reports"), "key facts missing")
    assert value <= ANSWERED_WITHOUT_FIX, (
        f"answered without the fix {value:.3f} > {ANSWERED_WITHOUT_FIX} (answerable answered, lead lacks a key fact)\n"
        f"{detail}"
    )


def test_chinese_renderings_reach_the_sources_of_their_english_twins(run):
    full, dense = paired_chinese(run.results, "full"), paired_chinese(run.results, "dense")
    assert full and full["n"] >= 5, "the held-out split has too few Chinese pairs to compare"
    assert full["zh_hit@3"] >= full["en_hit@3"] - 0.05, f"zh hit@3 {full['zh_hit@3']:.3f} vs en {full['en_hit@3']:.3f}"
    assert full["zh_hit@3"] >= dense["zh_hit@3"], (
        f"zh hit@3 {full['zh_hit@3']:.3f} < dense-only {dense['zh_hit@3']:.3f}"
    )


def test_a_slow_awq_model_does_not_get_the_batch_invariance_fix(assistant):
    answer = assistant.ask("A100 上 AWQ 模型吞吐很低")
    assert not answer.citations or answer.citations[0].id != AWQ_ENTRY, answer.body
    assert "60479" not in (answer.lead or answer.body), answer.body


def test_a_v100_is_told_the_known_entry_covers_sm80_86_89(assistant):
    answer = assistant.ask("VLLM_BATCH_INVARIANT=1 on a V100, outputs still differ")
    assert not answer.citations or answer.citations[0].id != AWQ_ENTRY, answer.body
    ruled_out = next(line for line in answer.body.splitlines() if "SM80, SM86, SM89" in line)
    assert "V100" in ruled_out and "is not offered" in ruled_out, answer.body
    assert "60479" not in answer.body, answer.body


def test_a_follow_up_answers_the_question_the_answer_asked(assistant):
    first = "VLLM_BATCH_INVARIANT=1 with my AWQ model, outputs still differ with the batch size"
    answer = assistant.ask(first)
    assert answer.citations[0].id == AWQ_ENTRY and "Which GPU" in answer.body, answer.body
    history = [Turn("user", first), Turn("assistant", answer.body)]
    on_a100 = assistant.ask("an A100", history)
    assert on_a100.citations[0].id == AWQ_ENTRY and "Which GPU" not in on_a100.body, on_a100.body
    on_v100 = assistant.ask("a V100", history)
    assert not on_v100.citations or on_v100.citations[0].id != AWQ_ENTRY, on_v100.body
