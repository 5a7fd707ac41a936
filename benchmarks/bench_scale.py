"""How cost grows with the corpus: ingest time, index size, memory and warm query latency at 1k/10k/100k chunks.

Synthetic corpora are Markdown pages written by a word-level Markov chain trained on the real vLLM
docs (so the vocabulary, identifiers and term statistics look like the docs, not lorem ipsum), with
section lengths drawn from the real docs' section lengths. Every section fits in one chunk, so N
sections make N chunks. Each size runs in its own process (clean RSS) through the real pipeline:
`Assistant.ingest` (load → embed with the configured model → Chroma upsert), then the BM25 side,
then the eval queries, timed warm.

    python benchmarks/bench_scale.py                      # 1k and 10k
    python benchmarks/bench_scale.py --sizes 1000 10000 100000 --embed-fraction 0.05 2> rows.jsonl
    python benchmarks/bench_scale.py --sizes 1000 10000 100000 --reuse --rows rows.jsonl --write benchmarks/results-scale.md

Queries run with `settings.torch_threads` PyTorch threads, as `app.py` serves. `--reuse` reopens the indexes
of an earlier run and measures only queries, size and memory, merged into that run's rows.

Not part of CI. Embedding is the one cost that is plainly linear (chunks x per-chunk model time)
and on 2 CPU cores MiniLM manages only tens of ~600-char chunks a second, so vectors are cached by
text hash across sizes (the corpora share their prefix), and `--embed-fraction` below 1 gives only
that share of new chunks a model embedding; the others get a model-embedded neighbour's vector plus
noise (so the HNSW graph still holds 100k distinct vectors). The table then reports the measured
model time, the rest of the ingest (load, Chroma upsert, hashing) measured, and `ingest s (all
embedded, est.)` = the rest + chunks x the measured per-chunk model time. Queries are always
embedded by the model.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT_DOCS = REPO.parent / "shared" / "vllm-docs"
SECTIONS_PER_PAGE = 50
_MAX_SECTION_CHARS = 1400  # below the splitter's 1500-char part size: one section, one chunk


# --------------------------------------------------------------------------- synthetic text


def _real_sections(docs: Path) -> list[str]:
    from assistant.ingest.markdown_docs import split_sections

    out = []
    for path in sorted(docs.rglob("*.md")):
        for s in split_sections(path.read_text(encoding="utf-8"), path.stem):
            body = "\n\n".join(b for b in s.blocks if not b.lstrip().startswith(("```", "~~~")))
            if body.strip():
                out.append(body)
    return out


class MarkovText:
    """Order-2 word chain over the docs' prose: plausible identifiers, flags and term frequencies."""

    def __init__(self, texts: list[str], seed: int):
        self.rng = random.Random(seed)
        self.next: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.starts: list[tuple[str, str]] = []
        for text in texts:
            words = [w for w in text.split() if "```" not in w and not w.startswith(("#", "|", "~~~", "!!!", "???"))]
            if len(words) < 3:
                continue
            self.starts.append((words[0], words[1]))
            for a, b, c in zip(words, words[1:], words[2:]):
                self.next[(a, b)].append(c)
        self.lengths = sorted(min(len(t), _MAX_SECTION_CHARS) for t in texts if len(t) > 40)

    def paragraph(self, chars: int) -> str:
        a, b = self.rng.choice(self.starts)
        words = [a, b]
        size = len(a) + len(b) + 1
        while size < chars:
            options = self.next.get((a, b))
            if not options:
                a, b = self.rng.choice(self.starts)
                words[-1] += "."
                words += [a, b]
                size += len(a) + len(b) + 2
                continue
            c = self.rng.choice(options)
            words.append(c)
            size += len(c) + 1
            a, b = b, c
        return " ".join(words)

    def section_body(self) -> str:
        target = self.rng.choice(self.lengths)
        paras, size = [], 0
        while size < target:
            n = min(target - size, self.rng.randint(150, 600))
            paras.append(self.paragraph(max(n, 40)))
            size += len(paras[-1]) + 2
        return "\n\n".join(paras)[:_MAX_SECTION_CHARS]

    def heading(self, i: int) -> str:
        return f"{' '.join(self.paragraph(20).split()[:4]).strip('.,:;`*')} {i}"


def write_corpus(out: Path, n_chunks: int, docs: Path, seed: int = 0) -> None:
    chain = MarkovText(_real_sections(docs), seed)
    out.mkdir(parents=True, exist_ok=True)
    for page in range((n_chunks + SECTIONS_PER_PAGE - 1) // SECTIONS_PER_PAGE):
        first = page * SECTIONS_PER_PAGE
        lines = [f"# Synthetic page {page}", ""]
        for i in range(first, min(first + SECTIONS_PER_PAGE, n_chunks)):
            lines += [f"## {chain.heading(i)}", "", chain.section_body(), ""]
        (out / f"page-{page:05d}.md").write_text("\n".join(lines), encoding="utf-8")


# --------------------------------------------------------------------------- measurement


def _rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MiB, from /proc."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


def _du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def _queries() -> list[str]:
    out = []
    for name in ("seed", "docs"):
        for line in (REPO / "eval" / "sets" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["query"])
    return out


class BenchEmbedder:
    """The real embedder, timed, with a vector cache by text hash and optional sampling during ingest."""

    def __init__(self, inner, cache: dict[str, object], fraction: float, seed: int = 0):
        import numpy as np

        self.inner, self.cache, self.fraction = inner, cache, fraction
        self.name = inner.name
        self.rng = np.random.default_rng(seed)
        self.ingesting = False
        self.model_s = 0.0
        self.model_chunks = 0
        self.query_ms: list[float] = []

    def _model(self, texts: list[str]):
        t0 = time.perf_counter()
        out = self.inner.embed(texts)
        return out, time.perf_counter() - t0

    def embed(self, texts: list[str]):
        import hashlib

        import numpy as np

        if not self.ingesting:
            out, took = self._model(texts)
            self.query_ms.append(took * 1000)
            return out
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self.cache]
        pool = list(self.cache.values())
        real = [i for i in todo if not pool or int(keys[i][:8], 16) / 0xFFFFFFFF < self.fraction]
        if real:
            vecs, took = self._model([texts[i] for i in real])
            self.model_s += took
            self.model_chunks += len(real)
            for i, v in zip(real, vecs):
                self.cache[keys[i]] = v
                pool.append(v)
        out = np.empty((len(texts), len(pool[0]) if pool else 0), dtype=np.float32)
        for i, k in enumerate(keys):
            if k in self.cache:
                out[i] = self.cache[k]
            else:  # a neighbour of a real vector: cosine ~0.9 to it, distinct from every other vector
                v = pool[int(self.rng.integers(len(pool)))] + self.rng.normal(0, 0.023, len(pool[0]))
                out[i] = v / np.linalg.norm(v)
        return out


def _load_cache(path: Path) -> dict:
    import numpy as np

    if not path.exists():
        return {}
    blob = np.load(path)
    return dict(zip(blob["keys"].tolist(), blob["vectors"]))


def _save_cache(path: Path, cache: dict) -> None:
    import numpy as np

    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, keys=np.array(list(cache)), vectors=np.stack(list(cache.values())))
    tmp.replace(path)


def run_one(n_chunks: int, work: Path, docs: Path, repeats: int, fraction: float, reuse: bool = False) -> dict:
    from assistant.index.embedder import apply_torch_threads, make_embedder
    from assistant.service import Assistant
    from assistant.settings import Settings

    corpus, index = work / f"corpus-{n_chunks}", work / f"index-{n_chunks}"
    reuse = reuse and (index / "chroma").is_dir()
    if not reuse:
        shutil.rmtree(index, ignore_errors=True)
    if not corpus.exists():
        write_corpus(corpus, n_chunks, docs)
    chars = [len(p.read_text(encoding="utf-8")) for p in corpus.glob("*.md")]

    settings = Settings(index_dir=index, corpus_dir=corpus)
    cache_path = work / "vectors.npz"
    cache = _load_cache(cache_path)
    cached_before = len(cache)
    embedder = BenchEmbedder(make_embedder(settings), cache, fraction)
    assistant = Assistant(settings, embedder=embedder)
    assistant.embedder.embed(["load the model before the clock starts"])
    # Per-chunk model cost on this corpus's own text, for the estimate when vectors are cached or sampled.
    sample = [p.read_text(encoding="utf-8")[:700] for p in sorted(corpus.glob("*.md"))[:2]] * 32
    _, took = embedder._model(sample[:64])
    per_chunk_s = took / len(sample[:64])
    rss_before, _ = _rss_mb()

    if reuse:  # latency, size and memory only; the ingest columns come from the run that built the index
        started = time.perf_counter()
        n_docs = assistant.retriever.lexical.n_docs  # the BM25 pickle, loaded
        lexical_s = time.perf_counter() - started
        embedder.query_ms.clear()
        threads = apply_torch_threads(settings)
        measured = _measure_queries(assistant, embedder, repeats)
        rss, peak = _rss_mb()
        return {"chunks": n_docs, "lexical_load_s": round(lexical_s, 2), "index_mb": round(_du_mb(index), 1),
                "rss_mb": round(rss, 0), "query_threads": threads, **measured}

    started = time.perf_counter()
    embedder.ingesting = True
    report = assistant.ingest([corpus])
    embedder.ingesting = False
    ingest_s = time.perf_counter() - started
    _save_cache(cache_path, cache)
    embedder.query_ms.clear()
    started = time.perf_counter()
    _ = assistant.retriever.lexical  # BM25 build + pickle, part of getting the index ready
    lexical_s = time.perf_counter() - started
    threads = apply_torch_threads(settings)
    measured = _measure_queries(assistant, embedder, repeats)
    rss, peak = _rss_mb()
    other_s = ingest_s - embedder.model_s
    return {
        "chunks": report.chunks,
        "corpus_mb": round(sum(chars) / 2**20, 1),
        "mean_chunk_chars": round(sum(chars) / max(report.chunks, 1)),
        "model_embedded": embedder.model_chunks,
        "cached_vectors": cached_before,
        "ingest_s": round(ingest_s, 1),
        "model_embed_s": round(embedder.model_s, 1),
        "ingest_other_s": round(other_s, 1),
        "embed_ms_per_chunk": round(per_chunk_s * 1000, 1),
        "ingest_est_s": round(other_s + report.chunks * per_chunk_s, 0),
        "lexical_build_s": round(lexical_s, 2),
        "index_mb": round(_du_mb(index), 1),
        "rss_mb": round(rss, 0),
        "rss_growth_mb": round(rss - rss_before, 0),
        "ingest_peak_rss_mb": round(peak, 0),
        "query_threads": threads,
        **measured,
    }


def _measure_queries(assistant, embedder: BenchEmbedder, repeats: int) -> dict:
    queries = _queries()
    for q in queries:  # warm caches, Chroma segments, the lexical cache
        assistant.ask(q)
    embedder.query_ms.clear()
    retrieve_ms, ask_ms, ask_cpu_ms = [], [], []
    for _ in range(repeats):
        for q in queries:
            t0 = time.perf_counter()
            assistant.retrieve(q)
            t1 = time.perf_counter()
            c1 = time.process_time()
            assistant.ask(q)
            t2 = time.perf_counter()
            ask_cpu_ms.append((time.process_time() - c1) * 1000)
            retrieve_ms.append((t1 - t0) * 1000)
            ask_ms.append((t2 - t1) * 1000)
    return {
        "queries": len(retrieve_ms),
        "query_embed_p50_ms": round(_pct(embedder.query_ms, 50), 1),
        "retrieve_p50_ms": round(_pct(retrieve_ms, 50), 1),
        "retrieve_p95_ms": round(_pct(retrieve_ms, 95), 1),
        "answer_p50_ms": round(_pct(ask_ms, 50), 1),
        "answer_p95_ms": round(_pct(ask_ms, 95), 1),
        # CPU time of this process (all its threads) per answer; the wall time on a shared machine also
        # includes waiting for a core.
        "answer_cpu_p50_ms": round(_pct(ask_cpu_ms, 50), 1),
        "load_avg_1m": round(__import__("os").getloadavg()[0], 1),
    }


COLUMNS = [
    ("chunks", "chunks"),
    ("mean_chunk_chars", "chars/chunk"),
    ("model_embedded", "model-embedded"),
    ("ingest_s", "ingest s (measured)"),
    ("model_embed_s", "of which model s"),
    ("ingest_other_s", "load+store s"),
    ("embed_ms_per_chunk", "model ms/chunk"),
    ("ingest_est_s", "ingest s (all embedded, est.)"),
    ("lexical_build_s", "BM25 build s"),
    ("lexical_load_s", "BM25 load s"),
    ("index_mb", "index MiB"),
    ("ingest_peak_rss_mb", "peak RSS ingest MiB"),
    ("rss_mb", "RSS serving MiB"),
    ("query_embed_p50_ms", "query embed p50 ms"),
    ("retrieve_p50_ms", "retrieve p50 ms"),
    ("retrieve_p95_ms", "retrieve p95 ms"),
    ("answer_p50_ms", "answer p50 ms"),
    ("answer_p95_ms", "answer p95 ms"),
    ("answer_cpu_p50_ms", "answer CPU p50 ms"),
    ("query_threads", "torch threads (queries)"),
    ("load_avg_1m", "load avg"),
]


def table(rows: list[dict]) -> str:
    head = "| " + " | ".join(label for _, label in COLUMNS) + " |"
    rule = "|" + "|".join("---:" for _ in COLUMNS) + "|"
    body = ["| " + " | ".join(str(r.get(key, "")) for key, _ in COLUMNS) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def markdown(rows: list[dict], command: str, repeats: int, full_upto: int, fraction: float) -> str:
    import os
    import platform

    note = (
        f"Machine: {os.cpu_count()} CPU cores, no GPU, Python {platform.python_version()}, shared with other jobs "
        "(the `load avg` column: 1-minute load average at the end of each size's run; on 2 cores anything above 2 "
        "means the wall times include waiting for a core). "
        f"Queries: the {len(_queries())} seed + docs eval questions, x{repeats}, warm. "
        "Answer latency = `Assistant.ask` (query analysis, query embedding, Chroma + BM25, fusion, evidence, "
        "extractive answer); `answer CPU p50` = process CPU time per answer (all threads). "
        f"Sizes above {full_upto} chunks: {fraction:.0%} of the chunks not already cached were embedded by the model "
        "(the rest: a model-embedded neighbour's vector plus noise), so `ingest s (all embedded, est.)` = measured "
        "load+store time + chunks x measured model ms/chunk. Index size = Chroma folder + BM25 pickle on disk."
    )
    return f"# Scale benchmark\n\n`{command}`\n\n{note}\n\n{table(rows)}\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="corpus sizes in chunks")
    p.add_argument("--work", type=Path, default=Path("/tmp/bench-scale"), help="scratch folder for corpora and indexes")
    p.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="real docs the synthetic text is learned from")
    p.add_argument("--repeats", type=int, default=2, help="timed passes over the eval queries")
    p.add_argument("--embed-fraction", type=float, default=1.0,
                   help="share of uncached chunks the model embeds during ingest above --full-upto (the rest: neighbour + noise)")
    p.add_argument("--full-upto", type=int, default=1000, help="sizes up to this are embedded by the model in full")
    p.add_argument("--write", type=Path, help="also write the table as Markdown here")
    p.add_argument("--rows", type=Path, help="JSON rows (one per line) of earlier runs: render them, or with --reuse merge into them")
    p.add_argument("--reuse", action="store_true", help="keep existing indexes: measure queries, size and memory only")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child mode: measure one size, print JSON
    args = p.parse_args(argv)
    command = "python benchmarks/bench_scale.py " + " ".join(argv if argv is not None else sys.argv[1:])

    if args.one:
        print(json.dumps(run_one(args.one, args.work, args.docs, args.repeats, args.embed_fraction, args.reuse)), flush=True)
        return 0

    earlier = [json.loads(line) for line in args.rows.read_text().splitlines() if line.startswith("{")] if args.rows else []
    if args.rows and not args.reuse:
        rows = earlier
    else:
        rows = []
        for n in args.sizes:
            print(f"[bench] {n} chunks ...", file=sys.stderr, flush=True)
            fraction = 1.0 if n <= args.full_upto else args.embed_fraction
            cmd = [sys.executable, __file__, "--one", str(n), "--work", str(args.work), "--docs", str(args.docs),
                   "--repeats", str(args.repeats), "--embed-fraction", str(fraction)] + (["--reuse"] if args.reuse else [])
            out = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                print(out.stderr[-3000:], file=sys.stderr)
                return 1
            row = json.loads(out.stdout.strip().splitlines()[-1])
            before = dict(next((r for r in earlier if r.get("chunks") == row["chunks"]), {}))
            if "peak_rss_mb" in before:  # rows of older runs
                before["ingest_peak_rss_mb"] = before.pop("peak_rss_mb")
            before.pop("rss_growth_mb", None)
            rows.append({**before, **row})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(table(rows))
    if args.write:
        args.write.write_text(markdown(rows, command, args.repeats, args.full_upto, args.embed_fraction), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
