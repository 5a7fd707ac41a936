"""`python -m assistant eval`: the scored eval — full pipeline vs BM25-only vs dense-only, one table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assistant.settings import REPO_ROOT


def register(sub: argparse._SubParsersAction) -> None:
    from assistant.eval.dataset import SETS

    p = sub.add_parser("eval", help="score the full pipeline and the baselines on the labelled eval sets")
    p.add_argument("--set", dest="set_name", choices=[*SETS, "all"], default="all", help="which set (default: all)")
    p.add_argument(
        "--systems", default="full,bm25,dense", help="comma-separated: full, bm25, dense (default: all three)"
    )
    p.add_argument("--json", action="store_true", help="print the table rows as JSON instead of Markdown")
    p.add_argument("--index-dir", type=Path, help="the eval's own index folder (default: .index/eval)")
    p.add_argument("--docs-dir", type=Path, help="vLLM docs ingested beside the corpus (default: ../shared/vllm-docs)")
    p.add_argument(
        "--docs-release",
        metavar="VERSION",
        help="instead of --docs-dir, score on what `make run` serves for vLLM VERSION: the entries, the release's"
        " docs (its source distribution) and code facts (its wheel), indexed by the server's own start-up step"
        " (index: .index/makerun-VERSION), each item with its labels on that release (release_labels)",
    )
    p.add_argument("--backend", choices=["extractive", "openai"], help="answer backend of the full pipeline")
    p.add_argument(
        "--sets-dir",
        type=Path,
        help="score the sets in this folder instead of eval/sets (e.g. a batch of fresh questions, measured before"
        " anything is changed for them); with --set all, the sets whose files it holds",
    )
    p.add_argument(
        "--split",
        choices=["all", "held_out", "fitting"],
        default="all",
        help="which queries: all, the held-out split the CI gate scores, or the evidence model's fitting side",
    )
    p.add_argument(
        "--records",
        type=Path,
        metavar="FILE",
        help="also write each query's outcome (top hits, citations, key-fact recall, failures) to FILE, one JSON"
        " object a line: to see why a question failed without running the eval again",
    )
    p.add_argument(
        "--write",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write eval/results.md and eval/results.json (default: only for a run of every set and system)",
    )
    p.set_defaults(func=cmd_eval)


def chosen_sets(set_name: str, sets_dir: Path | None) -> list[str]:
    """The sets to score: one, every set, or (from another folder) every set whose file that folder holds."""
    from assistant.errors import ConfigError
    from assistant.eval.dataset import SETS

    if set_name != "all":
        return [set_name]
    if sets_dir is None:
        return list(SETS)
    present = [name for name in SETS if (sets_dir / f"{name}.jsonl").is_file()]
    if not present:
        raise ConfigError(f"{sets_dir} holds no eval set: expected files named {', '.join(f'{n}.jsonl' for n in SETS)}")
    return present


def cmd_eval(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError
    from assistant.eval.runner import (
        DEFAULT_DOCS_DIR,
        eval_settings,
        markdown_table,
        result_record,
        run_eval,
        write_results,
    )
    from assistant.settings import Settings

    if args.sets_dir is not None and args.write:
        raise ConfigError("--write records the project's own sets in eval/; it cannot be combined with --sets-dir")
    if args.docs_release and args.docs_dir:
        raise ConfigError("--docs-release names the docs to index: it cannot be combined with --docs-dir")
    from assistant.eval.release_corpus import release_settings

    settings = Settings().with_overrides(answer_backend=args.backend)
    if args.docs_release:
        settings = release_settings(settings, args.docs_release, args.index_dir)
    else:
        settings = eval_settings(settings, args.index_dir)
    sets = chosen_sets(args.set_name, args.sets_dir)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    progress = lambda m: print(m, file=sys.stderr, flush=True)
    docs_dir = args.docs_dir or DEFAULT_DOCS_DIR
    run = run_eval(
        settings,
        sets,
        systems,
        docs_dir=docs_dir,
        sets_dir=args.sets_dir,
        progress=progress,
        split=args.split,
        docs_release=args.docs_release,
    )
    if args.records is not None:
        lines = [json.dumps(result_record(r), ensure_ascii=False) for r in run.results]
        args.records.write_text("\n".join(lines) + "\n", encoding="utf-8")
        progress(f"wrote {len(lines)} query records to {args.records}")
    if args.json:
        print(json.dumps({"meta": run.meta, "rows": [r.to_dict() for r in run.rows]}, indent=2))
    else:
        print(markdown_table(run.rows))
    default_write = args.set_name == "all" and len(systems) == 3 and args.sets_dir is None
    write = args.write if args.write is not None else default_write
    if write:
        command = "python -m assistant eval" + (f" --backend {args.backend}" if args.backend else "")
        command += f" --docs-release {args.docs_release}" if args.docs_release else ""
        command += f" --systems {','.join(systems)}" if args.docs_release and len(systems) < 3 else ""
        command += f" --split {args.split}" if args.split != "all" else ""
        stem = "results-llm" if settings.answer_backend == "openai" else "results"  # the LLM run beside, not over
        stem = "results-makerun" if args.docs_release else stem  # results.md shows its summary
        md, js = write_results(run, REPO_ROOT / "eval", command, stem)
        progress(f"wrote {md.relative_to(REPO_ROOT)} and {js.relative_to(REPO_ROOT)}")
    return 0
