"""Schema fuzzing: schemathesis against the served `/openapi.json`, bounded; counts server errors and mismatches.

    .venv/bin/python benchmarks/bench_schema.py                     # index in a temp dir, ~500 cases
    .venv/bin/python benchmarks/bench_schema.py --index-dir .index --max-examples 100

Starts `app.py --no-ui` (as users run it) on 127.0.0.1, waits for `/readyz`, then runs
`schemathesis run URL/openapi.json --checks all`, at most `--max-examples` cases per operation (6
operations), fixed seed, every failure reported (`--continue-on-failure`). Prints a table and exits 1
unless there are 0 server errors and 0 schema mismatches.

Every check runs, `positive_data_acceptance` (ST202) included: the schema states what the server refuses
with a 400 (a question needs a letter or a digit, `pattern: [\\p{L}\\p{N}]`; a conversation needs such a
user message, `contains`), so a schema-valid request is answered. `ignored_auth` finds nothing to check
without keys; the access tests (tests/api/test_access.py, test_key_guessing.py) cover them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.helpers.app_process import AppNotReady, start_app

HOST = "127.0.0.1"
CHECKS = "all"
SERVER_ERROR_CHECKS = {"not_a_server_error"}


def start_bench_app(index_dir: Path, feedback_db: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """app.py --no-ui with only this run's settings (no ASSISTANT_* from the caller's shell), stderr to `log`."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")},
        "ASSISTANT_INDEX_DIR": str(index_dir),
        "ASSISTANT_FEEDBACK_DB": str(feedback_db),
        "ASSISTANT_LOG_LEVEL": "WARNING",
    }
    with log.open("w") as err:
        try:
            return start_app(["--no-ui", "--host", HOST], env, stdout=subprocess.DEVNULL, stderr=err, wait=900)
        except AppNotReady as e:
            raise SystemExit(f"{e}; see {log}") from None


def schemathesis_exe() -> str:
    return shutil.which("schemathesis") or str(Path(sys.executable).parent / "schemathesis")


def run_schemathesis(base: str, max_examples: int, seed: int, report_dir: Path) -> tuple[int, list[dict], str]:
    """(exit code, failures from the NDJSON report, console output)."""
    cmd = [
        schemathesis_exe(),
        "run",
        f"{base}/openapi.json",
        "--checks",
        CHECKS,
        "--continue-on-failure",
        "--max-examples",
        str(max_examples),
        "--seed",
        str(seed),
        "--workers",
        "1",
        "--generation-database",
        "none",
        "--request-timeout",
        "60",
        "--no-color",
        "--report",
        "ndjson",
        "--report-dir",
        str(report_dir),
    ]
    report_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=3000, cwd=report_dir)
    return proc.returncode, _failures(report_dir), proc.stdout + proc.stderr


def _failures(report_dir: Path) -> list[dict]:
    """Every failed check in the NDJSON event stream, as {operation, check, status}."""
    out: list[dict] = []
    for path in report_dir.glob("*.ndjson"):
        for line in path.read_text(encoding="utf-8").splitlines():
            _collect(json.loads(line), out)
    return out


def _collect(node, out: list[dict]) -> None:
    """Walk an event for check results (their exact nesting varies between schemathesis versions)."""
    if isinstance(node, dict):
        if node.get("status") in ("FAILURE", "failure") and isinstance(node.get("name"), str):
            out.append({"check": node["name"], "operation": node.get("label") or node.get("operation", "?")})
        for value in node.values():
            _collect(value, out)
    elif isinstance(node, list):
        for value in node:
            _collect(value, out)


def cases_line(output: str) -> str:
    """The console's "N generated, N passed" line."""
    lines = [line.strip() for line in output.splitlines() if " generated" in line]
    return lines[-1] if lines else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-dir", type=Path, help="reuse an index (default: a temp dir, built on start-up)")
    parser.add_argument("--max-examples", type=int, default=85, help="cases per operation (6 operations)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-schema-"))
    proc, base = start_bench_app(args.index_dir or work / "index", work / "feedback.sqlite3", work / "app.log")
    try:
        started = time.perf_counter()
        code, failures, output = run_schemathesis(base, args.max_examples, args.seed, work / "report")
        elapsed = time.perf_counter() - started
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    server = sum(1 for f in failures if f["check"] in SERVER_ERROR_CHECKS)
    mismatches = len(failures) - server
    print("| schemathesis | value |\n|---|---|")
    print(f"| max examples per operation | {args.max_examples} (seed {args.seed}) |")
    print(f"| test cases | {cases_line(output)} |")
    print(f"| server errors (5xx) | {server} |")
    print(f"| schema mismatches (status, content type, headers, body, negative data) | {mismatches} |")
    print(f"| wall time | {elapsed:.0f} s |")
    if code != 0 or failures:
        print(output[-6000:], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
