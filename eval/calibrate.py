"""Fit the evidence model and the abstention threshold with k-fold cross-validation; report out-of-fold numbers.

    python eval/calibrate.py [--index-dir DIR] [--docs-dir DIR] [--sets-dir DIR] [--write]

The evidence model (`assistant/retrieval/evidence.py`) is a logistic regression (scikit-learn) from a
hit's features (`Hit.features`: cosine, coverage, known share, channel agreement) to "answerable"; a
question scores its best top-k hit (the answer comes from the first hit over the bar), and learning uses an
answerable question's top hit and every hit of a negative. `Settings.min_confidence` is the cut below
which the assistant abstains.

Honest numbers need questions the fit never saw, so the queries are split deterministically
(`assistant/eval/split.py`): one in three is held out for the CI gate (`tests/eval/test_gate.py`) and
never used here. On the other two thirds (answerable: seed, docs, docs_zh, reports, and the whole of
entry_questions_fit; should abstain: negatives), 5-fold cross-validation gives every query a probability from a model fitted without it; the
thresholds are chosen on those out-of-fold probabilities. A question's (`min_confidence`) is the best
abstention recall among cuts that keep false abstentions on answerable questions at or under 5 %. A pasted
report or log (`min_confidence_paste`; its main error is an answer from a section without the fix, i.e.
neither a labelled source nor a text with every key fact) gets the cut of least expected cost, a wrong
answer costing 1 and an abstention on an answerable paste 0.5 (`assistant/eval/calibration.py`). The final model is then fitted on the whole fitting side. Prints
WEIGHTS, BIAS and the thresholds to put in `evidence.py` and `settings.py`, the out-of-fold and held-out
metrics; `--write` also writes `eval/calibration.md` with the list of the queries the fit used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.calibration import Sample, gives_fix, hit_probs, rates, report
from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, HELD_OUT_SETS, load_sets
from assistant.eval.release_corpus import build_release_index, release_settings
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings, release_items
from assistant.eval.split import FOLDS, is_held_out
from assistant.retrieval.evidence import BIAS, PROBLEM_BIAS, PROBLEM_WEIGHTS, WEIGHTS, is_paste
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings


def collect(assistant: Assistant, sets_dir: Path, docs_release: str | None = None) -> list[Sample]:
    """Each answerable question and negative with its hits' features; with `docs_release`, as scored on `make run`'s
    corpus for that release (each item with its labels there: a negative those docs answer is answerable)."""
    sets = load_sets("all", sets_dir)
    # Near-misses and the entry questions are held out whole: never fitted on, nor reported here.
    items = [
        item
        for name, chosen in sets.items()
        if (name in ANSWERABLE or name == "negatives") and name not in HELD_OUT_SETS
        for item in chosen
    ]
    if docs_release:
        items = release_items(items, docs_release)
    out = []
    for item in items:
        _, hits = assistant.retrieve(item.query)
        fixes = tuple(gives_fix(h.chunk, item) for h in hits) if item.answerable else ()
        out.append(Sample(item, item.answerable, tuple(h.features for h in hits), fixes))
    return out


def model_in_use(settings: Settings) -> tuple[list[float], float]:
    """evidence.py's model for these settings: with `problem_evidence`, the one with the problem share."""
    return (list(PROBLEM_WEIGHTS), PROBLEM_BIAS) if settings.problem_evidence else (list(WEIGHTS), BIAS)


def in_use_rows(samples: list[Sample], settings: Settings) -> list[str]:
    """The same rows for the model and bars in use (evidence.py, settings): what a refit is compared with."""
    probs = {s.item.id: hit_probs(*model_in_use(settings), s) for s in samples}
    bars = settings.evidence_bars
    which = "the problem-share model" if settings.problem_evidence else "the model"
    out = [f"In use: evidence.py's {which}, bars {bars[0]} (questions), {bars[1]} (pastes):", ""]
    out += ["| split | messages | answerable + negatives | abstention recall | false abstentions | without the fix |"]
    out += ["|---|---|---|---:|---:|---:|"]
    for name, held in (("fitting side", False), ("held out", True)):
        side = [s for s in samples if is_held_out(s.item) == held]
        for part, subset in (("questions", [s for s in side if not is_paste(s.item.query)]),
                             ("pastes", [s for s in side if is_paste(s.item.query)]), ("all", side)):  # fmt: skip
            r = rates(probs, subset, *bars[:2])  # the unnamed bar is fitted apart
            out.append(
                f"| {name} | {part} | {r.n_pos} + {r.n_neg} | {r.abstain_recall:.3f} | {r.false_abstention:.3f} "
                f"| {r.wrong_answer:.3f} |"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index-dir", type=Path, help="the eval index (default .index/eval)")
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS_DIR)
    p.add_argument(
        "--docs-release",
        metavar="VERSION",
        help="fit on what `make run` serves for vLLM VERSION (the entries, the release's docs and code facts;"
        " index .index/makerun-VERSION) instead of --docs-dir, each item with its labels there (not with --write)",
    )
    p.add_argument("--sets-dir", type=Path, default=DEFAULT_SETS_DIR)
    p.add_argument("--folds", type=int, default=FOLDS)
    p.add_argument(
        "--bars-only",
        action="store_true",
        help="keep the evidence model of evidence.py and only choose its bars on this corpus (what they would be on"
        " another corpus than the gate's, e.g. with --docs-release)",
    )
    p.add_argument("--write", action="store_true", help="also write eval/calibration.md")
    args = p.parse_args(argv)

    say = lambda m: print(m, file=sys.stderr)
    if (args.docs_release or args.bars_only) and args.write:
        p.error("--write records the gate's calibration: it cannot be combined with --docs-release or --bars-only")
    if args.docs_release:  # what `make run` serves: its index, built by the server's own start-up step
        settings = release_settings(Settings(answer_backend="extractive"), args.docs_release, args.index_dir)
        assistant = Assistant(settings)
        build_release_index(assistant, progress=say)
    else:
        assistant = Assistant(eval_settings(Settings(answer_backend="extractive"), args.index_dir))
        build_index(assistant, args.docs_dir, progress=say)
    samples = collect(assistant, args.sets_dir, args.docs_release)
    fitting = [s for s in samples if not is_held_out(s.item)]
    held = [s for s in samples if is_held_out(s.item)]
    model = model_in_use(assistant.settings) if args.bars_only else None
    lines = report(fitting, held, args.folds, model).lines
    print("\n".join(lines))
    print("\n" + "\n".join(in_use_rows(samples, assistant.settings)))
    if args.bars_only:
        print(f"Index: {assistant.retriever.lexical.n_docs} chunks (the size these bars are for)")
    if args.write:
        used = ", ".join(f"`{s.item.id}`" for s in sorted(fitting, key=lambda s: s.item.id))
        kept = ", ".join(f"`{s.item.id}`" for s in sorted(held, key=lambda s: s.item.id))
        text = "\n".join(
            ["# Calibration", "", "`python eval/calibrate.py --write` — generated; do not edit by hand.", "", *lines,
             "", f"## Queries the fit used ({len(fitting)})", "", used,
             "", f"## Held-out queries (gate only; plus every near-miss) ({len(held)})", "", kept, ""]
        )  # fmt: skip
        (REPO_ROOT / "eval" / "calibration.md").write_text(text, encoding="utf-8")
        print("wrote eval/calibration.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
