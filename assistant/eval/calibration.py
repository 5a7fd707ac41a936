"""Fitting the evidence model and the abstention threshold with k-fold cross-validation (pure but for scikit-learn).

Used by `eval/calibrate.py`. A sample is one eval question with the features of each of its top-k
hits and, for an answerable question, whether each hit gives its fix. The assistant answers from the
first hit that clears the bar, so a question's score is its best hit's probability; the model (a
logistic regression to "answerable") learns from an answerable question's top hit and from every hit
of a negative (each of them must stay under the bar). The threshold is chosen on out-of-fold
probabilities, so the reported numbers are those of questions the model was not fitted on.

Two bars. A question (a message of at most PASTE_CHARS characters) is answered when its evidence clears
`min_confidence`: the best abstention recall among cuts that keep out-of-fold false abstentions within
MAX_FALSE_ABSTENTION. A pasted report or log is another population: retrieval puts a wrong section first
far more often, so its main error is the confident answer without the fix (an answerable question
answered from a hit that is neither a labelled source nor holds every key fact). Its bar,
`min_confidence_paste`, is the cut of least expected cost, a wrong answer (a negative answered, or an
answer without the fix) costing 1 and an abstention on an answerable question ABSTAIN_COST.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from assistant.eval.dataset import Item
from assistant.eval.metrics import judged_ids, key_fact_recall
from assistant.eval.split import FOLDS, fold_of
from assistant.models import Chunk
from assistant.retrieval.evidence import PASTE_CHARS, is_paste

MAX_FALSE_ABSTENTION = 0.05
# What abstaining on an answerable paste costs, a wrong answer costing 1: "I don't know, tell me X" (which still
# lists the closest sections) is far better than a confident wrong fix. Set from that rule, not fitted; at the last
# refit the pastes' cut was the same (0.537) for any value from 0.35 to 1 (at 0.25 it abstains on every paste).
ABSTAIN_COST = 0.5


@dataclass(frozen=True)
class Sample:
    item: Item
    answerable: bool
    hits: tuple[tuple[float, ...], ...]  # the evidence features of each top-k hit, in rank order
    gives_fix: tuple[bool, ...] = ()  # answerable: whether answering from each hit gives the fix (unknown: yes)

    @property
    def training_rows(self) -> tuple[tuple[float, ...], ...]:
        """An answerable question teaches with its top hit; a negative with every hit it retrieved."""
        return self.hits[:1] if self.answerable else self.hits

    def answers_right(self, rank: int) -> bool:
        return self.gives_fix[rank] if rank < len(self.gives_fix) else True


def gives_fix(chunk: Chunk, item: Item) -> bool:
    """Answering `item` from this chunk gives the fix: it is a labelled source, or its text holds every key fact."""
    labels = set(item.relevant)
    text = chunk.data.get("body") or chunk.lexical_text
    return judged_ids([chunk], labels)[0] in labels or key_fact_recall(text, False, item.key_facts) >= 1.0


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


def hit_probs(weights: list[float], bias: float, sample: Sample) -> tuple[float, ...]:
    return tuple(prob(weights, bias, f) for f in sample.hits)


def score(weights: list[float], bias: float, sample: Sample) -> float:
    """The question's score: its best hit's probability (0 when nothing was retrieved)."""
    return max(hit_probs(weights, bias, sample), default=0.0)


def out_of_fold(samples: list[Sample], folds: int = FOLDS) -> dict[str, tuple[float, ...]]:
    """Each sample's per-hit probabilities from the model fitted on the other folds."""
    out: dict[str, tuple[float, ...]] = {}
    for k in range(folds):
        test = [s for s in samples if fold_of(s.item, folds) == k]
        train = [s for s in samples if fold_of(s.item, folds) != k]
        if not test:
            continue
        weights, bias = fit(train)
        out.update({s.item.id: hit_probs(weights, bias, s) for s in test})
    return out


@dataclass(frozen=True)
class Rates:
    threshold: float
    abstain_recall: float  # negatives abstained on
    false_abstention: float  # answerable abstained on
    wrong_answer: float  # answerable answered from a hit that does not give the fix
    n_pos: int
    n_neg: int

    @property
    def balanced(self) -> float:
        return (self.abstain_recall + 1 - self.false_abstention) / 2

    @property
    def cost(self) -> float:
        """Expected cost per question of each class: a wrong answer 1, an abstention on an answerable ABSTAIN_COST."""
        terms = (1 - self.abstain_recall, self.wrong_answer, ABSTAIN_COST * self.false_abstention)
        return sum(0.0 if math.isnan(x) else x for x in terms)  # a class the samples lack costs nothing


def rates(
    probs: dict[str, tuple[float, ...]], samples: list[Sample], threshold: float, paste_threshold: float | None = None
) -> Rates:
    """What the assistant does at this cut (pastes at theirs, if given): it answers from the first hit over it, else abstains."""
    pos = [s for s in samples if s.answerable]
    neg = [s for s in samples if not s.answerable]

    def bar(s: Sample) -> float:
        return paste_threshold if paste_threshold is not None and is_paste(s.item.query) else threshold

    answered = {s.item.id: next((i for i, p in enumerate(probs[s.item.id]) if p >= bar(s)), None) for s in samples}
    nan = float("nan")
    return Rates(
        threshold,
        sum(answered[s.item.id] is None for s in neg) / len(neg) if neg else nan,
        sum(answered[s.item.id] is None for s in pos) / len(pos) if pos else nan,
        sum(r is not None and not s.answers_right(r) for s in pos for r in [answered[s.item.id]]) / len(pos)
        if pos
        else nan,
        len(pos),
        len(neg),
    )


def _cuts(probs: dict[str, tuple[float, ...]], samples: list[Sample]) -> list[Rates]:
    values = sorted({p for s in samples for p in probs[s.item.id]} | {0.0, 1.0})
    return [rates(probs, samples, (a + b) / 2) for a, b in itertools.pairwise(values)]


def choose_threshold(probs: dict[str, tuple[float, ...]], samples: list[Sample]) -> Rates:
    """The cut with the best abstention recall among those within the false-abstention budget (midpoint)."""
    candidates = _cuts(probs, samples)
    within = [r for r in candidates if r.false_abstention <= MAX_FALSE_ABSTENTION]
    pool = within or candidates
    key = (lambda r: (r.abstain_recall, -r.false_abstention)) if within else (lambda r: r.balanced)
    best = max(key(r) for r in pool)
    tied = [r for r in pool if key(r) == best]
    return rates(probs, samples, (tied[0].threshold + tied[-1].threshold) / 2)


def choose_paste_threshold(probs: dict[str, tuple[float, ...]], samples: list[Sample]) -> Rates:
    """The cut of least expected cost (the middle of the cuts that tie for it)."""
    candidates = _cuts(probs, samples)
    best = min(r.cost for r in candidates)
    tied = [r for r in candidates if r.cost <= best + 1e-12]
    return rates(probs, samples, (tied[0].threshold + tied[-1].threshold) / 2)


@dataclass(frozen=True)
class Calibration:
    weights: list[float]
    bias: float
    threshold: float  # min_confidence: questions
    paste_threshold: float  # min_confidence_paste: pasted reports and logs
    lines: list[str]


def report(
    fitting: list[Sample], held: list[Sample], folds: int, model: tuple[list[float], float] | None = None
) -> Calibration:
    """Fit the evidence model (k-fold) and its bars; with `model` (weights, bias), keep that model and only choose
    the bars, on the fitting side's probabilities under it (the bars of another corpus for the same model)."""
    if model is None:
        probs = out_of_fold(fitting, folds)
        split = f"out-of-fold ({folds}-fold, fitting side)"
        how = f"{folds}-fold out-of-fold probabilities"
    else:
        probs = {s.item.id: hit_probs(*model, s) for s in fitting}
        split = "fitting side"
        how = "the fitting side's probabilities under the model in evidence.py"
    asked = [s for s in fitting if not is_paste(s.item.query)]
    pasted = [s for s in fitting if is_paste(s.item.query)]
    questions = choose_threshold(probs, asked or fitting)
    pastes = choose_paste_threshold(probs, pasted) if pasted else questions  # no pastes to learn from: one bar
    weights, bias = fit(fitting) if model is None else model
    final = {s.item.id: hit_probs(weights, bias, s) for s in held}
    bars = (questions.threshold, pastes.threshold)
    w = ", ".join(f"{x:.2f}" for x in weights)
    rows = []
    for name, probs_of, samples in ((split, probs, fitting), ("held out", final, held)):
        for part, subset in (
            ("questions", [s for s in samples if not is_paste(s.item.query)]),
            ("pastes", [s for s in samples if is_paste(s.item.query)]),
            ("all", samples),
        ):
            r = rates(probs_of, subset, *bars)
            rows.append(
                f"| {name} | {part} | {r.n_pos} + {r.n_neg} | {r.abstain_recall:.3f} | {r.false_abstention:.3f} "
                f"| {r.wrong_answer:.3f} |"
            )
    n_pos = sum(s.answerable for s in fitting)
    lines = [
        (
            f"Fitting side: {n_pos} answerable + {len(fitting) - n_pos} negatives; held out: "
            f"{sum(s.answerable for s in held)} answerable + {sum(not s.answerable for s in held)} negatives "
            "(never fitted on)."
        ),
        (
            f"Evidence model (fitted on the whole fitting side): WEIGHTS = ({w})  BIAS = {bias:.2f}"
            if model is None
            else f"Evidence model kept (evidence.py): WEIGHTS = ({w})  BIAS = {bias:.2f}"
        ),
        (
            f"Thresholds (chosen on {how}): min_confidence = {questions.threshold:.3f} "
            f"(questions: best abstention recall with false abstentions ≤ {MAX_FALSE_ABSTENTION}); "
            f"min_confidence_paste = {pastes.threshold:.3f} (messages over {PASTE_CHARS} characters: least expected cost, "
            f"a wrong answer 1, an abstention on an answerable paste {ABSTAIN_COST})"
        ),
        "",
        (
            "| split | messages | answerable + negatives | abstention recall (negatives) "
            "| false abstentions (answerable) | answered from a hit without the fix |"
        ),
        "|---|---|---|---:|---:|---:|",
        *rows,
        "",
        (
            "These score each question by its best hit's evidence alone; the gate measures the whole pipeline "
            "(prompt-injection refusal and applicability included) on the held-out split."
        ),
    ]
    return Calibration(weights, bias, questions.threshold, pastes.threshold, lines)
