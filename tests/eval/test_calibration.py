"""Cross-validated calibration: out-of-fold probabilities, a threshold within the false-abstention budget."""

import random

from assistant.eval.calibration import Sample, choose_threshold, out_of_fold, rates, report, score
from assistant.eval.dataset import Item


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
    assert all(0.0 <= p <= 1.0 for p in oof.values())


def test_the_threshold_keeps_false_abstentions_within_budget_and_separates_the_classes():
    samples = _samples()
    chosen = choose_threshold(out_of_fold(samples, folds=5), samples)
    assert chosen.false_abstention <= 0.05
    assert chosen.abstain_recall >= 0.5  # the classes overlap a little; most negatives are still caught


def test_rates_count_each_class():
    samples = _samples(8)
    scores = {s.item.id: (0.9 if s.answerable else 0.1) for s in samples}
    r = rates(scores, samples, 0.5)
    assert (r.abstain_recall, r.false_abstention) == (1.0, 0.0)


def test_the_report_names_the_model_the_threshold_and_both_splits():
    samples = _samples()
    lines, weights, _bias, threshold = report(samples[:90], samples[90:], folds=5)
    text = "\n".join(lines)
    assert "WEIGHTS" in text and "out-of-fold" in text and "held out" in text
    assert len(weights) == 4 and 0 < threshold < 1


def test_a_question_scores_its_best_hit_and_negatives_teach_with_every_hit():
    item = Item(id="n", set="negatives", query="q", lang="en", expect="abstain")
    neg = Sample(item, False, ((0.1, 0.1, 0.1, 0.0), (0.9, 0.9, 0.9, 1.0)))
    pos = Sample(item, True, ((0.8, 0.8, 0.8, 1.0), (0.1, 0.1, 0.1, 0.0)))
    assert neg.training_rows == neg.hits and pos.training_rows == pos.hits[:1]
    weights, bias = [1.0, 1.0, 1.0, 1.0], -2.0
    assert score(weights, bias, neg) > 0.5 > score(weights, bias, Sample(item, False, neg.hits[:1]))
    assert score(weights, bias, Sample(item, False, ())) == 0.0
