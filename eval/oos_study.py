"""Why an out-of-scope item gets a confident answer, and why an answerable one is abstained on (issue 21 item 6).

    ASSISTANT_INDEX_DIR=.index/makerun-0.33.0 python eval/oos_study.py eval/fresh/batch-* --out /tmp/oos.jsonl

Answers every item of each batch folder in process over the index `make run` serves (as `score_api.py
--in-process` does: `Assistant.ask`, `answer_json`) and records, beside the outcome, what led to it: the setup
reading (`other_software`, `driver`, `runs_other`), whether the message is a paste, the bar, the first hit over the
bar (its kind, id, evidence), whether the release's code facts answered alone, and the best evidence of any hit.
Prints one row per out-of-scope item answered and per answerable item abstained on; `--out` writes every item.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.answer.extractive import _answers, assess_hit, plan  # noqa: E402
from assistant.answer.render import answer_json  # noqa: E402
from assistant.eval.dataset import SETS, load_sets  # noqa: E402
from assistant.eval.metrics import fact_hits  # noqa: E402
from assistant.eval.runner import release_items  # noqa: E402
from assistant.eval.split import is_held_out  # noqa: E402
from assistant.retrieval.evidence import is_paste, min_confidence_for  # noqa: E402
from assistant.service import Assistant  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from assistant.text.problem import problem_names  # noqa: E402

RELEASE = "0.33.0"  # the release make run serves


def why(assistant: Assistant, question: str) -> dict:
    """What the pipeline saw for one message (the same steps as `Assistant._extractive`)."""
    query, found = assistant._retrieval(question, None, None)
    hits = found.hits
    setup = assistant.setup(question, None, query.signals)
    findings = assistant.code_findings(query, setup.vllm_version)
    bar = min_confidence_for(query.text, *assistant.settings.evidence_bars)
    p = plan(query, hits, bar, setup)
    primary = p.primary
    return {
        "paste": is_paste(query.text),
        "bar": round(bar, 3),
        "other_software": setup.other_software,
        "driver": setup.driver,
        "runs_other": setup.runs_other,
        "uses_vllm": setup.uses_vllm,
        "top": [(h.chunk.kind, h.chunk.id[:70], round(h.confidence, 3)) for h in hits[:3]],
        "best": round(max((h.confidence for h in hits), default=0.0), 3),
        "primary": None if primary is None else (primary.chunk.kind, primary.chunk.id[:90], round(primary.confidence, 3)),
        "primary_rank": None if primary is None else next(i for i, h in enumerate(hits) if h is primary),
        "primary_unknown": None
        if primary is None or primary.chunk.kind != "entry"
        else [c.detail for c in assess_hit(primary, setup, query.text).unknown],
        "code_alone": primary is None and _answers(findings, problem_names(query.text)),
        "sites": [f"{m.site.path}:{m.site.line}" for m in (findings.sites if findings else ())][:2],
        "names": [n.name for n in (findings.names if findings else [])][:4],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("batches", nargs="+", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--sets",
        choices=["fitting", "held_out"],
        help="also the eval sets' items of this side of the split, each with its labels on make run's release",
    )
    args = ap.parse_args(argv)
    assistant = Assistant(Settings())
    assistant.require_complete_index()
    assistant.warm_up()
    rows = []
    groups = [(b.name, load_sets([n for n in SETS if (b / f"{n}.jsonl").is_file()], b)) for b in args.batches]
    if args.sets:
        chosen = [i for s in load_sets("all").values() for i in release_items(list(s), RELEASE)
                  if i.expect != "not_fix" and is_held_out(i) == (args.sets == "held_out")]  # fmt: skip
        groups.append((f"sets-{args.sets}", {name: [i for i in chosen if i.set == name] for name in SETS}))
    for group, sets in groups:
        for name, items in sets.items():
            for item in items:
                answer = assistant.ask(item.query)
                reply, reply_lead = answer_json(answer), answer.lead
                found = fact_hits(reply["answer"], item.key_facts) if item.answerable else []
                row = {"batch": group, "id": item.id, "set": name, "kind": getattr(item, "kind", None),
                       "abstained": bool(reply["abstained"]), "fix": bool(found) and all(found) and not reply["abstained"],
                       "fix_lead": item.answerable and not reply["abstained"]
                       and all(fact_hits(reply_lead, item.key_facts)),
                       "lead": reply_lead, **why(assistant, item.query)}  # fmt: skip
                rows.append(row)
    if args.out:
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    for r in rows:
        if (r["set"] == "negatives" and not r["abstained"]) or (r["set"] != "negatives" and r["abstained"]):
            print(json.dumps(r, ensure_ascii=False))
    neg = [r for r in rows if r["set"] == "negatives"]
    ans = [r for r in rows if r["set"] != "negatives"]
    print(f"out of scope abstained {sum(r['abstained'] for r in neg)}/{len(neg)}; answerable abstained "
          f"{sum(r['abstained'] for r in ans)}/{len(ans)}; fix {sum(r['fix'] for r in ans)}/{len(ans)}", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
