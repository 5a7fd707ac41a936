"""Would a bar of its own for a docs section that leads an answer (`Settings.min_confidence_docs`) cost less?

    python eval/docs_bar_study.py [--bars 0,0.55,...] [--fit-batches 20] [--records FILE]

Over the index `make run` serves (`Settings()`: `ASSISTANT_INDEX_DIR`, default `.index/`, built by a first `make run`)
each question is read once (`Assistant.prepare`) and its answer composed at every bar (`Prepared.compose`), for:
- the fresh batches (`eval/fresh/batch-*/`, real threads), judged as `eval/fresh/score_api.py` judges them: the fix
  is in the answer when every key fact is in the served text;
- make run's eval (every set, each item with its labels on vLLM's release: `release_items`), judged as the eval
  runner judges it: key facts on the answer's lead, a near-miss answered with the fix of the entry it resembles.

Cost per item, as in eval/README: an answer without the fix or to an out-of-scope question 1, an abstention on an
answerable one 0.5, the fix 0. The bar is to be chosen on the fitting side (the older `--fit-batches` fresh batches
by folder name and make run's fitting split) and judged on the rest, out of sample. Prints one Markdown row per bar.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.outcomes import fresh_cost, fresh_items, makerun_cost, makerun_items, served_assistant
from assistant.eval.split import is_held_out
from assistant.release_cli import EVAL_RELEASE
from assistant.service import Assistant
from assistant.settings import Settings

BARS = "0,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.01"


def fresh_rows(assistant: Assistant, bars: list[float]) -> list[dict]:
    rows = []
    for batch, item in fresh_items():
        prepared = assistant.prepare(item.query)
        costs = [fresh_cost(item, prepared.compose(docs_bar=bar)) for bar in bars]
        rows.append({"id": item.id, "batch": batch, "costs": costs})
    return rows


def makerun_rows(assistant: Assistant, bars: list[float]) -> list[dict]:
    rows = []
    for item in makerun_items(EVAL_RELEASE):
        prepared = assistant.prepare(item.query)
        costs = [makerun_cost(item, prepared.compose(docs_bar=bar)) for bar in bars]
        rows.append({"id": item.id, "held_out": is_held_out(item), "costs": costs})
    return rows


def table(fresh: list[dict], makerun: list[dict], bars: list[float], fit_batches: int) -> list[str]:
    older = set(sorted({r["batch"] for r in fresh})[:fit_batches])
    head = "| docs bar | fresh, older (fit) | make run, fitting | fit sum | fresh, newer | make run, held out |"
    out = [head, "|---:|---:|---:|---:|---:|---:|"]
    for k, bar in enumerate(bars):
        ff = sum(r["costs"][k] for r in fresh if r["batch"] in older)
        ft = sum(r["costs"][k] for r in fresh if r["batch"] not in older)
        mf = sum(r["costs"][k] for r in makerun if not r["held_out"])
        mh = sum(r["costs"][k] for r in makerun if r["held_out"])
        out.append(f"| {bar:g} | {ff:.1f} | {mf:.1f} | {ff + mf:.1f} | {ft:.1f} | {mh:.1f} |")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bars", default=BARS, help=f"comma-separated docs bars (default {BARS}; 0 is today's)")
    p.add_argument("--fit-batches", type=int, default=20, help="the older fresh batches on the fitting side")
    p.add_argument("--records", type=Path, help="also write every item's cost per bar here (JSON lines)")
    args = p.parse_args(argv)
    bars = [float(b) for b in args.bars.split(",")]
    assistant = served_assistant(Settings(answer_backend="extractive"))
    fresh, makerun = fresh_rows(assistant, bars), makerun_rows(assistant, bars)
    if args.records:
        with args.records.open("w", encoding="utf-8") as fh:
            fh.writelines(json.dumps({"bars": bars, **r}) + "\n" for r in fresh + makerun)
    print("\n".join(table(fresh, makerun, bars, args.fit_batches)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
