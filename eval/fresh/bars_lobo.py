"""Would other evidence bars serve real threads better? Leave-one-batch-out over the fresh batches.

    ASSISTANT_INDEX_DIR=.index/makerun-0.33.0 python eval/fresh/bars_lobo.py eval/fresh/batch-* --out /tmp/bars.jsonl
    python eval/fresh/bars_lobo.py --from /tmp/bars.jsonl                      # the table again, no answering

Every item of every batch is retrieved once over the index `make run` serves, then composed once per bar of a grid
(the answer at each bar, as `Assistant.ask` would give it: the first applicable hit over the bar, or an
abstention; rule-based declines stay declines). Each served answer is scored as `score_api.py` scores it (fix in
the answer, abstained). Then, for each batch in turn, the (question bar, paste bar) pair of least cost on the
*other* batches is applied to it: that is the out-of-sample figure of fitting the bars on real threads. The cost
is `eval/calibrate.py`'s for pastes: an answer without the fix, or to an out-of-scope item, costs 1; an abstention
on an answerable item 0.5. Prints a Markdown table: today's bars and the left-out-fitted bars, per batch and pooled.

Each item is read once (`Assistant.prepare`, as `Assistant.ask` reads it) and composed at every bar
(`Prepared.compose`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

GRID = [round(0.05 * i, 2) for i in range(20)]  # 0.00 .. 0.95
WRONG, ABSTAIN = 1.0, 0.5


def answer_at_bars(dirs: list[Path], out: Path) -> None:
    """One JSON line per item: its batch, whether it is answerable, a paste, and (abstained, fix) at each bar."""
    from assistant.answer.render import answer_json
    from assistant.eval.dataset import SETS, load_sets
    from assistant.eval.metrics import fact_hits
    from assistant.retrieval.evidence import is_paste
    from assistant.eval.outcomes import served_assistant

    assistant = served_assistant()
    with out.open("w", encoding="utf-8") as fh:
        for d in dirs:
            names = [name for name in SETS if (d / f"{name}.jsonl").is_file()]
            for name, items in load_sets(names, d).items():
                for item in items:
                    prepared = assistant.prepare(item.query)
                    own = prepared.bar
                    at = {}
                    for bar in sorted({*GRID, own}):
                        answer = prepared.compose(bar)
                        text = answer_json(answer)["answer"]
                        fix = item.answerable and not answer.abstained and all(fact_hits(text, item.key_facts))
                        at[f"{bar:.3f}"] = [answer.abstained, bool(fix)]
                    row = {"batch": d.name, "id": item.id, "set": name, "answerable": item.answerable,
                           "paste": is_paste(prepared.query.text), "today": f"{own:.3f}", "at": at}
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
            print(f"{d.name}: done", file=sys.stderr)


def _cost(row: dict, bar: float) -> float:
    abstained, fix = row["at"][f"{bar:.3f}"]
    if abstained:
        return ABSTAIN if row["answerable"] else 0.0
    return 0.0 if fix else WRONG


def _outcome(rows: list[dict], bar_of) -> tuple[int, int, int, int, float]:
    """(fix, answerable, OOS abstained, OOS, cost) when each row is answered at the bar `bar_of(row)` gives."""
    fix = ans = neg_ab = neg = 0
    cost = 0.0
    for r in rows:
        bar = bar_of(r)
        abstained, got = r["at"][f"{bar:.3f}"]
        cost += _cost(r, bar)
        if r["answerable"]:
            ans += 1
            fix += bool(got)
        else:
            neg += 1
            neg_ab += bool(abstained)
    return fix, ans, neg_ab, neg, cost


def _today(row: dict) -> float:
    return float(row["today"])


def _fitted(bars: tuple[float, float]):
    return lambda row: bars[1] if row["paste"] else bars[0]


def best_bars(rows: list[dict]) -> tuple[float, float]:
    """The (question, paste) bars of least cost on `rows` (questions and pastes are chosen apart: each row has one)."""
    questions = [r for r in rows if not r["paste"]]
    pastes = [r for r in rows if r["paste"]]
    q = min(GRID, key=lambda b: (sum(_cost(r, b) for r in questions), b))
    p = min(GRID, key=lambda b: (sum(_cost(r, b) for r in pastes), b))
    return q, p


def report(rows: list[dict]) -> None:
    batches = sorted({r["batch"] for r in rows})
    by_batch = defaultdict(list)
    for r in rows:
        by_batch[r["batch"]].append(r)
    print(
        "| batch | today: fix / answerable | today: OOS abstained | fitted on the others: bars (q, paste) "
        "| fix | OOS abstained | cost today → fitted |"
    )
    print("|---|---:|---:|---|---:|---:|---:|")
    pooled_today = [0, 0, 0, 0, 0.0]
    pooled_fit = [0, 0, 0, 0, 0.0]
    for b in batches:
        t = _outcome(by_batch[b], _today)
        bars = best_bars([r for r in rows if r["batch"] != b])
        f = _outcome(by_batch[b], _fitted(bars))
        for acc, v in ((pooled_today, t), (pooled_fit, f)):
            for i, x in enumerate(v):
                acc[i] += x
        print(
            f"| {b} | {t[0]}/{t[1]} | {t[2]}/{t[3]} | {bars[0]:.2f}, {bars[1]:.2f} | {f[0]}/{f[1]} | {f[2]}/{f[3]} "
            f"| {t[4]:.1f} → {f[4]:.1f} |"
        )
    t, f = pooled_today, pooled_fit
    print(
        f"| **all** | {t[0]}/{t[1]} | {t[2]}/{t[3]} | (per batch) | {f[0]}/{f[1]} | {f[2]}/{f[3]} "
        f"| {t[4]:.1f} → {f[4]:.1f} |"
    )
    q, p = best_bars(rows)
    print(f"\nBars of least cost on all {len(rows)} items (in sample): question {q:.2f}, paste {p:.2f}.")
    print(separation(rows))


def _level(row: dict) -> float:
    """The highest bar of the grid at which the item is still answered (-1: declined by a rule at every bar)."""
    answered = [b for b in GRID if not row["at"][f"{b:.3f}"][0]]
    return max(answered) if answered else -1.0


def separation(rows: list[dict]) -> str:
    """How well the evidence bar can tell the answerable items whose answer holds the fix from the out-of-scope
    ones: the ROC AUC of each item's highest answered bar, and how many of each are answered at the top bar."""
    fixed = [_level(r) for r in rows if r["answerable"] and r["at"]["0.000"][1]]
    oos = [_level(r) for r in rows if not r["answerable"]]
    pairs = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in fixed for b in oos)
    top = GRID[-1]
    return (
        f"Separation by the bar: AUC {pairs / (len(fixed) * len(oos)):.3f} between the {len(fixed)} answerable items "
        f"whose answer at bar 0 holds the fix and the {len(oos)} out-of-scope ones; still answered at {top:.2f}: "
        f"{sum(v >= top for v in fixed)} of the first, {sum(v >= top for v in oos)} of the second; declined by a rule "
        f"at every bar: {sum(v < 0 for v in oos)} out-of-scope, {sum(v < 0 for v in fixed)} of the first."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="fresh batch folders")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bars-lobo.jsonl"), help="where the per-item lines go")
    parser.add_argument("--from", dest="source", type=Path, help="report from lines written earlier, answering nothing")
    args = parser.parse_args(argv)
    if args.source is None:
        if not args.dirs:
            parser.error("give batch folders, or --from FILE")
        answer_at_bars(args.dirs, args.out)
    rows = [json.loads(line) for line in (args.source or args.out).read_text(encoding="utf-8").splitlines()]
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
