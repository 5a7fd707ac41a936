"""Would a learned model of when to hold back the source that leads an answer cost less than a single bar?

    python eval/lead_study.py collect --lead doc|entry --out FILE   # read every item once (make run's index)
    python eval/lead_study.py fit FILE [--fit-batches 20]

Two leads have a bar of their own today: a docs section (`Settings.min_confidence_docs`, off) and a curated entry
that the user matches by words alone, quoting none of its error messages (`Settings.min_confidence_entry_unquoted`).
`collect` reads each item of the fresh batches (`eval/fresh/batch-*/`, real threads) and of make run's eval (every
set, each item with its labels on vLLM's release) once over the index `make run` serves (`Settings()`:
`ASSISTANT_INDEX_DIR`), and records for each: whether the plan leads with such a source when its bar is 0, that
source's features (`lead_features`), and the item's cost with the source kept (its bar 0), held back (1.01: below it,
only a known problem whose error message the user quotes answers) and at today's settings. Cost as in eval/README
(`assistant/eval/outcomes.py`): an answer without the fix or to an out-of-scope question 1, an abstention on an
answerable one 0.5, the fix 0.

`fit` learns, on the fitting side only (the older `--fit-batches` fresh batches by folder name and make run's fitting
split), a logistic model of "holding this lead back costs less than keeping it", chooses the probability above which
it holds back by least fitting cost over 5-fold out-of-fold probabilities, and prints the costs on every side: the
newer fresh batches and make run's held-out split are out of sample. The rules it was judged by were written before
it was run (eval/README, "A learned hold-back for a docs section that leads" and "... for a curated entry").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.answer.extractive import assess_hit, plan, quotes_its_error
from assistant.answer.quotes import error_quotes
from assistant.eval.outcomes import fresh_cost, fresh_items, makerun_cost, makerun_items, served_assistant
from assistant.eval.split import FOLDS, fold_of, is_held_out
from assistant.models import Hit
from assistant.release_cli import EVAL_RELEASE
from assistant.retrieval.evidence import is_paste
from assistant.retrieval.page_kind import page_kind
from assistant.service import Assistant, Prepared
from assistant.settings import Settings

HELD_BACK = 1.01  # a bar no evidence reaches: every such lead held back
NUMERIC = ("cosine", "coverage", "known", "agree", "confidence", "rank", "paste", "unnamed", "error_quoted", "zh")
# What a curated entry's applicability to the user's setup adds (`--lead entry`): checks that apply, checks unknown,
# whether it states any condition, whether the user's symptom is one it names.
ENTRY_NUMERIC = ("applies", "unknown", "has_conditions", "symptom_applies")


def lead_of(p: Prepared, kind: str) -> Hit | None:
    """The source of `kind` the plan leads with when no bar of its own holds it back, or None: a docs section (docs
    bar 0), or a curated entry the user matches by words alone, quoting none of its error messages (entry bar 0)."""
    if kind == "doc":
        primary = plan(p.query, p.hits, p.bar, p.setup, p.entry_bar, 0.0).primary
        return primary if primary is not None and primary.chunk.kind == "doc" else None
    primary = plan(p.query, p.hits, p.bar, p.setup, 0.0, p.docs_bar).primary
    if primary is None or primary.chunk.kind != "entry":
        return None
    return None if quotes_its_error(assess_hit(primary, p.setup, p.query.text)) else primary


def lead_features(p: Prepared, h: Hit) -> dict:
    """What the model may read of the lead and the message: fixed in the rule before the study ran."""
    cosine, coverage, known, agree = h.features[:4]
    out = {
        "cosine": cosine,
        "coverage": coverage,
        "known": known,
        "agree": agree,
        "confidence": h.confidence,
        "rank": float(next(i for i, x in enumerate(p.hits) if x is h)),
        "paste": float(is_paste(p.query.text)),
        "unnamed": float(p.query.vllm_unnamed),
        "error_quoted": float(bool(error_quotes(p.query.signals))),
        "zh": float(p.query.lang == "zh"),
    }
    if h.chunk.kind == "doc":
        return {**out, "kind": page_kind(h.chunk)}
    checks = [c for c in assess_hit(h, p.setup, p.query.text).checks if c.detail != "error"]
    return {
        **out,
        "applies": float(sum(c.verdict == "applies" for c in checks)),
        "unknown": float(sum(c.verdict == "unknown" for c in checks)),
        "has_conditions": float(bool(checks)),
        "symptom_applies": float(any(c.detail == "symptom" and c.verdict == "applies" for c in checks)),
        "kind": "entry",
    }


def _answers(p: Prepared, kind: str) -> list:
    """The answer with the lead kept (its bar 0), held back (HELD_BACK) and at today's settings."""
    key = "docs_bar" if kind == "doc" else "entry_bar"
    return [p.compose(**{key: 0.0}), p.compose(**{key: HELD_BACK}), p.compose()]


def _record(p: Prepared, costs: list[float], kind: str, **where) -> dict:
    h = lead_of(p, kind)
    features = lead_features(p, h) if h else None
    return {**where, "kept": costs[0], "held": costs[1], "today": costs[2], "features": features}


def fresh_records(assistant: Assistant, kind: str) -> list[dict]:
    out = []
    for batch, item in fresh_items():
        p = assistant.prepare(item.query)
        costs = [fresh_cost(item, a) for a in _answers(p, kind)]
        out.append(_record(p, costs, kind, id=item.id, batch=batch))
    return out


def makerun_records(assistant: Assistant, kind: str) -> list[dict]:
    out = []
    for item in makerun_items(EVAL_RELEASE):
        p = assistant.prepare(item.query)
        costs = [makerun_cost(item, a) for a in _answers(p, kind)]
        out.append(_record(p, costs, kind, id=item.id, held_out=is_held_out(item), fold=fold_of(item)))
    return out


def collect(out: Path, kind: str) -> int:
    assistant = served_assistant(Settings(answer_backend="extractive"))
    records = fresh_records(assistant, kind) + makerun_records(assistant, kind)
    with out.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)
    led = sum(r["features"] is not None for r in records)
    print(f"{len(records)} items, {led} led by a {kind} that a bar of its own could hold back", file=sys.stderr)
    return 0


# --- fitting (pure over the records) ---


def numeric(records: Sequence[dict]) -> tuple[str, ...]:
    """The numeric features the records hold: a curated entry's add its applicability."""
    entry = any(r["features"] is not None and r["features"]["kind"] == "entry" for r in records)
    return NUMERIC + ENTRY_NUMERIC if entry else NUMERIC


def matrix(records: Sequence[dict], kinds: Sequence[str]) -> list[list[float]]:
    names = numeric(records)
    return [[r["features"][n] for n in names] + [float(r["features"]["kind"] == k) for k in kinds] for r in records]


def side_of(r: dict, older: set[str]) -> str:
    if "batch" in r:
        return "fresh_fit" if r["batch"] in older else "fresh_test"
    return "makerun_test" if r["held_out"] else "makerun_fit"


def fold_index(r: dict, folds: int) -> int:
    """A record's fold: make run's from its split, a fresh item's from its id (stable, like `fold_of`)."""
    if "fold" in r:
        return r["fold"] % folds
    return sum(map(ord, r["id"])) % folds


def fit_model(records: Sequence[dict], kinds: Sequence[str]):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rows = [r for r in records if r["features"] is not None and r["held"] != r["kept"]]
    y = [int(r["held"] < r["kept"]) for r in rows]
    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    return model.fit(matrix(rows, kinds), y) if len(set(y)) == 2 else None


def hold_probs(model, records: Sequence[dict], kinds: Sequence[str]) -> list[float]:
    """The probability that holding back costs less, per record (0 where no such lead is in question)."""
    led = [r for r in records if r["features"] is not None]
    if model is None or not led:  # no model (a fold with one outcome only) holds nothing back
        return [0.0] * len(records)
    probs = iter(model.predict_proba(matrix(led, kinds))[:, 1])
    return [float(next(probs)) if r["features"] is not None else 0.0 for r in records]


def total(records: Sequence[dict], probs: Sequence[float], bar: float) -> float:
    return sum(r["held"] if p > bar else r["kept"] for r, p in zip(records, probs))


SIDES = ("fresh_fit", "makerun_fit", "fresh_test", "makerun_test")


def out_of_fold(fitting: Sequence[dict], kinds: Sequence[str], folds: int) -> list[float]:
    """Each fitting record's hold-back probability from a model fitted without its fold."""
    probs = [0.0] * len(fitting)
    for k in range(folds):
        model = fit_model([r for r in fitting if fold_index(r, folds) != k], kinds)
        mine = [i for i, r in enumerate(fitting) if fold_index(r, folds) == k]
        for i, prob in zip(mine, hold_probs(model, [fitting[i] for i in mine], kinds)):
            probs[i] = prob
    return probs


def study(records: Sequence[dict], fit_batches: int, folds: int = FOLDS) -> list[str]:
    """The model's weights, the bar chosen on the fitting side, and each side's cost: with every lead kept, with every
    lead held back, today's, and with the model at its bar (out-of-fold on the fitting side, the final model on the
    rest)."""
    older = set(sorted({r["batch"] for r in records if "batch" in r})[:fit_batches])
    sides = {s: [r for r in records if side_of(r, older) == s] for s in SIDES}
    fitting = sides["fresh_fit"] + sides["makerun_fit"]
    kinds = sorted({r["features"]["kind"] for r in fitting if r["features"] is not None} - {"entry"})
    oof = out_of_fold(fitting, kinds, folds)
    bars = [b / 100 for b in range(0, 101, 5)] + [HELD_BACK]
    best = min(reversed(bars), key=lambda b: total(fitting, oof, b))  # ties: the higher bar (holds back less)
    final = fit_model(fitting, kinds)
    if final is None:
        return ["No model: on the fitting side, holding the lead back never changes the cost, or always one way."]
    names = [*numeric(fitting), *(f"kind={k}" for k in kinds)]
    coefs = final[-1].coef_[0] / final[0].scale_
    out = ["Weights (per unit of each feature): " + ", ".join(f"{n} {w:+.3f}" for n, w in zip(names, coefs))]
    out += [f"Bar chosen on the fitting side (out-of-fold): hold back above {best:g}", ""]
    out += ["| side | n | led | every lead kept | every lead held back | today | model at the bar |"]
    out += ["|---|---:|---:|---:|---:|---:|---:|"]
    n_fresh_fit = len(sides["fresh_fit"])
    probs = {"fresh_fit": oof[:n_fresh_fit], "makerun_fit": oof[n_fresh_fit:]}
    for name, chosen in sides.items():
        p = probs.get(name) or hold_probs(final, chosen, kinds)
        kept, held = sum(r["kept"] for r in chosen), sum(r["held"] for r in chosen)
        today = sum(r.get("today", r["kept"]) for r in chosen)
        led = sum(r["features"] is not None for r in chosen)
        row = f"{kept:.1f} | {held:.1f} | {today:.1f} | {total(chosen, p, best):.1f}"
        out.append(f"| {name} | {len(chosen)} | {led} | {row} |")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="read every item once and write the records")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--lead", choices=("doc", "entry"), default="doc", help="the lead a bar of its own may hold back")
    f = sub.add_parser("fit", help="fit and judge the model over the records")
    f.add_argument("records", type=Path)
    f.add_argument("--fit-batches", type=int, default=20, help="the older fresh batches on the fitting side")
    args = p.parse_args(argv)
    if args.cmd == "collect":
        return collect(args.out, args.lead)
    if not args.records.is_file():
        p.error(f"{args.records}: no such file (write it with `collect --out {args.records}` first)")
    lines = args.records.read_text(encoding="utf-8").splitlines()
    print("\n".join(study([json.loads(line) for line in lines if line.strip()], args.fit_batches)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
