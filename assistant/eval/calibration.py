"""Fitting the evidence model and the abstention threshold with k-fold cross-validation (pure but for scikit-learn).

Used by `eval/calibrate.py`. A sample is one eval question with the features of each of its top-k
hits. The assistant answers from the first hit that clears the bar, so a question's score is its best
hit's probability; the model (a logistic regression to "answerable") learns from an answerable
question's top hit and from every hit of a negative (each of them must stay under the bar). The
threshold is chosen on out-of-fold scores, so the reported numbers are those of questions the model
was not fitted on.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from assistant.eval.dataset import Item
from assistant.eval.split import FOLDS, fold_of

MAX_FALSE_ABSTENTION = 0.05


@dataclass(frozen=True)
class Sample:
    item: Item
    answerable: bool
    hits: tuple[tuple[float, ...], ...]  # the evidence features of each top-k hit, in rank order

    @property
    def training_rows(self) -> tuple[tuple[float, ...], ...]:
        """An answerable question teaches with its top hit; a negative with every hit it retrieved."""
        return self.hits[:1] if self.answerable else self.hits


def fit(samples: list[Sample]) -> tuple[list[float], float]:
    from sklearn.linear_model import LogisticRegression

    rows = [(list(f), int(s.answerable)) for s in samples for f in s.training_rows]
    X = [x for x, _ in rows]
    y = [label for _, label in rows]
    # Answerable questions outnumber negatives: both classes count alike.
    model = LogisticRegression(C=10.0, max_iter=1000, class_weight="balanced").fit(X, y)
    return [float(w) for w in model.coef_[0]], float(model.intercept_[0])


def prob(weights: list[float], bias: float, features: tuple[float, ...]) -> float:
    z = bias + sum(w * x for w, x in zip(weights, features))
    return 1.0 / (1.0 + math.exp(-z))


def score(weights: list[float], bias: float, sample: Sample) -> float:
    """The question's score: its best hit's probability (0 when nothing was retrieved)."""
    return max((prob(weights, bias, f) for f in sample.hits), default=0.0)


def out_of_fold(samples: list[Sample], folds: int = FOLDS) -> dict[str, float]:
    """Each sample's probability from the model fitted on the other folds."""
    out: dict[str, float] = {}
    for k in range(folds):
        test = [s for s in samples if fold_of(s.item, folds) == k]
        train = [s for s in samples if fold_of(s.item, folds) != k]
        if not test:
            continue
        weights, bias = fit(train)
        out.update({s.item.id: score(weights, bias, s) for s in test})
    return out


@dataclass(frozen=True)
class Rates:
    threshold: float
    abstain_recall: float  # negatives abstained on
    false_abstention: float  # answerable abstained on
    n_pos: int
    n_neg: int

    @property
    def balanced(self) -> float:
        return (self.abstain_recall + 1 - self.false_abstention) / 2


def rates(scores: dict[str, float], samples: list[Sample], threshold: float) -> Rates:
    pos = [scores[s.item.id] for s in samples if s.answerable]
    neg = [scores[s.item.id] for s in samples if not s.answerable]
    return Rates(
        threshold,
        sum(v < threshold for v in neg) / len(neg) if neg else float("nan"),
        sum(v < threshold for v in pos) / len(pos) if pos else float("nan"),
        len(pos),
        len(neg),
    )


def choose_threshold(scores: dict[str, float], samples: list[Sample]) -> Rates:
    """The cut with the best abstention recall among those within the false-abstention budget (midpoint)."""
    values = sorted(set(scores.values()) | {0.0, 1.0})
    cuts = [(a + b) / 2 for a, b in itertools.pairwise(values)]
    candidates = [rates(scores, samples, t) for t in cuts]
    within = [r for r in candidates if r.false_abstention <= MAX_FALSE_ABSTENTION]
    pool = within or candidates
    key = (lambda r: (r.abstain_recall, -r.false_abstention)) if within else (lambda r: r.balanced)
    best = max(key(r) for r in pool)
    tied = [r for r in pool if key(r) == best]
    return rates(scores, samples, (tied[0].threshold + tied[-1].threshold) / 2)


def report(fitting: list[Sample], held: list[Sample], folds: int) -> tuple[list[str], list[float], float, float]:
    oof = out_of_fold(fitting, folds)
    chosen = choose_threshold(oof, fitting)
    weights, bias = fit(fitting)
    final = {s.item.id: score(weights, bias, s) for s in held}
    held_rates = rates(final, held, chosen.threshold)
    w = ", ".join(f"{x:.2f}" for x in weights)
    lines = [
        (
            f"Fitting side: {chosen.n_pos} answerable + {chosen.n_neg} negatives; held out: "
            f"{held_rates.n_pos} answerable + {held_rates.n_neg} negatives (never fitted on)."
        ),
        f"Evidence model (fitted on the whole fitting side): WEIGHTS = ({w})  BIAS = {bias:.2f}",
        f"Threshold (chosen on {folds}-fold out-of-fold probabilities): min_confidence = {chosen.threshold:.3f}",
        "",
        "| split | abstention recall (negatives) | false abstentions (answerable) |",
        "|---|---:|---:|",
        f"| out-of-fold ({folds}-fold, fitting side) | {chosen.abstain_recall:.3f} | {chosen.false_abstention:.3f} |",
        f"| held out (final model) | {held_rates.abstain_recall:.3f} | {held_rates.false_abstention:.3f} |",
        "",
        (
            "These score each question by its best hit's evidence alone; the gate measures the whole pipeline "
            "(prompt-injection refusal and applicability included) on the held-out split."
        ),
    ]
    return lines, weights, bias, chosen.threshold
