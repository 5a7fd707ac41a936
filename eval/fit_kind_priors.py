"""Fit the prior of each page kind on the fitting side of the eval split, on what `make run` serves.

    python eval/fit_kind_priors.py [--docs-release 0.33.0] [--also-gate] [--write]

The retriever orders the docs sections among the ranks they hold by fused score × the prior of their page's kind
(`assistant/retrieval/page_kind.py`: troubleshooting, feature guide, configuration reference, integration, design,
contributing...); a curated entry keeps its rank. The priors are learned, not chosen: for the fitting side's
labelled questions (seed, docs, docs_zh, reports, and the negatives a release's docs answer; the held-out third and
the entry questions are never fitted on), every fused candidate is read once with its score, and a listwise model,
P(section) ∝ (score × prior of its kind) ** t over the docs sections among a question's best `TOP` candidates, is
fitted by maximum likelihood of the labelled ones, with an L2 penalty λ·Σ log(prior)²
that pulls each prior to 1: a kind seen in few questions stays neutral. Only docs pages get a prior, centred
(`assistant/eval/kind_priors.py` says why). λ is chosen by 5-fold cross-validation on the fitting side (the folds of
`assistant/eval/split.py`), as the one whose out-of-fold MRR@10 is best (no prior at all is a candidate too); the
priors are then fitted on the whole fitting side with it. Prints the priors (for `Settings.page_kind_priors`) and
MRR@10 / hit@1 / hit@3 without and with them: on the fitting side, out of fold, and held out (make run's corpus,
and with `--also-gate` the gate's corpus). These are retrieval figures; whether the answers gain is the full
eval's to say (eval/README.md, "What kind of page it is"). `--write` also writes eval/kind_priors.md.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, Item, load_sets
from assistant.eval.kind_priors import (
    LAMBDAS,
    Candidates,
    chosen_strength,
    cross_validated,
    figures,
    fit,
    label_keys,
    strengths_by_language,
)
from assistant.eval.release_corpus import build_release_index, release_settings
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings, release_items
from assistant.eval.split import FOLDS, is_held_out
from assistant.retrieval.page_kind import page_kind
from assistant.retrieval.query import analyze
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings


def collect(assistant: Assistant, items: Sequence[Item]) -> list[Candidates]:
    """Every fused candidate of each item with its score before any prior (the retriever's `candidates`)."""
    retriever = assistant.retriever
    retriever.kind_priors = {}
    out = []
    for item in items:
        query = retriever.embedded(analyze(item.query))
        groups = retriever.candidates(query, 10**6)
        rows = tuple(tuple((h.chunk, h.score, page_kind(h.chunk)) for h in g) for g in groups)
        out.append(Candidates(item, rows, query.lang))
    retriever.kind_priors = None
    return out


def labelled(sets_dir: Path, release: str | None) -> list[Item]:
    """The answerable questions (and negatives a release's docs answer) with their labels on that corpus. The sets
    held out whole (the entry questions) are among them: `is_held_out` keeps them out of the fit, and they are
    judged with the rest of the held-out split."""
    sets = load_sets("all", sets_dir)
    items = [i for name, chosen in sets.items() if name in ANSWERABLE or name == "negatives" for i in chosen]
    if release:
        items = release_items(items, release)
    return [i for i in items if i.answerable and i.relevant]


def _row(name: str, n: int, before: tuple, after: tuple) -> str:
    b, a = before, after
    return f"| {name} | {n} | {b[0]:.3f} → {a[0]:.3f} | {b[1]:.3f} → {a[1]:.3f} | {b[2]:.3f} → {a[2]:.3f} |"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-release", metavar="VERSION", default="0.33.0", help="make run's corpus for this release")
    p.add_argument("--also-gate", action="store_true", help="also report the priors' effect on the gate's corpus")
    p.add_argument("--sets-dir", type=Path, default=DEFAULT_SETS_DIR)
    p.add_argument("--lambdas", type=float, nargs="+", default=list(LAMBDAS), help="the penalties to cross-validate")
    p.add_argument("--folds", type=int, default=FOLDS)
    p.add_argument("--write", action="store_true", help="also write eval/kind_priors.md")
    args = p.parse_args(argv)
    say = lambda m: print(m, file=sys.stderr, flush=True)

    release = Assistant(release_settings(Settings(answer_backend="extractive"), args.docs_release))
    build_release_index(release, progress=say)
    every = collect(release, labelled(args.sets_dir, args.docs_release))
    fitting = [c for c in every if not is_held_out(c.item)]
    held = [c for c in every if is_held_out(c.item)]
    say(f"{len(fitting)} fitting, {len(held)} held-out labelled questions on vLLM {args.docs_release}'s corpus")

    gate_fit: list[Candidates] = []
    if args.also_gate:
        gate = Assistant(eval_settings(Settings(answer_backend="extractive")))
        build_index(gate, DEFAULT_DOCS_DIR, progress=say)
        g = collect(gate, labelled(args.sets_dir, None))
        gate_held, gate_fit = [c for c in g if is_held_out(c.item)], [c for c in g if not is_held_out(c.item)]

    lines = [f"## λ by {args.folds}-fold cross-validation on the fitting side ({len(fitting)} questions)", ""]
    lines += ["| λ | out-of-fold MRR@10 | hit@1 | hit@3 |", "|---:|---:|---:|---:|"]
    none = figures(fitting, {})
    lines.append(f"| no prior | {none[0]:.3f} | {none[1]:.3f} | {none[2]:.3f} |")
    table = []
    for lam in args.lambdas:
        oof = cross_validated(fitting, lam, args.folds)
        table.append((oof, lam))
        lines.append(f"| {lam:g} | {oof[0]:.3f} | {oof[1]:.3f} | {oof[2]:.3f} |")
        say(lines[-1])
    best_oof, lam = max(table, key=lambda row: (round(row[0][0], 4), row[1]))  # ties: the stronger pull to 1
    chosen = fit(fitting, lam) if best_oof[0] > none[0] else {}
    lines += ["", f"Chosen: λ = {lam:g}" if chosen else "Chosen: no prior (no λ beats it out of fold)", ""]
    strength: dict[str, float] = {}
    if chosen:
        corpora = [fitting, gate_fit] if gate_fit else [fitting]
        table = strengths_by_language(fitting, corpora, lam, args.folds)
        strength = {lang: chosen_strength(row) for lang, row in sorted(table.items())}
        grid = sorted(next(iter(table.values())))
        lines += [
            f"## The strength per question language ({args.folds}-fold, λ = {lam:g})",
            "",
            "The priors are raised to a strength per language (prior ** s; 0 is none), chosen by the out-of-fold "
            "MRR@10 of that language's fitting questions, the mean over "
            + ("make run's corpus and the gate's" if gate_fit else "make run's corpus")
            + " (a tie: the weaker strength).",
            "",
            "| language | questions | " + " | ".join(f"s = {x:g}" for x in grid) + " | chosen |",
            "|---|---:|" + "---:|" * len(grid) + "---:|",
        ]
        for lang, row in sorted(table.items()):
            n = sum(c.language == lang for c in fitting)
            lines.append(f"| {lang} | {n} | " + " | ".join(f"{row[x]:.3f}" for x in grid) + f" | {strength[lang]:g} |")
        lines.append("")

    appear = Counter(k for c in fitting for g in c.groups for _, _, k in g)
    answers = Counter(
        k for c in fitting for k in {t[2] for g in c.groups for t, key in zip(g, label_keys([x[0] for x in g], c.item.relevant))
                                     if key in set(c.item.relevant)}
    )  # fmt: skip
    lines += [
        "## The priors",
        "",
        "| kind | fitting questions it answers | candidates | prior |",
        "|---|---:|---:|---:|",
    ]
    for k in sorted(appear, key=lambda k: -chosen.get(k, 1.0)):
        lines.append(f"| {k} | {answers[k]} | {appear[k]} | {chosen.get(k, 1.0):.3f} |")
    lines += [
        "",
        "## Without → with the priors",
        "",
        "| questions | n | MRR@10 | hit@1 | hit@3 |",
        "|---|---:|---:|---:|---:|",
    ]
    lines.append(_row(f"make run ({args.docs_release}), fitting side (in sample)", len(fitting), none,
                      figures(fitting, chosen)))  # fmt: skip
    if chosen:
        lines.append(f"| make run ({args.docs_release}), fitting side, out of fold | {len(fitting)} | {none[0]:.3f} → "
                     f"{best_oof[0]:.3f} | {none[1]:.3f} → {best_oof[1]:.3f} | {none[2]:.3f} → {best_oof[2]:.3f} |")  # fmt: skip
    lines.append(_row(f"make run ({args.docs_release}), held out", len(held), figures(held, {}), figures(held, chosen)))
    if args.also_gate:
        lines.append(_row("gate corpus, fitting side", len(gate_fit), figures(gate_fit, {}), figures(gate_fit, chosen)))
        lines.append(_row("gate corpus, held out", len(gate_held), figures(gate_held, {}), figures(gate_held, chosen)))
    if strength:
        lines += ["", "With each language's strength (the rows above: strength 1 for every language):", ""]
        lines += ["| questions | n | MRR@10 | hit@1 | hit@3 |", "|---|---:|---:|---:|---:|"]
        rows = [(f"make run ({args.docs_release}), fitting side", fitting), (f"make run ({args.docs_release}), held out", held)]
        if args.also_gate:
            rows += [("gate corpus, fitting side", gate_fit), ("gate corpus, held out", gate_held)]
        for name, cands in rows:
            for lang in sorted(strength):
                sub = [c for c in cands if c.language == lang]
                lines.append(_row(f"{name}, {lang}", len(sub), figures(sub, {}), figures(sub, chosen, strength)))
    lines += ["", f"page_kind_priors = {chosen}", f"page_kind_prior_strength = {strength}"]
    print("\n".join(lines))
    if args.write:
        head = ["# Page-kind priors", "", "`python eval/fit_kind_priors.py"
                + (" --also-gate" if args.also_gate else "") + " --write` — generated; do not edit by hand.", ""]  # fmt: skip
        (REPO_ROOT / "eval" / "kind_priors.md").write_text("\n".join(head + lines) + "\n", encoding="utf-8")
        say("wrote eval/kind_priors.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
