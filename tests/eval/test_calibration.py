"""Cross-validated calibration: out-of-fold probabilities, a question bar within the false-abstention budget, a paste bar."""

import math
import random

import pytest

from assistant.eval.calibration import (
    Sample,
    choose_paste_threshold,
    choose_threshold,
    gives_fix,
    out_of_fold,
    rates,
    report,
    score,
)
from assistant.eval.dataset import Item
from assistant.models import Chunk


def _samples(n: int = 120, seed: int = 7) -> list[Sample]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        answerable = i % 4 != 0  # three answerable questions to one negative, as in the eval sets
        centre = 0.7 if answerable else 0.35
        hits = tuple(
            tuple(min(1.0, max(0.0, rng.gauss(centre - 0.05 * rank, 0.15))) for _ in range(3))
            + (float(answerable and i % 3 == 0 and rank == 0),)
            for rank in range(3)
        )
        expect = "answer" if answerable else "abstain"
        out.append(Sample(Item(id=f"q-{i}", set="docs", query="q", lang="en", expect=expect), answerable, hits))
    return out


def test_every_sample_gets_an_out_of_fold_probability():
    samples = _samples()
    oof = out_of_fold(samples, folds=5)
    assert set(oof) == {s.item.id for s in samples}
    assert all(len(ps) == 3 and all(0.0 <= p <= 1.0 for p in ps) for ps in oof.values())


def test_the_threshold_keeps_false_abstentions_within_budget_and_separates_the_classes():
    samples = _samples()
    chosen = choose_threshold(out_of_fold(samples, folds=5), samples)
    assert chosen.false_abstention <= 0.05
    assert chosen.abstain_recall >= 0.5  # the classes overlap a little; most negatives are still caught


def test_rates_count_each_class():
    samples = _samples(8)
    probs = {s.item.id: (0.9 if s.answerable else 0.1, 0.2) for s in samples}
    r = rates(probs, samples, 0.5)
    assert (r.abstain_recall, r.false_abstention, r.wrong_answer) == (1.0, 0.0, 0.0)


def test_an_answer_from_a_hit_without_the_fix_counts_as_wrong():
    item = Item(id="a", set="docs", query="q", lang="en", expect="answer")
    sample = Sample(item, True, ((0.5,) * 4, (0.5,) * 4), gives_fix=(False, True))
    # The assistant answers from the first hit over the bar: the wrong one at 0.5, the right one when it alone clears it.
    assert rates({"a": (0.6, 0.7)}, [sample], 0.5).wrong_answer == 1.0
    assert rates({"a": (0.4, 0.7)}, [sample], 0.5).wrong_answer == 0.0
    assert rates({"a": (0.4, 0.45)}, [sample], 0.5).false_abstention == 1.0


def test_the_report_names_the_model_both_bars_and_both_splits():
    samples = _samples()
    cal = report(samples[:90], samples[90:], folds=5)
    text = "\n".join(cal.lines)
    assert "WEIGHTS" in text and "out-of-fold" in text and "held out" in text and "min_confidence_paste" in text
    assert len(cal.weights) == 4 and 0 < cal.threshold < 1 and 0 < cal.paste_threshold < 1


def test_with_a_model_kept_the_report_chooses_only_the_bars():
    samples = _samples()
    model = ([1.0, 1.0, 1.0, 0.5], -2.0)
    cal = report(samples[:90], samples[90:], folds=5, model=model)
    text = "\n".join(cal.lines)
    assert (cal.weights, cal.bias) == model  # not refitted
    assert "Evidence model kept" in text and "out-of-fold" not in text and "| fitting side |" in text
    probs = {s.item.id: tuple(1 / (1 + math.exp(2.0 - sum(h[:3]) - 0.5 * h[3])) for h in s.hits) for s in samples[:90]}
    assert cal.threshold == pytest.approx(choose_threshold(probs, samples[:90]).threshold)  # these probabilities' bar


def test_a_paste_is_held_to_its_own_bar_chosen_for_least_cost():
    def item(i: int, paste: bool, answerable: bool) -> Item:
        return Item(id=f"p{i}", set="reports", query="x" * (900 if paste else 50), lang="en",
                    expect="answer" if answerable else "abstain")  # fmt: skip

    # Pastes: right answers score 0.9, wrong ones (first hit without the fix) 0.6, negatives 0.5.
    right = [Sample(item(i, True, True), True, ((0.0,) * 4,), (True,)) for i in range(4)]
    wrong = [Sample(item(10 + i, True, True), True, ((0.0,) * 4,), (False,)) for i in range(2)]
    negs = [Sample(item(20 + i, True, False), False, ((0.0,) * 4,)) for i in range(2)]
    probs = {
        **{s.item.id: (0.9,) for s in right},
        **{s.item.id: (0.6,) for s in wrong},
        **{s.item.id: (0.5,) for s in negs},
    }
    chosen = choose_paste_threshold(probs, right + wrong + negs)
    # Abstaining on the two wrong answers (cost 0.5 each) beats giving them (1 each): the cut lands above 0.6.
    assert 0.6 < chosen.threshold <= 0.9 and chosen.wrong_answer == 0.0 and chosen.abstain_recall == 1.0
    # A short question with the same score is held to the question bar instead.
    short = Sample(item(30, False, True), True, ((0.0,) * 4,), (False,))
    r = rates({**probs, "p30": (0.6,)}, right + wrong + negs + [short], 0.5, chosen.threshold)
    assert r.wrong_answer == 1 / 7


def test_a_question_scores_its_best_hit_and_negatives_teach_with_every_hit():
    item = Item(id="n", set="negatives", query="q", lang="en", expect="abstain")
    neg = Sample(item, False, ((0.1, 0.1, 0.1, 0.0), (0.9, 0.9, 0.9, 1.0)))
    pos = Sample(item, True, ((0.8, 0.8, 0.8, 1.0), (0.1, 0.1, 0.1, 0.0)))
    assert neg.training_rows == neg.hits and pos.training_rows == pos.hits[:1]
    weights, bias = [1.0, 1.0, 1.0, 1.0], -2.0
    assert score(weights, bias, neg) > 0.5 > score(weights, bias, Sample(item, False, neg.hits[:1]))
    assert score(weights, bias, Sample(item, False, ())) == 0.0


def test_a_hit_gives_the_fix_when_it_is_labelled_or_holds_every_key_fact():
    item = Item(id="d", set="docs", query="q", lang="en", expect="answer", relevant=("docs/a.md#fix",),
                key_facts=("--max-num-seqs", "gpu_memory_utilization"))  # fmt: skip

    def chunk(cid: str, body: str) -> Chunk:
        return Chunk(id=cid, kind="doc", title="t", source=cid.split("~")[0], origin="o", dense_text=body,
                     lexical_text=body, data={"body": body})  # fmt: skip

    assert gives_fix(chunk("docs/a.md#fix~2", "another part of the labelled section"), item)
    assert gives_fix(chunk("docs/b.md#other", "Lower --max-num-seqs or raise gpu_memory_utilization."), item)
    assert not gives_fix(chunk("docs/b.md#other", "Lower --max-num-seqs."), item)  # one key fact of two
