"""Warm query latency on the seed corpus plus vLLM's docs, and the cost of re-ingesting unchanged input.

    python benchmarks/bench_latency.py [--docs ../shared/vllm-docs] [--repeat 3]

Prints a table: p50/p95 of retrieval alone and of the full extractive answer, over the eval queries
(real user-style questions, error lines and pasted logs), after one warm-up pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from assistant.index.embedder import apply_torch_threads
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=REPO_ROOT.parent / "shared" / "vllm-docs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    queries = []
    for name in ("seed", "docs", "negatives", "near_miss"):
        with (REPO_ROOT / "eval" / "sets" / f"{name}.jsonl").open(encoding="utf-8") as fh:
            queries += [json.loads(line)["query"] for line in fh if line.strip()]

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(index_dir=Path(tmp))
        a = Assistant(settings)
        t0 = time.perf_counter()
        first = a.ingest([settings.corpus_dir, args.docs])
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = Assistant(settings).ingest([settings.corpus_dir, args.docs])
        reingest = time.perf_counter() - t0
        apply_torch_threads(settings)  # as app.py serves
        a.warm_up()
        for q in queries:  # warm-up pass: caches, lazy imports, jieba's dictionary
            a.ask(q)
        retrieval, answer = [], []
        for _ in range(args.repeat):
            for q in queries:
                t = time.perf_counter()
                a.retrieve(q)
                retrieval.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                a.ask(q)
                answer.append((time.perf_counter() - t) * 1000)

    print(f"corpus: {first.chunks} chunks from {first.files} files; {len(queries)} queries x {args.repeat}")
    print(f"first build: {build:.1f} s; re-ingest unchanged: {reingest:.2f} s ({again.summary()})")
    print()
    print("| stage | p50 ms | p95 ms | mean ms |")
    print("|---|---|---|---|")
    for name, vals in (("retrieval", retrieval), ("full answer (extractive)", answer)):
        print(f"| {name} | {percentile(vals, 50):.1f} | {percentile(vals, 95):.1f} | {statistics.fmean(vals):.1f} |")


if __name__ == "__main__":
    main()
