"""Fitting the page-kind priors (pure): every fused candidate of a question read once, then ranked again under
candidate priors as the retriever does (docs sections reordered among their own slots, `pages_reordered`), and a
listwise likelihood over a question's docs sections with an L2 pull towards 1 (`eval/fit_kind_priors.py` runs it)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from assistant.eval.dataset import Item
from assistant.eval.metrics import first_label_figures, label_key
from assistant.eval.split import fold_of
from assistant.models import Chunk
from assistant.retrieval.page_kind import KINDS, NOT_PAGES, pages_reordered, strengthened

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
    lang: str = ""  # the language the retriever read the question in (`analyze`); "": the item's

    @property
    def language(self) -> str:
        return self.lang or self.item.lang


def ranks(
    c: Candidates, priors: Mapping[str, float], strengths: Mapping[str, float] | None = None
) -> tuple[float, float, float]:
    """(reciprocal rank in the top 10, hit@1, hit@3) of `c`'s labels under `priors`, ordered as the retriever does:
    each group in fused order, its docs sections reordered among their slots by score × prior ** the strength of
    the question's language (`strengths`; a language not named: 1)."""
    priors = strengthened(priors, (strengths or {}).get(c.language, 1.0))
    order: list[Chunk] = []
    for group in c.groups:
        by_id = {chunk.id: chunk for chunk, _, _ in group}
        fused, kinds = {ch.id: s for ch, s, _ in group}, {ch.id: k for ch, _, k in group}
        order += [by_id[cid] for cid in pages_reordered([ch.id for ch, _, _ in group], fused, kinds, priors)]
    return first_label_figures(order[:40], c.item.relevant)


def figures(
    cands: Sequence[Candidates], priors: Mapping[str, float], strengths: Mapping[str, float] | None = None
) -> tuple[float, float, float]:
    """Mean MRR@10, hit@1, hit@3 over `cands`."""
    if not cands:
        return (math.nan,) * 3
    rows = [ranks(c, priors, strengths) for c in cands]
    return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))


def _arrays(cands: Sequence[Candidates], kinds: list[str]):
    """Padded arrays of the docs sections among each question's `TOP` best candidates: log score, kind index,
    labelled, present. Only they compete under a prior (an entry keeps its slot), so a question whose sections there
    are all labelled, or none is (its answer an entry, or missed), says nothing about the priors and is left out."""
    index = {k: i for i, k in enumerate(kinds)}
    rows = []
    for c in cands:
        flat = sorted((t for g in c.groups for t in g), key=lambda t: (-t[1], t[0].id))[:TOP]
        flat = [t for t in flat if t[2] not in NOT_PAGES]
        relevant = set(c.item.relevant)
        rel = [key in relevant and t[1] > 0 for t, key in zip(flat, label_keys([t[0] for t in flat], relevant))]
        if any(rel) and not all(rel):
            rows.append((flat, rel))
    width = max((len(f) for f, _ in rows), default=1)
    shape = (len(rows), width)
    logs, kind, label, mask = np.zeros(shape), np.zeros(shape, int), np.zeros(shape, bool), np.zeros(shape, bool)
    for q, (flat, rel) in enumerate(rows):
        for j, ((_, score, k), r) in enumerate(zip(flat, rel)):
            logs[q, j], kind[q, j], label[q, j], mask[q, j] = math.log(score + _EPS), index[k], r, True
    return logs, kind, label, mask


def label_keys(chunks: Sequence[Chunk], labels: Sequence[str]) -> list[str]:
    """Each chunk's label key as `judged_ids` sees it (the chunk's id, section or page when that is a label)."""
    wanted = set(labels)
    return [label_key(chunk, wanted) for chunk in chunks]


def _nll(t: float, beta: np.ndarray, arrays) -> tuple[float, float, np.ndarray]:
    """The listwise negative log-likelihood, and its gradients in log t and in beta."""
    logs, kind, label, mask = arrays
    x = logs + beta[kind]  # log(score × prior)
    z = np.where(mask, t * x, -np.inf)
    lse_all = logsumexp(z, axis=1, keepdims=True)
    lse_good = logsumexp(np.where(label, z, -np.inf), axis=1, keepdims=True)
    d_z = np.exp(z - lse_all) - np.exp(np.where(label, z - lse_good, -np.inf))  # d nll / d z
    g_beta = np.bincount(kind[mask], weights=(d_z * t)[mask], minlength=len(beta))
    return float(np.sum(lse_all - lse_good)), float(np.sum((d_z * x)[mask])) * t, g_beta


def fit(cands: Sequence[Candidates], lam: float) -> dict[str, float]:
    """The priors maximising the labelled candidates' listwise likelihood, with λ·Σ log(prior)² pulling them to 1.

    Only docs pages get a prior, and only pages compete in the likelihood, as in the retriever (a page is reordered
    among pages only). A multiplier common to every kind of page changes nothing there, so the priors are centred
    to fix it: their log-priors, weighted by how often each kind is a candidate, sum to 0.
    The sharpness t is fitted first, on the fused scores alone, and then held: were it free, a large t would turn
    the smallest difference between priors into a perfect fit, and the pull to 1 would hold nothing back."""
    kinds = list(KINDS)
    arrays = _arrays(cands, kinds)
    if not len(arrays[0]):
        return {}
    counts = np.bincount(arrays[1][arrays[3]], minlength=len(kinds)).astype(float)
    pages = np.array([k not in NOT_PAGES for k in kinds]) & (counts > 0)
    if not pages.any():
        return {}
    w = np.where(pages, counts, 0.0) / counts[pages].sum()  # the centring weights

    def centred(raw: np.ndarray) -> np.ndarray:
        beta = np.where(pages, raw, 0.0)
        return np.where(pages, beta - float(w @ beta), 0.0)

    zero = np.zeros(len(kinds))
    sharp = minimize(lambda p: _nll(math.exp(p[0]), zero, arrays)[:2], np.zeros(1), jac=True, method="L-BFGS-B")
    t = math.exp(float(sharp.x[0]))

    def loss(raw: np.ndarray) -> tuple[float, np.ndarray]:
        beta = centred(raw)
        nll, _, g_beta = _nll(t, beta, arrays)
        g = np.where(pages, g_beta + 2 * lam * beta, 0.0)  # d loss / d beta, then back through the centring
        return nll + lam * float(np.sum(beta**2)), np.where(pages, g - float(g.sum()) * w, 0.0)

    beta = centred(minimize(loss, zero, jac=True, method="L-BFGS-B").x)
    return {k: round(float(math.exp(b)), 3) for k, b, on in zip(kinds, beta, pages) if on and abs(b) > 1e-3}


def cross_validated(cands: Sequence[Candidates], lam: float, folds: int) -> tuple[float, float, float]:
    """Out-of-fold MRR@10, hit@1, hit@3: each question ranked by priors fitted without its fold."""
    rows = []
    for f in range(folds):
        train = [c for c in cands if fold_of(c.item, folds) != f]
        test = [c for c in cands if fold_of(c.item, folds) == f]
        priors = fit(train, lam)
        rows += [ranks(c, priors) for c in test]
    return tuple(sum(r[i] for r in rows) / len(rows) for i in range(3))


STRENGTHS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the exponents tried per language: 0 is no prior, 1 the fitted one


def strengths_by_language(
    fit_on: Sequence[Candidates], judged: Sequence[Sequence[Candidates]], lam: float, folds: int,
    grid: Sequence[float] = STRENGTHS,
) -> dict[str, dict[float, float]]:
    """Out-of-fold MRR@10 per question language and strength: each fold's questions ranked under priors fitted on
    `fit_on` without that fold, raised to each strength. `judged` are the corpora the questions are ranked on (the
    same questions' fold decides, whatever the corpus), and a language's figure is the mean over the corpora that
    have questions in it, as `eval/fit_fusion.py` weighs its two corpora."""
    per_fold = {f: fit([c for c in fit_on if fold_of(c.item, folds) != f], lam) for f in range(folds)}
    by: dict[str, dict[float, list[float]]] = {}
    for corpus in judged:
        rows: dict[str, dict[float, list[float]]] = {}
        for c in corpus:
            priors = per_fold[fold_of(c.item, folds)]
            for s in grid:
                rows.setdefault(c.language, {}).setdefault(s, []).append(ranks(c, strengthened(priors, s))[0])
        for lang, table in rows.items():
            for s, rr in table.items():
                by.setdefault(lang, {}).setdefault(s, []).append(sum(rr) / len(rr))
    return {lang: {s: sum(v) / len(v) for s, v in table.items()} for lang, table in by.items()}


def chosen_strength(table: Mapping[float, float]) -> float:
    """The strength with the best out-of-fold MRR@10 (to 4 places); on a tie the weaker one (nearer no prior)."""
    return max(table, key=lambda s: (round(table[s], 4), -s))
