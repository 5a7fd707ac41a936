"""Fit the prior of each page kind on the fitting side of the eval split, on what `make run` serves.

    python eval/fit_kind_priors.py [--docs-release 0.33.0] [--also-gate] [--write]

Each fused retrieval score is multiplied by the prior of its page's kind (`assistant/retrieval/page_kind.py`:
troubleshooting, feature guide, configuration reference, integration, design, contributing...; a curated entry is
a kind too). The priors are learned, not chosen: for the fitting side's labelled questions (seed, docs, docs_zh,
reports, and the negatives a release's docs answer; the held-out third is never fitted on), every fused candidate
is read once with its score; a listwise model, P(candidate) ∝ (score × prior of its kind) ** t, is fitted by
maximum likelihood of the labelled candidates, with an L2 penalty λ·Σ log(prior)² that pulls each prior to 1: a
kind seen in few questions stays neutral. λ is chosen by 5-fold cross-validation on the fitting side (the folds of
`assistant/eval/split.py`), as the one whose out-of-fold MRR@10 is best (no prior at all is a candidate too); the
priors are then fitted on the whole fitting side with it. Prints the priors (for `Settings.page_kind_priors`) and
MRR@10 / hit@1 / hit@3 without and with them: on the fitting side, out of fold, and held out (make run's corpus,
and with `--also-gate` the gate's corpus, whose figures are out of sample by construction). `--write` also writes
eval/kind_priors.md.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, HELD_OUT_SETS, Item, load_sets
from assistant.eval.metrics import judged_ids
from assistant.eval.release_corpus import build_release_index, release_settings
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings, release_items
from assistant.eval.split import FOLDS, fold_of, is_held_out
from assistant.models import Chunk
from assistant.retrieval.page_kind import KINDS, page_kind
from assistant.retrieval.query import analyze
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings

LAMBDAS = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
# The candidates of a question the likelihood reads: its best 40 by fused score, where a prior can still move a
# section into the top 10. A labelled section far below (a question the channels missed) is not the priors' to fix,
# and letting it into the likelihood makes it dominate the fit (every kind it is of pushed up, whatever it costs at
# the top).
TOP = 40
_EPS = 1e-6  # a candidate scoring 0 on every channel: no prior lifts it


@dataclass(frozen=True)
class Candidates:
    """One question's fused candidates, read with no prior: in the retriever's two groups (applicable first)."""

    item: Item
    groups: tuple[tuple[tuple[Chunk, float, str], ...], ...]  # (chunk, fused score, page kind) per candidate


def collect(assistant: Assistant, items: Sequence[Item]) -> list[Candidates]:
    """Every fused candidate of each item with its score before any prior (the retriever's `candidates`)."""
    retriever = assistant.retriever
    retriever.kind_priors = {}
    out = []
    for item in items:
        query = retriever.embedded(analyze(item.query))
        groups = retriever.candidates(query, 10**6)
        out.append(Candidates(item, tuple(tuple((h.chunk, h.score, page_kind(h.chunk)) for h in g) for g in groups)))
    retriever.kind_priors = None
    return out


def ranks(c: Candidates, priors: dict[str, float]) -> tuple[float, float, float]:
    """(reciprocal rank in the top 10, hit@1, hit@3) of `c`'s labels under `priors`, ordered as the retriever does."""
    order: list[Chunk] = []
    for group in c.groups:
        scored = sorted(group, key=lambda t: (-t[1] * priors.get(t[2], 1.0), t[0].id))
        order += [chunk for chunk, _, _ in scored]
    judged = judged_ids(order[:40], c.item.relevant)
    relevant = set(c.item.relevant)
    first = next((i for i, cid in enumerate(judged) if cid in relevant), None)
    rr = 0.0 if first is None or first >= 10 else 1.0 / (first + 1)
    return rr, float(first == 0), float(first is not None and first < 3)


def figures(cands: Sequence[Candidates], priors: dict[str, float]) -> tuple[float, float, float]:
    """Mean MRR@10, hit@1, hit@3 over `cands`."""
    if not cands:
        return (math.nan,) * 3
    rows = [ranks(c, priors) for c in cands]
    return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))


def _arrays(cands: Sequence[Candidates], kinds: list[str]):
    """Padded arrays of each question's `TOP` best candidates: log score, kind index, labelled, present. A question
    whose top candidates are all labelled, or none is, says nothing about the priors and is left out."""
    index = {k: i for i, k in enumerate(kinds)}
    rows = []
    for c in cands:
        flat = sorted((t for g in c.groups for t in g), key=lambda t: (-t[1], t[0].id))[:TOP]
        relevant = set(c.item.relevant)
        rel = [key in relevant and t[1] > 0 for t, key in zip(flat, _keys([t[0] for t in flat], relevant))]
        if any(rel) and not all(rel):
            rows.append((flat, rel))
    width = max((len(f) for f, _ in rows), default=1)
    shape = (len(rows), width)
    logs, kind, label, mask = np.zeros(shape), np.zeros(shape, int), np.zeros(shape, bool), np.zeros(shape, bool)
    for q, (flat, rel) in enumerate(rows):
        for j, ((_, score, k), r) in enumerate(zip(flat, rel)):
            logs[q, j], kind[q, j], label[q, j], mask[q, j] = math.log(score + _EPS), index[k], r, True
    return logs, kind, label, mask


def _keys(chunks: Sequence[Chunk], labels: Sequence[str]) -> list[str]:
    """Each chunk's label key as `judged_ids` sees it (the chunk's id, section or page when that is a label)."""
    labels = set(labels)
    out = []
    for chunk in chunks:
        page = chunk.source.split("#", 1)[0]
        out.append(next((k for k in (chunk.id, chunk.source, page) if k in labels), chunk.id))
    return out


def fit(cands: Sequence[Candidates], lam: float) -> dict[str, float]:
    """The priors maximising the labelled candidates' listwise likelihood, with λ·Σ log(prior)² pulling them to 1."""
    kinds = list(KINDS)
    logs, kind, label, mask = _arrays(cands, kinds)
    if not len(logs):
        return {}
    counts = np.bincount(kind[mask], minlength=len(kinds))

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        t, beta = math.exp(params[0]), params[1:]
        x = logs + beta[kind]  # log(score × prior)
        z = np.where(mask, t * x, -np.inf)
        lse_all = logsumexp(z, axis=1, keepdims=True)
        lse_good = logsumexp(np.where(label, z, -np.inf), axis=1, keepdims=True)
        nll = float(np.sum(lse_all - lse_good))
        p_all = np.exp(z - lse_all)
        p_good = np.exp(np.where(label, z - lse_good, -np.inf))
        d_z = p_all - p_good  # d nll / d z
        g_beta = np.bincount(kind[mask], weights=(d_z * t)[mask], minlength=len(kinds))
        g_t = float(np.sum((d_z * x)[mask])) * t  # through t = exp(params[0])
        return nll + lam * float(np.sum(beta**2)), np.concatenate([[g_t], g_beta + 2 * lam * beta])

    res = minimize(loss, np.zeros(len(kinds) + 1), jac=True, method="L-BFGS-B")
    beta = res.x[1:]
    return {k: round(float(math.exp(b)), 3) for k, b, n in zip(kinds, beta, counts) if n and abs(b) > 1e-3}


def cross_validated(cands: Sequence[Candidates], lam: float, folds: int) -> tuple[float, float, float]:
    """Out-of-fold MRR@10, hit@1, hit@3: each question ranked by priors fitted without its fold."""
    rows = []
    for f in range(folds):
        train = [c for c in cands if fold_of(c.item, folds) != f]
        test = [c for c in cands if fold_of(c.item, folds) == f]
        priors = fit(train, lam)
        rows += [ranks(c, priors) for c in test]
    return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))


def labelled(sets_dir: Path, release: str | None) -> list[Item]:
    """The answerable questions (and negatives a release's docs answer) with their labels on that corpus."""
    sets = load_sets("all", sets_dir)
    items = [
        i for name, chosen in sets.items() if (name in ANSWERABLE or name == "negatives") and name not in HELD_OUT_SETS
        for i in chosen
    ]  # fmt: skip
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

    appear = Counter(k for c in fitting for g in c.groups for _, _, k in g)
    answers = Counter(
        k for c in fitting for k in {t[2] for g in c.groups for t, key in zip(g, _keys([x[0] for x in g], c.item.relevant))
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
        gate = Assistant(eval_settings(Settings(answer_backend="extractive")))
        build_index(gate, DEFAULT_DOCS_DIR, progress=say)
        g = collect(gate, labelled(args.sets_dir, None))
        g_held, g_fit = [c for c in g if is_held_out(c.item)], [c for c in g if not is_held_out(c.item)]
        lines.append(_row("gate corpus, fitting side", len(g_fit), figures(g_fit, {}), figures(g_fit, chosen)))
        lines.append(_row("gate corpus, held out", len(g_held), figures(g_held, {}), figures(g_held, chosen)))
    lines += ["", f"page_kind_priors = {chosen}"]
    print("\n".join(lines))
    if args.write:
        head = ["# Page-kind priors", "", "`python eval/fit_kind_priors.py"
                + (" --also-gate" if args.also_gate else "") + " --write` — generated; do not edit by hand.", ""]  # fmt: skip
        (REPO_ROOT / "eval" / "kind_priors.md").write_text("\n".join(head + lines) + "\n", encoding="utf-8")
        say("wrote eval/kind_priors.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
