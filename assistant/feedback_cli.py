"""`python -m assistant feedback`: what users thought of the answers, and the questions abstained on."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

EXIT_OK = 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("feedback", help="list feedback and the abstained questions (knowledge gaps); export feedback")
    p.add_argument("--db", type=Path, help="feedback SQLite file (env ASSISTANT_FEEDBACK_DB)")
    p.add_argument("--limit", type=int, default=50, help="rows shown per list (default 50)")
    p.add_argument("--export", type=Path, metavar="FILE", help="write all feedback to FILE (.json or .csv)")
    p.add_argument("--json", action="store_true", help="print {feedback, gaps} as one JSON object")
    p.set_defaults(func=cmd_feedback)


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M")


def _one_line(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def cmd_feedback(args: argparse.Namespace) -> int:
    from assistant.feedback.store import FeedbackStore
    from assistant.settings import Settings

    settings = Settings().with_overrides(feedback_db=args.db)
    store = FeedbackStore(settings.feedback_db)
    if args.export is not None:
        n = store.export(args.export)
        print(f"exported {n} feedback records to {args.export}")
        return EXIT_OK
    feedback = store.list(limit=args.limit)
    gaps = store.gaps(limit=args.limit)
    if args.json:
        print(
            json.dumps(
                {"feedback": [f.to_dict() for f in feedback], "gaps": [g.__dict__ for g in gaps]}, ensure_ascii=False
            )
        )
        return EXIT_OK
    print(f"Feedback ({len(feedback)} shown, newest first):")
    for f in feedback:
        mark = "+" if f.rating == "up" else "-"
        note = f"  comment: {_one_line(f.comment, 70)}" if f.comment else ""
        print(f"  [{mark}] {_when(f.ts)} {f.face:<5} {_one_line(f.question, 60)}{note}")
    if not feedback:
        print("  (none yet)")
    print()
    print(f"Knowledge gaps: questions abstained on ({len(gaps)} shown, newest first):")
    for g in gaps:
        print(f"  {_when(g.ts)} {g.face:<5} {_one_line(g.question)}")
    if not gaps:
        print("  (none yet)")
    return EXIT_OK
