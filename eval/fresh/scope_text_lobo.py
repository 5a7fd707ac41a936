"""Can the message's text alone tell an out-of-scope thread from an answerable one? A study, not a product part.

    HF_HUB_OFFLINE=1 python eval/fresh/scope_text_lobo.py eval/fresh/batch-*

Each message (its first 2,000 characters) is embedded by the two dense models the assistant already runs
(MiniLM and the multilingual USE), and a logistic regression over both vectors predicts "out of scope". Scored
three ways, each out of sample:
- leave one batch out over the fresh batches (fitted on the others);
- fitted on every fresh batch and applied to `eval/sets/` (near-miss sets left out): the share of each set's items
  it would call out of scope;
- fitted on `eval/sets/` and applied to the fresh batches.
Prints ROC AUCs and, for the second, the flagged share per set at three cuts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CUTS = (0.6, 0.7, 0.8)


def _items(folder: Path, skip: tuple[str, ...] = ()) -> list[tuple[str, object]]:
    from assistant.eval.dataset import SETS, load_sets

    names = [n for n in SETS if (folder / f"{n}.jsonl").is_file() and n not in skip]
    return [(name, item) for name, items in load_sets(names, folder).items() for item in items]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path, help="fresh batch folders")
    parser.add_argument("--sets", type=Path, default=ROOT / "eval" / "sets", help="the eval sets (default eval/sets)")
    args = parser.parse_args(argv)

    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from assistant.index.embedder import make_embedder
    from assistant.index.use_embedder import UseEmbedder
    from assistant.settings import Settings

    fresh = [(d.name, item) for d in args.dirs for _, item in _items(d)]
    sets = _items(args.sets, skip=("near_miss", "entry_near_miss"))
    texts = [item.query[:2000] for _, item in fresh + sets]
    x = np.hstack([make_embedder(Settings()).embed(texts), UseEmbedder().embed(texts)])
    y = np.array([0 if item.answerable else 1 for _, item in fresh + sets])
    n = len(fresh)
    batch = np.array([b for b, _ in fresh])

    def fit(rows) -> LogisticRegression:
        return LogisticRegression(C=1.0, max_iter=2000).fit(x[rows], y[rows])

    scores = np.zeros(n)
    for b in sorted(set(batch)):
        held = np.flatnonzero(batch == b)
        scores[held] = fit(np.flatnonzero(batch != b)).predict_proba(x[held])[:, 1]
    print(f"leave one batch out, {n} fresh items ({int(y[:n].sum())} out of scope): AUC {roc_auc_score(y[:n], scores):.3f}")

    on_sets = fit(np.arange(n)).predict_proba(x[n:])[:, 1]
    print("\nfitted on every fresh batch, the share of each eval set it calls out of scope:\n")
    names = sorted({name for name, _ in sets})
    print("| cut | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for cut in CUTS:
        cells = []
        for name in names:
            mine = [s for (nm, _), s in zip(sets, on_sets, strict=True) if nm == name]
            cells.append(f"{sum(s > cut for s in mine)}/{len(mine)}")
        print(f"| {cut} | " + " | ".join(cells) + " |")

    back = fit(np.arange(n, len(texts))).predict_proba(x[:n])[:, 1]
    print(f"\nfitted on eval/sets, applied to the fresh batches: AUC {roc_auc_score(y[:n], back):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
