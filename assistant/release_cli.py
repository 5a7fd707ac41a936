"""`python -m assistant releases` (what is indexed, what changed) and `eval-release` (the raise-site eval).

Syncing a release is `python -m assistant sync vllm==0.33.0` (assistant/sync_cli.py), which calls
`assistant.release.sync.sync_release`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assistant.errors import AssistantError
from assistant.settings import REPO_ROOT

EVAL_RELEASE = "0.33.0"
EVAL_CASES = REPO_ROOT / "eval" / "release" / "raise_sites.jsonl"
EVAL_RESULTS = REPO_ROOT / "eval" / "release" / "results.md"


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("releases", help="list the indexed vLLM releases, or what changed between two of them")
    p.add_argument(
        "--diff", nargs=2, metavar=("OLD", "NEW"), help="env vars, flags and messages added / removed / changed"
    )
    p.add_argument("--index-dir", type=Path, help="index folder (env ASSISTANT_INDEX_DIR)")
    p.set_defaults(func=cmd_releases)

    p = sub.add_parser("eval-release", help="raise-site hit@1 of pasted errors against a synced release, with baselines")
    p.add_argument("--release", default=EVAL_RELEASE, help=f"the release the expected sites are in (default {EVAL_RELEASE})")
    p.add_argument("--cases", type=Path, default=EVAL_CASES, help="JSONL of pasted errors and expected raise sites")
    p.add_argument("--systems", default="matcher,bm25,dense", help="comma-separated: matcher, bm25, dense")
    p.add_argument("--write", action="store_true", help=f"write {EVAL_RESULTS.relative_to(REPO_ROOT)}")
    p.add_argument("--index-dir", type=Path, help="index folder holding the synced release (synced there if missing)")
    p.set_defaults(func=cmd_eval_release)


def cmd_releases(args: argparse.Namespace) -> int:
    from assistant.cli import settings_from
    from assistant.release.diff import diff_releases
    from assistant.release.fetch import release_version
    from assistant.release.store import ReleaseStore

    store = ReleaseStore(settings_from(args).index_dir)
    if args.diff:
        old, new = (release_version(v) for v in args.diff)
        for v in (old, new):
            if v in store.stale():
                raise AssistantError(
                    f"vLLM {v} was indexed by an older version of the assistant: sync it again "
                    f"(python -m assistant sync vllm=={v})"
                )
            if not store.has(v):
                raise AssistantError(f"vLLM {v} is not indexed; indexed: {', '.join(store.versions()) or 'none'}")
        print(diff_releases(store.load(old), store.load(new)).render())
        return 0
    for v in store.versions():
        facts = store.load(v)
        print(
            f"{v}\t{len(facts.env_vars)} env vars\t{len(facts.flags)} flags\t{len(facts.sites)} sites\t{facts.origin}"
        )
    for v in store.stale():
        print(f"{v}\tindexed by an older version of the assistant: sync it again")
    return 0


def cmd_eval_release(args: argparse.Namespace) -> int:
    from assistant.cli import make_assistant, settings_from
    from assistant.release import evaluate

    settings = settings_from(args)
    if args.index_dir is None:
        settings = settings.with_overrides(index_dir=REPO_ROOT / ".data" / "eval-release-index")
    assistant = make_assistant(settings)
    assistant.sync([args.release], progress=_stderr)  # a no-op once synced
    cases = evaluate.load_cases(args.cases)
    sites = assistant.releases.get(args.release).facts.sites
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    rankers = {
        "matcher": lambda: evaluate.matcher_ranker(assistant.releases, args.release),
        "bm25": lambda: evaluate.bm25_ranker(sites),
        "dense": lambda: evaluate.dense_ranker(sites, assistant.embedder.embed),
    }
    unknown = [s for s in systems if s not in rankers]
    if unknown:
        raise AssistantError(f"unknown system(s) {', '.join(unknown)}; choose from: {', '.join(rankers)}")
    scores = []
    for name in systems:
        _stderr(f"eval-release: {name}")
        scores.append(evaluate.score(name, rankers[name](), cases, args.release))
    command = "python -m assistant eval-release" + (f" --systems {args.systems}" if args.systems != "matcher,bm25,dense" else "")
    text = evaluate.render(scores, args.release, len(sites), command)
    print(text)
    if args.write:
        EVAL_RESULTS.write_text(text, encoding="utf-8")
    return 0
