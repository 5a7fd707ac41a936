"""`python -m assistant sync [NAME|vllm==X|WHEEL|TREE ...]`: bring declared sources up to date.

Exit codes: 0 every source synced; 1 some source failed or stopped early (rate limit: the message
says when to retry; the next run resumes); 2 bad usage or a bad sources file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

EXIT_OK, EXIT_PARTIAL = 0, 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sync",
        help="bring the sources in corpus/sources.yaml up to date (all enabled ones, or those named)",
        description="Sync declared sources (entries and Q&A folders, versioned docs, GitHub issues, vLLM releases). "
        "A NAME is a source of the sources file; vllm==X, a .whl file or a vLLM source tree sync that release.",
    )
    p.add_argument("targets", nargs="*", metavar="NAME", help="sources to sync (default: every enabled source)")
    p.add_argument(
        "--sources", type=Path, help="sources file (env ASSISTANT_SOURCES_FILE, default corpus/sources.yaml)"
    )
    p.add_argument("--installed", action="store_true", help="sync the vLLM release installed in this environment")
    p.add_argument("--as-version", help="the version of a vLLM source tree that does not state one")
    p.add_argument("--force", action="store_true", help="read a named release again even when it is indexed")
    p.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--index-dir", type=Path, help="index folder (env ASSISTANT_INDEX_DIR)")
    p.add_argument("--chroma-url", help="Chroma server URL instead of the embedded store (env ASSISTANT_CHROMA_URL)")
    p.set_defaults(func=cmd_sync)


def _release_name(spec: str) -> str:
    base = Path(spec).name if not spec.startswith("vllm==") else spec.replace("==", "-")
    return "release-" + (re.sub(r"[^a-z0-9._-]+", "-", base.lower()).strip("-.") or "vllm")[:50]


def _selected(args: argparse.Namespace, settings):
    from assistant.sync.release import looks_like_release
    from assistant.sync.sources import ReleaseSource, load_sources, select

    specs = [t for t in args.targets if looks_like_release(t)] + (["installed"] if args.installed else [])
    names = [t for t in args.targets if not looks_like_release(t)]
    declared = load_sources(settings.sources_file) if names or not specs else []
    chosen = select(declared, names) if names or not specs else []
    adhoc = [
        ReleaseSource(kind="vllm_release", name=_release_name(s), spec=s, as_version=args.as_version, force=args.force)
        for s in specs
    ]
    return chosen + adhoc


def cmd_sync(args: argparse.Namespace) -> int:
    from assistant.cli import _stderr
    from assistant.settings import Settings
    from assistant.sync.runner import run_sync

    settings = Settings().with_overrides(
        index_dir=args.index_dir, chroma_url=args.chroma_url, sources_file=args.sources
    )
    sources = _selected(args, settings)
    if not sources:
        _stderr("no enabled sources in the sources file: name one (`sync NAME`) or enable one")
        return EXIT_OK
    report = run_sync(settings, sources, dry_run=args.dry_run, progress=_stderr)
    if settings.use_channel and not args.dry_run and any(r.counts.wrote for r in report.results):
        from assistant.service import Assistant

        # A sync writes sections without their USE vectors (a server fills them once ready): a CLI-only user's
        # index gets them now, or the channel would stay off for every `ask`.
        Assistant(settings).ensure_use_vectors(progress=_stderr)
    if args.json:
        out = {
            "dry_run": report.dry_run,
            "generation": report.generation,
            "sources": [
                {
                    "name": r.name,
                    "kind": r.kind,
                    "status": r.status,
                    **r.counts.as_dict(),
                    "requests": r.requests,
                    "error": r.error,
                    "retry_at": r.retry_at,
                    "notes": r.notes,
                }
                for r in report.results
            ],
        }
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(report.summary())
        for r in report.results:
            for note in r.notes:
                print(f"  {r.name}: {note}")
    sys.stdout.flush()
    return EXIT_OK if report.ok else EXIT_PARTIAL
