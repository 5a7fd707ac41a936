"""The CI gate: the full pipeline on the held-out split, with the thresholds of issues #3 and #9.

Real components throughout (the embedding model, an on-disk Chroma, BM25) over the curated corpus
plus the vLLM docs. Only held-out questions are scored (`assistant/eval/split.py`): the evidence
model and the abstention threshold were fitted, with cross-validation, on the other questions
(`eval/calibrate.py`), so these are out-of-sample numbers. Every near-miss is held out. If a
threshold fails, improve the pipeline; never lower a threshold to hide a regression or drop a hard query. When
harder questions join the sets, the floors follow the new measurement, and a row in floors.csv says so.
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
from tests.eval import floors

SETS = ["seed", "docs", "docs_zh", "reports", "negatives", "near_miss"]
# Issue 22's out-of-sample questions about the curated entries, each written from another real thread than the entry's
# own (eval/sets/entry_questions.jsonl), and their near-misses: scored in a run of their own, so that the figures of
# SETS above (and their floors) do not move with them. Targets: hit@1 0.85, key facts on the lead 0.85, wrong fix 0.10.
ENTRY_SETS = ["entry_questions", "entry_near_miss"]
AWQ_ENTRY = "awq-batch-invariance-sm80"

# The floors and their history (value, date, reason of every change) are in floors.csv beside this file; the last
# row of each is what the gate holds. Issue #9's targets, where a measurement is below one: docs key-fact recall on
# the lead 0.90, abstention recall 0.90, false abstentions 0.05. The floors stop a regression of more than one
# question; they are not the goal, and they only move towards it, except by a new row in floors.csv that says why
# (tests/eval/test_floors.py fails otherwise).
FLOOR = floors.latest()


def _check(name: str, value: float) -> str:
    return floors.check(name, value, FLOOR)


@pytest.fixture(scope="module")
def assistant(embedder) -> Assistant:
    """The session's embedder (the same model, its vectors kept), as the release gate's: the curated entries and the
    shared docs are embedded once per run, here or for `docs_assistant`, whichever comes first."""
    if not Path(DEFAULT_DOCS_DIR).is_dir():
        pytest.fail(f"the gate needs the vLLM docs at {DEFAULT_DOCS_DIR}")
    a = Assistant(eval_settings(Settings(answer_backend="extractive")), embedder=embedder)
    build_index(a, DEFAULT_DOCS_DIR)
    return a


@pytest.fixture(scope="module")
def run(assistant) -> EvalRun:
    return run_eval(assistant.settings, SETS, ["full", "dense"], assistant=assistant, split="held_out")


@pytest.fixture(scope="module")
def entry_run(assistant) -> EvalRun:
    return run_eval(assistant.settings, ENTRY_SETS, ["full"], assistant=assistant, split="held_out")


def _row(run: EvalRun, set_name: str, system: str = "full") -> dict[str, float]:
    return next(r.metrics for r in run.rows if r.set == set_name and r.system == system)


def _failures(run: EvalRun, sets: tuple[str, ...], needle: str) -> str:
    lines = [f for f in failure_lines([r for r in run.results if r.item.set in sets], "full") if needle in f]
    return "\n".join(lines)


def test_seed_hit_at_1(run):
    value = _row(run, "seed")["hit@1"]
    assert not (bad := _check("seed_hit_at_1", value)), f"{bad}\n{_failures(run, ('seed',), 'top hit')}"


def test_near_miss_wrong_fix_rate(run):
    value = _row(run, "near_miss")["wrong_fix_rate"]
    assert not (bad := _check("near_miss_wrong_fix", value)), f"{bad}\n{_failures(run, ('near_miss',), 'gave the fix')}"


@pytest.mark.parametrize("set_name", ["seed", "docs", "reports"])
def test_key_fact_recall_on_the_lead(run, set_name):
    value = _row(run, set_name)["key_fact_recall"]
    assert not (bad := _check(f"{set_name}_key_facts", value)), f"{bad}\n{_failures(run, (set_name,), '')}"


def _top_hit_misses(run: EvalRun, set_name: str) -> str:
    """Every question of `set_name` whose first hit is not relevant, abstained on or not (hit@1 counts both)."""
    return "\n".join(
        f"- `{r.item.id}` ({r.item.lang}): top hit {r.answer.hits[0].chunk.id if r.answer.hits else '-'}, "
        f"expected {', '.join(r.item.relevant)}{' (abstained)' if r.answer.abstained else ''}"
        for r in run.results
        if r.item.set == set_name and r.system == "full" and r.item.relevant and not r.retrieval.get("hit@1")
    )


def test_entry_questions_hit_at_1(entry_run):
    value = _row(entry_run, "entry_questions")["hit@1"]
    assert not (bad := _check("entry_hit_at_1", value)), f"{bad}\n{_top_hit_misses(entry_run, 'entry_questions')}"


def test_entry_questions_key_facts_on_the_lead(entry_run):
    value = _row(entry_run, "entry_questions")["key_fact_recall"]
    assert not (bad := _check("entry_key_facts", value)), f"{bad}\n{_failures(entry_run, ('entry_questions',), '')}"


def test_entry_near_miss_wrong_fix_rate(entry_run):
    value = _row(entry_run, "entry_near_miss")["wrong_fix_rate"]
    detail = _failures(entry_run, ("entry_near_miss",), "gave the fix")
    assert not (bad := _check("entry_near_miss_wrong_fix", value)), f"{bad}\n{detail}"


def test_citation_validity(run):
    value = _row(run, "all")["citation_validity"]
    assert not (bad := _check("citation_validity", value)), f"{bad}\n{_failures(run, tuple(SETS), 'invalid citation')}"


def test_abstention_recall_on_negatives(run):
    value = _row(run, "all")["abstain_recall"]
    detail = _failures(run, ("negatives",), "answered a negative")
    assert not (bad := _check("abstain_recall", value)), f"{bad} (negatives abstained on)\n{detail}"


def test_false_abstentions_on_answerable(run):
    value = _row(run, "all")["false_abstention"]
    detail = _failures(run, ("seed", "docs", "docs_zh", "reports"), "abstained on an answerable")
    assert not (bad := _check("false_abstention", value)), f"{bad} (answerable abstained on)\n{detail}"


def test_few_answers_lack_the_fix(run):
    value = _row(run, "all")["answered_without_fix"]
    detail = _failures(run, ("seed", "docs", "docs_zh", "reports"), "key facts missing")
    assert not (bad := _check("answered_without_fix", value)), (
        f"{bad} (answerable answered, lead lacks a key fact)\n{detail}"
    )


def test_chinese_renderings_reach_the_sources_of_their_english_twins(run):
    full, dense = paired_chinese(run.results, "full"), paired_chinese(run.results, "dense")
    assert full and not (bad := _check("chinese_pairs", full["n"])), f"too few Chinese pairs held out: {bad}"
    gap = full["zh_hit@3"] - full["en_hit@3"]
    assert not (bad := _check("zh_minus_en_hit_at_3", gap)), f"{bad}: zh hit@3 {full['zh_hit@3']:.3f} vs en"
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
