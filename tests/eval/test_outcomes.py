"""assistant/eval/outcomes.py: the cost of an outcome, and answers judged as the fresh batches and make run's eval
judge them."""

from __future__ import annotations

import json

from assistant.eval.dataset import Item
from assistant.eval.outcomes import cost, fresh_cost, fresh_items, makerun_cost, tally
from assistant.models import Answer, Citation


def test_the_cost_of_each_outcome():
    assert cost("answer", abstained=False, fix=True) == 0.0
    assert cost("answer", abstained=True, fix=False) == 0.5
    assert cost("answer", abstained=False, fix=False) == 1.0
    assert cost("abstain", abstained=False, fix=False) == 1.0
    assert cost("abstain", abstained=True, fix=False) == 0.0
    assert cost("not_fix", abstained=False, fix=False, wrong=True) == 1.0
    assert cost("not_fix", abstained=False, fix=False, wrong=False) == 0.0


def _answer(body: str, lead: str = "", abstained: bool = False) -> Answer:
    cites = () if abstained else (Citation(1, "some-entry", "Some entry", "https://example.org/x"),)
    return Answer(body=body, abstained=abstained, language="en", citations=cites, hits=(), lead=lead or body)


def test_a_fresh_answer_holds_the_fix_anywhere_in_its_text_a_makerun_answer_on_its_lead():
    item = Item(id="x-1", set="docs", query="q", lang="en", expect="answer", key_facts=("max[-_]model[-_]len",))
    whole = _answer("Lead without it.\n\nAlso relevant: pass --max-model-len 4096.", lead="Lead without it.")
    assert fresh_cost(item, whole) == 0.0  # the served text holds the fix
    assert makerun_cost(item, whole) == 1.0  # make run's eval reads the lead only
    assert fresh_cost(item, _answer("", abstained=True)) == 0.5
    negative = Item(id="x-2", set="negatives", query="q", lang="en", expect="abstain")
    assert fresh_cost(negative, whole) == 1.0 and fresh_cost(negative, _answer("", abstained=True)) == 0.0


def test_fresh_items_are_read_batch_by_batch_with_the_folders_name(tmp_path):
    for name, qid in (("batch-2026-12-02", "b-1"), ("batch-2026-12-01", "a-1")):
        (tmp_path / name).mkdir()
        row = {"id": qid, "query": "why?", "lang": "en", "relevant": [], "key_facts": ["x"], "expect": "answer"}
        (tmp_path / name / "docs.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (tmp_path / "pooled.jsonl").write_text("", encoding="utf-8")  # not a batch folder
    assert [(b, i.id) for b, i in fresh_items(tmp_path)] == [("batch-2026-12-01", "a-1"), ("batch-2026-12-02", "b-1")]


def test_a_tally_of_real_threads_counts_each_outcome_once():
    fix = Item(id="t-1", set="docs", query="q", lang="en", expect="answer", key_facts=("--max-num-seqs",))
    other = Item(id="t-2", set="reports", query="q", lang="en", expect="answer", key_facts=("--enforce-eager",))
    oos = Item(id="t-3", set="negatives", query="q", lang="en", expect="abstain")
    served = _answer("Lower --max-num-seqs.")
    t = tally([(fix, served), (other, served), (other, _answer("", abstained=True)), (oos, served),
               (oos, _answer("", abstained=True))])  # fmt: skip
    assert (t.answerable, t.fixed, t.without_fix, t.abstained) == (3, 1, 1, 1)
    assert (t.out_of_scope, t.out_of_scope_abstained) == (2, 1)
    assert t.fix_rate == 1 / 3 and t.without_fix_rate == 1 / 3 and t.out_of_scope_abstention == 0.5
    assert t.cost == 0.5 + 1 + 1  # abstained on an answerable one, one without its fix, one out of scope answered
