"""schemathesis against the live app's /openapi.json (bounded): 0 server errors, 0 schema mismatches."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from assistant.settings import REPO_ROOT

_spec = importlib.util.spec_from_file_location("bench_schema", REPO_ROOT / "benchmarks" / "bench_schema.py")
bench_schema = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_schema)


def test_schemathesis_finds_no_server_error_and_no_mismatch(base_url: str, tmp_path: Path) -> None:
    code, failures, output = bench_schema.run_schemathesis(base_url, max_examples=85, seed=11, report_dir=tmp_path)
    assert failures == [], output[-4000:]
    assert code == 0, output[-4000:]
    assert " generated" in bench_schema.cases_line(output)
