"""Answer latency in process, on one thread, over the index `make run` serves, with where the time goes.

    python benchmarks/bench_latency.py [--index-dir .index/makerun-0.33.0] [--repeat 1] [--limit 0]

The index is the one `make run` builds with default settings (the curated entries, the release's docs and its
source): `.index` after `make run`, or the eval's copy `.index/makerun-<version>`. Nothing is written to it.

**Every measured question is new to the process**, as a real user's is. The queries are the eval sets (questions,
error lines, pasted logs and reports, Chinese ones) split in two halves, alternately within each set so both have
the same mix. A fresh `Assistant` warms up on one half and is measured on the other; then another fresh one the
other way round, so every query is measured once per `--repeat`, each time by a process that has never seen it.
Warm, because a server that has answered other users has them warm: the models, the lexical and USE indexes, the
stored paragraph vectors, lazy imports, jieba's dictionary, and the vector cache's entries for the *paragraphs* of
docs sections the other half reached (`CachedEmbedder`: any user reaching that section shares them). Cold: the
question's own vectors (MiniLM and USE) and the paragraphs only this question reaches. (Asking the same queries
after a warm-up, as this script once did, measures the question cache: no question embedding at all.)

Prints p50/p95/mean of the wall time and the CPU time (`time.process_time`, which a busy shared machine disturbs
less) per answer, overall and by kind (a short question; a pasted report or log, longer than `PASTE_CHARS`); and
the mean time per answer of each stage, exclusive of the stages nested in it (the lead-passage choice's paragraph
embedding counts as embedding, not as compose), with the question's embedding per model apart from paragraphs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from assistant.settings import REPO_ROOT, Settings

SETS = ("seed", "docs", "docs_zh", "reports", "negatives", "near_miss")
QUESTION = "question embedding"  # the marker stage around `Retriever.embedded`: the question's own vectors


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Stages:
    """Exclusive time per stage: a stage's clock stops while a stage nested in it runs.

    A stage's name may depend on the stage it runs in (`name` a function of the enclosing stage's name): the same model call is the question's
    embedding inside `Retriever.embedded` and a paragraph's inside the lead-passage choice."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self._stack: list[list] = []  # [name, started, nested seconds, CPU started, nested CPU seconds]
        self.measured: dict[str, float] = defaultdict(float)  # the totals of the passes kept
        self.measured_cpu: dict[str, float] = defaultdict(float)

    def wrap(self, name: str | Callable[[str | None], str], fn: Callable) -> Callable:
        def timed(*args, **kwargs):
            outer = self._stack[-1][0] if self._stack else None
            label = name(outer) if callable(name) else name
            self._stack.append([label, time.perf_counter(), 0.0, time.process_time(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                label, started, nested, cpu_started, cpu_nested = self._stack.pop()
                spent, cpu = time.perf_counter() - started, time.process_time() - cpu_started
                self.totals[label] += spent - nested
                self.cpu[label] += cpu - cpu_nested
                if self._stack:
                    self._stack[-1][2] += spent
                    self._stack[-1][4] += cpu

        return timed

    def reset(self) -> None:
        self.totals.clear()
        self.cpu.clear()

    def keep(self) -> None:
        """Add the totals since the last reset to `measured`."""
        for name, seconds in self.totals.items():
            self.measured[name] += seconds
            self.measured_cpu[name] += self.cpu[name]
        self.reset()


def _embedding(model: str) -> Callable[[str | None], str]:
    return lambda outer: f"{QUESTION} ({model})" if outer == QUESTION else f"paragraph embedding ({model}, query time)"


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

    retriever.Retriever.embedded = stages.wrap(QUESTION, retriever.Retriever.embedded)
    SentenceTransformerEmbedder.embed = stages.wrap(_embedding("MiniLM"), SentenceTransformerEmbedder.embed)
    UseEmbedder.embed = stages.wrap(_embedding("USE"), UseEmbedder.embed)
    UseMatrix.nearest = stages.wrap("dense search (USE)", UseMatrix.nearest)
    UseMatrix.similarities = stages.wrap("dense search (USE)", UseMatrix.similarities)
    ChromaStore.query = stages.wrap("dense search (Chroma)", ChromaStore.query)
    ChromaStore.vectors = stages.wrap("dense search (Chroma)", ChromaStore.vectors)
    retriever.Retriever.stored_vectors = stages.wrap("dense search (Chroma)", retriever.Retriever.stored_vectors)
    LexicalIndex.scores = stages.wrap("lexical (BM25)", LexicalIndex.scores)
    LexicalIndex.top = stages.wrap("lexical (BM25)", LexicalIndex.top)
    retriever.relative_score_fusion = stages.wrap("fusion", retriever.relative_score_fusion)
    service.analyze = stages.wrap("query analysis", service.analyze)
    ReleaseKnowledge.findings = stages.wrap("matcher / release findings", ReleaseKnowledge.findings)
    ReleaseKnowledge.check = stages.wrap("matcher / release findings", ReleaseKnowledge.check)
    service.compose = stages.wrap("compose", service.compose)


def load_queries(limit: int) -> list[tuple[str, str]]:
    """(set, query) of every eval set, or `limit` of them spread evenly over the sets."""
    from assistant.eval.dataset import load_sets

    queries = [(name, item.query) for name, items in load_sets(list(SETS)).items() for item in items]
    if limit and limit < len(queries):
        queries = [queries[i * len(queries) // limit] for i in range(limit)]
    return queries


def halves(queries: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Two disjoint halves with the same mix of sets: every other query of each set. A query text that occurs
    twice (the same error in two sets) goes to one half only, so no measured question was seen in the warm-up."""
    first, second, seen, count = [], [], {}, defaultdict(int)
    for name, q in queries:
        if q in seen:
            seen[q].append((name, q))
            continue
        side = first if count[name] % 2 == 0 else second
        count[name] += 1
        seen[q] = side
        side.append((name, q))
    return first, second


def row(name: str, vals: list[float]) -> str:
    return f"| {name} | {len(vals)} | {percentile(vals, 50):.1f} | {percentile(vals, 95):.1f} | {statistics.fmean(vals):.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, default=REPO_ROOT / ".index")
    parser.add_argument(
        "--repeat", type=int, default=1, help="measure every query this many times (by a fresh Assistant each time)"
    )
    parser.add_argument("--limit", type=int, default=0, help="use N queries spread evenly over the sets (0: all)")
    args = parser.parse_args()

    from assistant.index.embedder import apply_torch_threads
    from assistant.retrieval.evidence import PASTE_CHARS, is_paste
    from assistant.service import Assistant

    apply_torch_threads(Settings(torch_threads=1))  # one thread (PyTorch and BLAS), as app.py serves each request
    queries = load_queries(args.limit)
    first, second = halves(queries)
    stages = Stages()
    instrument(stages)
    wall: list[float] = []
    cpu: list[float] = []
    kinds: dict[str, list[float]] = defaultdict(list)
    per_set: dict[str, list[float]] = defaultdict(list)
    misses = 0
    a = None
    for _ in range(args.repeat):
        for warm, measured in ((first, second), (second, first)):
            a = Assistant(Settings(index_dir=args.index_dir))  # new: its vector caches hold nothing of `measured`
            status, _ = a.index_status()
            if status != "complete":
                raise SystemExit(f"the index at {a.store.location} is {status}: build it with `make run` first")
            a.warm_up()
            for _name, q in warm:
                a.ask(q)
            stages.reset()  # only the measured pass counts
            before_misses = a.query_embedder.misses
            for name, q in measured:
                t, c = time.perf_counter(), time.process_time()
                a.ask(q)
                ms = (time.perf_counter() - t) * 1000
                wall.append(ms)
                cpu.append((time.process_time() - c) * 1000)
                kinds["pasted report / log" if is_paste(q) else "short question"].append(ms)
                per_set[name].append(ms)
            misses += a.query_embedder.misses - before_misses
            stages.keep()

    n = len(wall)
    channels = "MiniLM + BM25" + (" + USE" if a.retriever.use_matrix() is not None else "")
    print(f"index: {a.store.count()} chunks at {a.store.location}; {len(first) + len(second)} distinct queries,"
          f" each measured {args.repeat}x by a process that had not seen it (warm-up: the other half); 1 thread;"
          f" {channels}")  # fmt: skip
    print(
        f"MiniLM texts embedded at query time in the measured passes: {misses} ({misses / n:.2f} per answer;"
        " the question's own and paragraphs without a stored or cached vector)"
    )
    print()
    print("| per answer | n | p50 ms | p95 ms | mean ms |")
    print("|---|---:|---:|---:|---:|")
    print(row("wall time", wall))
    print(row("CPU time", cpu))
    for kind in ("short question", "pasted report / log"):
        if kinds[kind]:
            print(row(f"wall, {kind}" + (f" (> {PASTE_CHARS} chars)" if "paste" in kind else ""), kinds[kind]))
    for name in SETS:
        if per_set[name]:
            print(row(f"wall, set {name}", per_set[name]))
    print()
    total, total_cpu = sum(wall) / n, sum(cpu) / n
    print("| stage (exclusive) | wall ms per answer | share | CPU ms per answer | share |")
    print("|---|---:|---:|---:|---:|")
    accounted = accounted_cpu = 0.0
    for name, seconds in sorted(stages.measured.items(), key=lambda kv: -stages.measured_cpu[kv[0]]):
        ms, cpu_ms = seconds * 1000 / n, stages.measured_cpu[name] * 1000 / n
        accounted += ms
        accounted_cpu += cpu_ms
        label = f"{name} (glue)" if name == QUESTION else name
        print(f"| {label} | {ms:.2f} | {ms / total:.0%} | {cpu_ms:.2f} | {cpu_ms / total_cpu:.0%} |")
    rest, rest_cpu = total - accounted, total_cpu - accounted_cpu
    print(f"| everything else (applicability, scope, rendering, retrieval glue) | {rest:.2f} | {rest / total:.0%}"
          f" | {rest_cpu:.2f} | {rest_cpu / total_cpu:.0%} |")  # fmt: skip


if __name__ == "__main__":
    main()
