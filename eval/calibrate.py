"""Where to put `min_confidence`: the evidence score of answerable vs unanswerable questions, and the best cut.

    python eval/calibrate.py [--index-dir DIR] [--docs-dir DIR] [--fit]

With `--fit` it first refits the evidence model itself: a logistic regression (scikit-learn) from the
top hit's features (`Hit.features`: cosine, coverage, known share, channel agreement) to "answerable",
over seed + docs (answerable) vs negatives, and prints the WEIGHTS and BIAS to put in
`assistant/retrieval/evidence.py`; the sweep below then shows the scores of the model in use.

For each question of the eval sets the full pipeline retrieves its hits; the score that decides
abstention is the highest `confidence` among them (`compose` answers from the first hit that clears
`min_confidence`, abstains when none does). Prints that score's distribution for answerable questions
(seed + docs), negatives and near-misses, then sweeps the threshold and reports the one that maximizes
abstention accuracy over negatives (should abstain) vs answerable (should answer). It changes nothing:
setting `min_confidence` is the pipeline owner's call.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.dataset import load_sets  # noqa: E402
from assistant.eval.metrics import percentile  # noqa: E402
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings  # noqa: E402
from assistant.service import Assistant  # noqa: E402
from assistant.settings import Settings  # noqa: E402

GROUPS = {"answerable": ("seed", "docs"), "negatives": ("negatives",), "near_miss": ("near_miss",)}


def deciding_scores(assistant: Assistant) -> dict[str, list[tuple[str, float]]]:
    sets = load_sets("all")
    out: dict[str, list[tuple[str, float]]] = {}
    for group, names in GROUPS.items():
        rows = []
        for item in (i for n in names for i in sets[n]):
            _, hits = assistant.retrieve(item.query)
            rows.append((item.id, max((h.confidence for h in hits), default=0.0)))
        out[group] = rows
    return out


def sweep(pos: list[float], neg: list[float]) -> tuple[float, float, float, float]:
    """(threshold, accuracy, lo, hi): abstain below the threshold; pos = should answer, neg = should abstain.

    Among the cuts with the best accuracy, those with the best balanced accuracy (the mean of both
    classes' recall: answerable questions outnumber negatives four to one), and among those the middle
    of the widest interval of equally good cuts.
    """
    values = sorted(set(pos + neg + [0.0, 1.0001]))
    cuts = [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[0]]
    total = len(pos) + len(neg)

    def accuracy(t: float) -> float:
        return (sum(p >= t for p in pos) + sum(n < t for n in neg)) / total

    def balanced(t: float) -> float:
        return (sum(p >= t for p in pos) / len(pos) + sum(n < t for n in neg) / len(neg)) / 2

    best = max((accuracy(t), balanced(t)) for t in cuts)
    good = sorted(t for t in cuts if (accuracy(t), balanced(t)) == best)
    lo_hi = [(max([v for v in values if v < t], default=0.0), min([v for v in values if v >= t], default=1.0)) for t in good]
    lo, hi = max(lo_hi, key=lambda p: p[1] - p[0])
    return (lo + hi) / 2, best[0], lo, hi


def fit_evidence(assistant: Assistant) -> tuple[list[float], float, float]:
    """(weights, bias, training accuracy at 0.5) of a logistic model over the top hit's features."""
    from sklearn.linear_model import LogisticRegression

    sets = load_sets("all")
    X, y = [], []
    for names, label in ((GROUPS["answerable"], 1), (GROUPS["negatives"], 0)):
        for item in (i for n in names for i in sets[n]):
            _, hits = assistant.retrieve(item.query)
            X.append(list(hits[0].features) if hits else [0.0, 0.0, 0.0, 0.0])
            y.append(label)
    model = LogisticRegression(C=10.0, max_iter=1000, class_weight="balanced").fit(X, y)  # 120 vs 33: both classes count alike
    return [round(float(w), 2) for w in model.coef_[0]], round(float(model.intercept_[0]), 2), float(model.score(X, y))


def histogram(values: list[float], width: int = 40) -> list[str]:
    bins = [0] * 20
    for v in values:
        bins[min(int(v * 20), 19)] += 1
    top = max(bins) or 1
    return [f"  {i / 20:.2f}-{(i + 1) / 20:.2f} {'#' * round(b / top * width):<{width}} {b}" for i, b in enumerate(bins) if b]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index-dir", type=Path, help="the eval index (default .index/eval)")
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS_DIR)
    p.add_argument("--fit", action="store_true", help="refit the evidence model's weights and print them")
    args = p.parse_args(argv)

    settings = eval_settings(Settings(answer_backend="extractive"), args.index_dir)
    assistant = Assistant(settings)
    build_index(assistant, args.docs_dir, progress=lambda m: print(m, file=sys.stderr))
    if args.fit:
        weights, bias, acc = fit_evidence(assistant)
        print(f"fitted evidence model: WEIGHTS = {tuple(weights)}  BIAS = {bias}  (training accuracy {acc:.3f})")
    scores = deciding_scores(assistant)

    for group, rows in scores.items():
        values = [v for _, v in rows]
        q = ", ".join(f"p{k} {percentile(values, k):.3f}" for k in (5, 25, 50, 75, 95))
        print(f"\n{group} (n={len(values)}): min {min(values):.3f}, {q}, max {max(values):.3f}")
        print("\n".join(histogram(values)))

    pos = [v for _, v in scores["answerable"]]
    neg = [v for _, v in scores["negatives"]]
    near = [v for _, v in scores["near_miss"]]
    t, acc, lo, hi = sweep(pos, neg)
    current = settings.min_confidence
    cur_acc = (sum(v >= current for v in pos) + sum(v < current for v in neg)) / (len(pos) + len(neg))
    print(f"\nbest min_confidence: {t:.3f} (any value in ({lo:.3f}, {hi:.3f}] is as good), abstention accuracy {acc:.3f}")
    for label, cut, a in (("best", t, acc), ("current", current, cur_acc)):
        wrong_abstain = [i for i, v in scores["answerable"] if v < cut]
        wrong_answer = [i for i, v in scores["negatives"] if v >= cut]
        print(
            f"  {label} {cut:.3f}: accuracy {a:.3f}; abstains on {len(wrong_abstain)}/{len(pos)} answerable "
            f"{wrong_abstain[:12]}; answers {len(wrong_answer)}/{len(neg)} negatives {wrong_answer[:12]}; "
            f"abstains on {sum(v < cut for v in near)}/{len(near)} near-misses"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
