"""Command line: `python -m assistant ingest|ask ...`. A stable contract: scripts rely on its output.

Exit codes: 0 success; 1 done, but some input files were skipped; 2 bad usage or input, reported on
stderr as one line (never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from assistant.answer.render import answer_json, plain_text
from assistant.errors import AssistantError
from assistant.settings import Settings

EXIT_OK, EXIT_SKIPPED, EXIT_USAGE = 0, 1, 2


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index-dir", type=Path, help="index folder (env ASSISTANT_INDEX_DIR)")
    p.add_argument("--chroma-url", help="Chroma server URL instead of the embedded store (env ASSISTANT_CHROMA_URL)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m assistant", description="vLLM troubleshooting assistant")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="add files or folders to the index (entries, Q&A pages, Markdown docs)")
    p.add_argument("paths", nargs="+", type=Path)
    _common(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("ask", help="answer an error message, a traceback or a problem description")
    p.add_argument("text", nargs="?", help="the question; '-' reads it from stdin")
    p.add_argument("--batch", type=Path, help='JSONL file of {"id", "query"} lines; one answer line each')
    p.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    p.add_argument("-k", "--top-k", type=int, dest="top_k", help="number of hits returned")
    p.add_argument("--backend", choices=["extractive", "openai"], help="answer backend (env ASSISTANT_ANSWER_BACKEND)")
    p.add_argument(
        "--vllm-version",
        help="your vLLM version: code facts come from this release (default: what the paste states, else "
        "ASSISTANT_VLLM_VERSION, else the newest indexed)",
    )
    _common(p)
    p.set_defaults(func=cmd_ask)

    for register in _extra_commands():
        register(sub)
    return parser


def _extra_commands():
    """Subcommands living beside their subsystem (eval, feedback), imported only when present."""
    import importlib

    for module in (
        "assistant.eval_cli",
        "assistant.feedback_cli",
        "assistant.sync_cli",
        "assistant.settings_cli",
        "assistant.release_cli",
    ):
        try:
            yield importlib.import_module(module).register
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def settings_from(args: argparse.Namespace) -> Settings:
    return Settings().with_overrides(
        index_dir=getattr(args, "index_dir", None),
        chroma_url=getattr(args, "chroma_url", None),
        top_k=getattr(args, "top_k", None),
        answer_backend=getattr(args, "backend", None),
    )


def make_assistant(settings: Settings):
    from assistant.service import Assistant

    return Assistant(settings)


def cmd_ingest(args: argparse.Namespace) -> int:
    assistant = make_assistant(settings_from(args))
    started = time.perf_counter()
    report = assistant.ingest(args.paths, progress=_stderr)
    elapsed = time.perf_counter() - started
    for err in report.skipped:
        _stderr(f"skipped: {err.path}: {err.reason}")
    print(f"{report.summary()} in {elapsed:.2f}s")
    return EXIT_SKIPPED if report.skipped else EXIT_OK


def _print_answer(answer, as_json: bool, extra: dict | None = None) -> None:
    if as_json:
        print(json.dumps({**(extra or {}), **answer_json(answer)}, ensure_ascii=False), flush=True)
    else:
        print(plain_text(answer))


def cmd_ask(args: argparse.Namespace) -> int:
    if args.batch is None and args.text is None:
        raise AssistantError("ask needs TEXT, '-' for stdin, or --batch FILE.jsonl")
    if args.batch is not None and args.text is not None:
        raise AssistantError("give either TEXT or --batch, not both")
    assistant = make_assistant(settings_from(args))
    if args.index_dir is not None:
        # An index the user named is answered from as it is, never built from another corpus: say what is wrong.
        assistant.require_complete_index()
        if assistant.index_status()[0] == "unverified":
            _stderr(f"note: {args.index_dir} has no build-completion record (built before records were kept)")
    else:
        report = assistant.ensure_index(progress=_stderr)
        if report is not None:
            _stderr(f"index built: {report.summary()}")
    if args.batch is not None:
        return _ask_batch(assistant, args.batch, args.json, args.vllm_version)
    text = sys.stdin.read() if args.text == "-" else args.text
    _print_answer(assistant.ask(text, vllm_version=args.vllm_version), args.json)
    return EXIT_OK


def _ask_batch(assistant, path: Path, as_json: bool, vllm_version: str | None = None) -> int:
    if not as_json:
        raise AssistantError("--batch writes JSON lines: add --json")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AssistantError(f"cannot read {path}: {exc}") from exc
    status = EXIT_OK
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict) or "query" not in item:
                raise ValueError('each line must be an object with "id" and "query"')
            answer = assistant.ask(item["query"], vllm_version=vllm_version)
            _print_answer(answer, True, {"id": item.get("id", lineno)})
        except (ValueError, AssistantError) as exc:
            status = EXIT_USAGE
            print(json.dumps({"id": lineno, "error": f"line {lineno}: {exc}"}, ensure_ascii=False), flush=True)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AssistantError as exc:
        _stderr(f"error: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _stderr("interrupted")
        return 130
