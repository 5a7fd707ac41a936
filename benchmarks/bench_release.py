"""What indexing a vLLM release costs: sync time, items, index size, start-up, answer latency with it indexed.

    python benchmarks/bench_release.py [--release 0.33.0] [--repeat 2]

The wheel is taken from `.data/wheels` (downloaded there by pip on first use; the download is timed
apart). Sync runs into a fresh temporary index; start-up is a new process loading the index with the
release, as `make run` does after its first run; latency is warm, over the seed / docs / negative eval
queries plus the raise-site eval's pasted errors.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from assistant.index.embedder import apply_torch_threads
from assistant.release.fetch import download_wheel
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings

STARTUP = """
import time, sys
t0 = time.perf_counter()
from assistant.service import Assistant
from assistant.settings import Settings
a = Assistant(Settings(index_dir=sys.argv[1], vllm_releases=[sys.argv[2]]))
a.ensure_index(); a.ensure_releases(); a.warm_up()
print(time.perf_counter() - t0)
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default="0.33.0")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    queries = []
    for name in ("seed", "docs", "negatives"):
        with (REPO_ROOT / "eval" / "sets" / f"{name}.jsonl").open(encoding="utf-8") as fh:
            queries += [json.loads(line)["query"] for line in fh if line.strip()]
    with (REPO_ROOT / "eval" / "release" / "raise_sites.jsonl").open(encoding="utf-8") as fh:
        queries += [json.loads(line)["query"] for line in fh if line.strip()]

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(index_dir=Path(tmp), vllm_releases=[args.release])
        t0 = time.perf_counter()
        download_wheel(args.release, settings.wheel_cache_dir, lambda m: print(m, file=sys.stderr))
        download = time.perf_counter() - t0
        a = Assistant(settings)
        a.ensure_index()
        t0 = time.perf_counter()
        (report,) = a.ensure_releases(lambda m: None)
        sync = time.perf_counter() - t0
        size = a.releases.store.size_bytes()
        startup = float(
            subprocess.run(
                [sys.executable, "-c", STARTUP, tmp, args.release],
                cwd=REPO_ROOT,
                env={**os.environ, "HF_HUB_OFFLINE": "1"},
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        apply_torch_threads(settings)
        a.warm_up()
        for q in queries:
            a.ask(q)
        times = []
        for _ in range(args.repeat):
            for q in queries:
                t = time.perf_counter()
                a.ask(q)
                times.append((time.perf_counter() - t) * 1000)

    rows = [
        ("release", args.release),
        ("wheel download (cached after the first)", f"{download:.1f} s"),
        ("sync: parse + extract + store", f"{sync:.1f} s ({report.files} files)"),
        ("items (env vars / flags / raise+log sites)", f"{report.chunks} ({report.env_vars} / {report.flags} / {report.sites})"),
        ("items embedded", "0 (matched by template and by name)"),
        ("release index size on disk", f"{size / 1e6:.2f} MB"),
        ("start-up with the release (new process: index, model, matcher)", f"{startup:.1f} s"),
        ("answer p50 / p95 (extractive, warm)", f"{percentile(times, 50):.1f} / {percentile(times, 95):.1f} ms"),
        ("queries x repeats", f"{len(queries)} x {args.repeat}"),
        ("load average (1 min) at the end", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"| {'measure'.ljust(width)} | value |")
    print(f"|{'-' * (width + 2)}|-------|")
    for k, v in rows:
        print(f"| {k.ljust(width)} | {v} |")


if __name__ == "__main__":
    main()
