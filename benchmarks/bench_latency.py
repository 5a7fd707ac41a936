"""Answer latency in process, on one thread, over the index `make run` serves, with where the time goes.

    python benchmarks/bench_latency.py [--index-dir .index] [--repeat 2] [--limit 0]

The index is the one `python app.py` builds with default settings (the curated entries, the release's
docs and its source); build it first (`make run` until /readyz is ready). Nothing is written to it.
The queries are the eval sets (real user-style questions, error lines, pasted logs, Chinese ones),
after one warm-up pass. Prints p50/p95/mean of the wall time and the CPU time (`time.process_time`,
which a busy shared machine disturbs less) per answer, and the mean time per answer of each stage,
exclusive of the stages nested in it (the lead-passage choice's embedding counts as embedding, not as
compose).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from assistant.settings import REPO_ROOT, Settings

SETS = ("seed", "docs", "docs_zh", "reports", "negatives", "near_miss")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Stages:
    """Exclusive time per stage: a stage's clock stops while a stage nested in it runs."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self._stack: list[list] = []  # [name, started, nested seconds]

    def wrap(self, name: str, fn: Callable) -> Callable:
        def timed(*args, **kwargs):
            self._stack.append([name, time.perf_counter(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                _, started, nested = self._stack.pop()
                spent = time.perf_counter() - started
                self.totals[name] += spent - nested
                if self._stack:
                    self._stack[-1][2] += spent

        return timed

    def reset(self) -> None:
        self.totals.clear()


def instrument(stages: Stages) -> None:
    """Time the hidden costs by wrapping the functions each stage calls (this process only)."""
    from assistant import service
    from assistant.index.embedder import SentenceTransformerEmbedder
    from assistant.index.lexical import LexicalIndex
    from assistant.index.store import ChromaStore
    from assistant.index.use_embedder import UseEmbedder
    from assistant.index.use_vectors import UseMatrix
    from assistant.release.knowledge import ReleaseKnowledge
    from assistant.retrieval import retriever

    SentenceTransformerEmbedder.embed = stages.wrap("embedding", SentenceTransformerEmbedder.embed)
    UseEmbedder.embed = stages.wrap("embedding (USE)", UseEmbedder.embed)
    UseMatrix.nearest = stages.wrap("dense search (USE)", UseMatrix.nearest)
    UseMatrix.similarities = stages.wrap("dense search (USE)", UseMatrix.similarities)
    ChromaStore.query = stages.wrap("dense search (Chroma)", ChromaStore.query)
    ChromaStore.vectors = stages.wrap("dense search (Chroma)", ChromaStore.vectors)
    LexicalIndex.scores = stages.wrap("lexical (BM25)", LexicalIndex.scores)
    LexicalIndex.top = stages.wrap("lexical (BM25)", LexicalIndex.top)
    retriever.relative_score_fusion = stages.wrap("fusion", retriever.relative_score_fusion)
    service.analyze = stages.wrap("query analysis", service.analyze)
    ReleaseKnowledge.findings = stages.wrap("matcher / release findings", ReleaseKnowledge.findings)
    ReleaseKnowledge.check = stages.wrap("matcher / release findings", ReleaseKnowledge.check)
    service.compose = stages.wrap("compose", service.compose)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, default=REPO_ROOT / ".index")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="use N queries spread evenly over the sets (0: all)")
    args = parser.parse_args()

    from assistant.index.embedder import apply_torch_threads
    from assistant.service import Assistant

    apply_torch_threads(Settings(torch_threads=1))  # one thread (PyTorch and BLAS), as app.py serves each request
    queries: list[str] = []
    for name in SETS:
        path = REPO_ROOT / "eval" / "sets" / f"{name}.jsonl"
        with path.open(encoding="utf-8") as fh:
            queries += [json.loads(line)["query"] for line in fh if line.strip()]
    if args.limit and args.limit < len(queries):
        queries = [queries[i * len(queries) // args.limit] for i in range(args.limit)]

    stages = Stages()
    instrument(stages)
    a = Assistant(Settings(index_dir=args.index_dir))
    status, _ = a.index_status()
    if status != "complete":
        raise SystemExit(f"the index at {a.store.location} is {status}: build it with `python app.py` first")
    a.warm_up()
    for q in queries:  # warm-up pass: caches, lazy imports, jieba's dictionary
        a.ask(q)
    stages.reset()
    wall, cpu = [], []
    for _ in range(args.repeat):
        for q in queries:
            t, c = time.perf_counter(), time.process_time()
            a.ask(q)
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)

    n = len(wall)
    channels = "MiniLM + BM25" + (" + USE" if a.retriever.use_matrix() is not None else "")
    print(f"index: {a.store.count()} chunks at {a.store.location}; {len(queries)} queries x {args.repeat}; 1 thread;"
          f" {channels}")  # fmt: skip
    print()
    print("| per answer | p50 ms | p95 ms | mean ms |")
    print("|---|---|---|---|")
    for name, vals in (("wall time", wall), ("CPU time", cpu)):
        print(f"| {name} | {percentile(vals, 50):.1f} | {percentile(vals, 95):.1f} | {statistics.fmean(vals):.1f} |")
    print()
    total = sum(wall) / n
    print("| stage (exclusive) | mean ms per answer | share |")
    print("|---|---|---|")
    accounted = 0.0
    for name, seconds in sorted(stages.totals.items(), key=lambda kv: -kv[1]):
        ms = seconds * 1000 / n
        accounted += ms
        print(f"| {name} | {ms:.2f} | {ms / total:.0%} |")
    rest = total - accounted
    print(f"| everything else (applicability, scope, rendering, retrieval glue) | {rest:.2f} | {rest / total:.0%} |")


if __name__ == "__main__":
    main()
