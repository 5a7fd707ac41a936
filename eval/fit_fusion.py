"""Choose the fusion weights of the retrieval channels on the fitting side of the eval split only.

    python eval/fit_fusion.py [--docs-release 0.33.0] [--also-gate]

For each question language (English, Chinese), every weight combination of a small grid (MiniLM "dense",
BM25 "lexical", the multilingual USE model "use") ranks the fitting side's answerable questions (seed,
docs, docs_zh, reports; the held-out third is never read), and the combination with the best mean MRR@10
over the labelled ones wins; ties go to the smaller USE weight. With `--docs-release` the ranking is done
on that release's docs (what `make run` serves), with `--also-gate` on the gate's corpus too, and the
objective is the mean over the corpora. Prints each language's table and the `WEIGHTS_USE` to put in
`assistant/retrieval/fusion.py`. Needs `use_channel` on and every chunk's USE vector (the eval's index build
stores them).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, load_sets
from assistant.eval.metrics import first_label_figures
from assistant.eval.release_corpus import build_release_index, release_settings
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings, release_items
from assistant.eval.split import is_held_out
from assistant.models import Query
from assistant.retrieval.query import analyze
from assistant.service import Assistant
from assistant.settings import Settings
from assistant.text.lang import detect_lang

DENSE = {"en": (0.3, 0.5, 0.7), "zh": (0.2, 0.35, 0.5)}  # the MiniLM share of MiniLM + BM25 (sums to 1)
USE = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)  # the USE weight beside them


def analysed(assistant: Assistant, items) -> dict[str, Query]:
    """Each item's analysed query, embedded by both models: analysed once, ranked under every weight."""
    return {item.id: assistant.retriever.embedded(analyze(item.query)) for item in items}


def ranks(
    assistant: Assistant, items, queries: dict[str, Query], weights: dict[str, dict[str, float]]
) -> dict[str, tuple[float, float, float]]:
    """item id -> (reciprocal rank in the top 10, hit@1, hit@3) under `weights`."""
    assistant.retriever.weights = weights
    out = {}
    for item in items:
        hits = assistant.retriever.search(queries[item.id], 10)
        out[item.id] = first_label_figures([h.chunk for h in hits], item.relevant)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-release", metavar="VERSION", help="rank on vLLM VERSION's own docs (.index/eval-VERSION)")
    p.add_argument("--also-gate", action="store_true", help="with --docs-release: the gate's corpus counts too")
    p.add_argument("--sets-dir", type=Path, default=DEFAULT_SETS_DIR)
    p.add_argument("--lang", choices=("en", "zh"), action="append", help="fit this language only (repeatable)")
    p.add_argument("--use", type=float, nargs="+", default=list(USE), help="the USE weights to try")
    p.add_argument("--dense", type=float, nargs="+", help="the MiniLM shares to try (default: per language)")
    args = p.parse_args(argv)
    say = lambda m: print(m, file=sys.stderr, flush=True)

    corpora: list[tuple[Assistant, str | None]] = []  # each corpus with the release whose labels it is scored on
    if args.docs_release is None or args.also_gate:
        gate = Assistant(eval_settings(Settings(answer_backend="extractive", use_channel=True)))
        build_index(gate, DEFAULT_DOCS_DIR, progress=say)
        corpora.append((gate, None))
    if args.docs_release:  # make run's corpus, built by the server's own start-up step
        release = Assistant(release_settings(Settings(answer_backend="extractive", use_channel=True), args.docs_release))
        build_release_index(release, progress=say)
        corpora.append((release, args.docs_release))
    for a, _ in corpora:
        if a.retriever.use_matrix() is None:
            raise SystemExit(f"the index at {a.store.location} lacks USE vectors")

    sets = load_sets("all", args.sets_dir)
    every = [i for name in ANSWERABLE for i in sets.get(name, []) if not is_held_out(i)]
    chosen: dict[str, dict[str, float]] = {}
    for lang in args.lang or ("en", "zh"):
        mine = [i for i in every if detect_lang(i.query) == lang]  # the weights retrieval will use for it
        # Each corpus scores the items with its own labels (a release's sections); unlabelled items are left out.
        labelled = [[i for i in (release_items(mine, r) if r else mine) if i.relevant] for _, r in corpora]
        items = labelled[0]
        say(f"{lang}: {', '.join(str(len(x)) for x in labelled)} labelled fitting questions")
        queries = [analysed(a, x) for (a, _), x in zip(corpora, labelled)]
        table = []
        for d, u in itertools.product(args.dense or DENSE[lang], args.use):
            w = {"dense": d, "lexical": round(1 - d, 3), "use": u}
            weights = {"en": w, "zh": w}  # only this language's questions are ranked
            per = [ranks(a, x, q, weights) for (a, _), x, q in zip(corpora, labelled, queries)]
            mrr = sum(sum(r[0] for r in c.values()) / len(c) for c in per) / len(per)
            h1 = sum(sum(r[1] for r in c.values()) / len(c) for c in per) / len(per)
            h3 = sum(sum(r[2] for r in c.values()) / len(c) for c in per) / len(per)
            table.append((mrr, h1, h3, w))
            say(f"  {lang} dense {d} lexical {1 - d:.2f} use {u}: MRR@10 {mrr:.3f} hit@1 {h1:.3f} hit@3 {h3:.3f}")
        best = max(table, key=lambda row: (round(row[0], 4), -row[3]["use"]))
        chosen[lang] = best[3]
        print(f"## {lang} ({len(items)} fitting questions, {len(corpora)} corpora)")
        print("| dense | lexical | use | MRR@10 | hit@1 | hit@3 |")
        print("|---:|---:|---:|---:|---:|---:|")
        for mrr, h1, h3, w in sorted(table, key=lambda row: -row[0]):
            print(f"| {w['dense']} | {w['lexical']} | {w['use']} | {mrr:.3f} | {h1:.3f} | {h3:.3f} |")
        print()
    print(f"WEIGHTS_USE = {chosen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
