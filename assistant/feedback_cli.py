"""`python -m assistant feedback`: what users thought of the answers, and the questions abstained on."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

EXIT_OK = 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "feedback",
        help="list feedback and the knowledge gaps (similar abstained questions grouped); export feedback; "
        "`feedback drafts` writes draft entries from Slack threads a person answered",
    )
    p.add_argument(
        "action", nargs="?", choices=["drafts"],
        help="drafts: a draft curated entry (YAML, for review) per Slack thread where the assistant abstained "
        "and a person answered",
    )  # fmt: skip
    p.add_argument("--out", type=Path, help="where `drafts` writes (default: .data/drafts, never corpus/entries)")
    p.add_argument(
        "--db", type=Path,
        help="feedback SQLite file (env ASSISTANT_FEEDBACK_DB; ASSISTANT_DATABASE_URL, when set, names PostgreSQL)",
    )  # fmt: skip
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
    if args.db is not None:  # the file named on the command line, even when a database URL is configured
        settings = settings.model_copy(update={"database_url": None})
    store = FeedbackStore.from_settings(settings)
    if args.action == "drafts":
        return _drafts(store, args.out or settings.feedback_db.parent / "drafts")
    if args.export is not None:
        n = store.export(args.export)
        print(f"exported {n} feedback records to {args.export}")
        return EXIT_OK
    from assistant.feedback.drafts import group_gaps

    feedback = store.list(limit=args.limit)
    gaps = store.gaps(limit=args.limit)
    groups = group_gaps(gaps)
    if args.json:
        grouped = [{"count": g.count, "example": g.example.question, "ids": [q.id for q in g.questions]} for g in groups]
        out = {"feedback": [f.to_dict() for f in feedback], "gaps": [g.__dict__ for g in gaps], "gap_groups": grouped}
        print(json.dumps(out, ensure_ascii=False))
        return EXIT_OK
    print(f"Feedback ({len(feedback)} shown, newest first):")
    for f in feedback:
        mark = "+" if f.rating == "up" else "-"
        note = f"  comment: {_one_line(f.comment, 70)}" if f.comment else ""
        print(f"  [{mark}] {_when(f.ts)} {f.face:<5} {_one_line(f.question, 60)}{note}")
    if not feedback:
        print("  (none yet)")
    print()
    print(f"Knowledge gaps: questions abstained on ({len(gaps)} shown, similar ones grouped, most asked first):")
    for group in groups:
        g = group.example
        print(f"  {group.count:>3}x  {_when(g.ts)} {g.face:<5} {_one_line(g.question)}")
    if not gaps:
        print("  (none yet)")
    return EXIT_OK


def _drafts(store, out_dir: Path) -> int:
    from assistant.feedback.drafts import write_drafts

    gaps = store.answered_gaps()
    written = write_drafts(gaps, out_dir)
    for path in written:
        print(f"draft: {path}")
    print(
        f"{len(written)} new draft(s) in {out_dir} from {len(gaps)} answered Slack thread(s); review each and move "
        "it to corpus/entries/ to publish"
    )
    return EXIT_OK
