"""Serving benchmark: req/s and p95 of `POST /v1/ask` at 1, 2 and 4 API workers sharing one `chroma run` server,
and the reranker's latency cost per answer.

    .venv/bin/python benchmarks/bench_api.py                                  # workers 1 2 4, then the reranker
    .venv/bin/python benchmarks/bench_api.py --workers 1 2 --duration 10 --max-requests 300 --no-rerank

What runs, all on 127.0.0.1:
  - one `chroma run` server (its own process); the index is built into it once, by a first worker alone;
  - N API workers: N `app.py --no-ui` processes, each on its own port, as docs/deploy.md runs them behind a
    proxy. (app.py hands uvicorn an app object, which uvicorn's `--workers` cannot fork: one process each.)
    The load generator spreads its requests over the N ports round-robin, standing in for the proxy, so the
    figures are the workers' and not a proxy's. The workers share one feedback database: the SQLite file by
    default, or whatever `ASSISTANT_DATABASE_URL` in the environment names;
  - for the reranker: `python -m tests.model_server` (MiniLM behind vLLM's rerank API) and one worker with
    `ASSISTANT_RERANK=true`, measured sequentially against one worker without it.
Every phase is bounded in requests and seconds. Questions get a unique suffix so no layer answers from a cache.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"  # never anything else: this generates load
QUESTIONS = [
    "RuntimeError: not home_path.empty()",
    "My FP8 Qwen model crashes on an RTX 5090 when vLLM picks DeepGEMM",
    "EngineDeadError after a structured outputs request with an invalid grammar",
    "DeepSeek V4 Flash returns garbled output with dspark",
    "illegal memory access in cudagraph capture with deepseek v4",
    "AWQ model gives different outputs with batch invariance on A100",
    "How long should I proof sourdough bread before baking?",
    "CUDA out of memory while loading a 70B model on two GPUs",
]
READY_WITHIN = 900.0  # seconds: start-up on a shared, busy machine has taken minutes


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_for(url: str, proc: subprocess.Popen, log: Path, started: float) -> float:
    """Seconds from `started` until `url` answers 200."""
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args} exited with {proc.returncode}; see {log}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return time.perf_counter() - started
        except httpx.TransportError:
            pass
        if time.perf_counter() - started > READY_WITHIN:
            proc.kill()
            raise SystemExit(f"{url} was not ready within {READY_WITHIN:.0f} s; see {log}")
        time.sleep(0.1)


def spawn(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log.open("w"))


def stop(procs: Sequence[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def start_workers(n: int, env: dict[str, str], work: Path, tag: str) -> tuple[list[subprocess.Popen], list[str], float]:
    """N app.py workers at once; (processes, base URLs, seconds until the last one is ready)."""
    procs, bases = [], []
    started = time.perf_counter()
    for i in range(n):
        port = free_port()
        cmd = [sys.executable, str(REPO / "app.py"), "--no-ui", "--port", str(port)]
        procs.append(spawn(cmd, env, work / f"{tag}-{i}.log"))
        bases.append(f"http://{HOST}:{port}")
    try:
        ready = max(wait_for(f"{b}/readyz", p, work / f"{tag}-{i}.log", started) for i, (b, p) in
                    enumerate(zip(bases, procs)))  # fmt: skip
    except BaseException:
        stop(procs)
        raise
    return procs, bases, ready


def sequential(base: str, n: int, tag: str) -> list[float]:
    times = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for i in range(n):
            q = f"{QUESTIONS[i % len(QUESTIONS)]} ({tag} {i})"
            t = time.perf_counter()
            r = client.post("/v1/ask", json={"question": q})
            times.append(time.perf_counter() - t)
            r.raise_for_status()
    return times


def pasted_reports() -> list[str]:
    """The 40 real pasted reports of the eval (logs, tracebacks, collect_env output): what users mostly send."""
    import json

    with (REPO / "eval" / "sets" / "reports.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line)["query"] for line in f if line.strip()]


async def load(
    bases: list[str], concurrency: int, duration: float, max_requests: int, questions: list[str] = QUESTIONS
) -> tuple[int, int, float, list[float]]:
    """C clients for at most `duration` s and `max_requests` requests, each request to the next worker in turn."""
    latencies: list[float] = []
    errors = 0
    issued = itertools.count()
    targets = itertools.cycle(bases)
    deadline = time.perf_counter() + duration

    async def client_loop(client: httpx.AsyncClient, w: int) -> None:
        nonlocal errors
        while time.perf_counter() < deadline:
            i = next(issued)
            if i >= max_requests:
                return
            q = f"{questions[i % len(questions)]} (load {w}-{i})"
            t = time.perf_counter()
            try:
                r = await client.post(f"{next(targets)}/v1/ask", json={"question": q})
                if r.status_code != 200:
                    errors += 1
            except httpx.HTTPError:
                errors += 1
            latencies.append(time.perf_counter() - t)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        started = time.perf_counter()
        await asyncio.gather(*(client_loop(client, w) for w in range(concurrency)))
        elapsed = time.perf_counter() - started
    return len(latencies), errors, elapsed, latencies


def rerank_seconds(base: str) -> tuple[float, float, dict[str, float]]:
    """(calls, total seconds, calls by outcome) from a worker's /metrics."""
    text = httpx.get(f"{base}/metrics", timeout=10).text
    count = re.search(r"^assistant_rerank_duration_seconds_count (\S+)$", text, re.MULTILINE)
    total = re.search(r"^assistant_rerank_duration_seconds_sum (\S+)$", text, re.MULTILINE)
    outcomes = {
        m[1]: float(m[2]) for m in re.finditer(r'^assistant_rerank_total\{outcome="(\w+)"\} (\S+)$', text, re.MULTILINE)
    }
    return float(count[1]) if count else 0.0, float(total[1]) if total else 0.0, outcomes


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workers", type=int, nargs="*", default=[1, 2, 4], help="worker counts to measure (none: skip)")
    p.add_argument("--concurrency", type=int, default=8, help="concurrent clients in each load phase")
    p.add_argument("--duration", type=float, default=15.0, help="seconds of each load phase (at most)")
    p.add_argument("--max-requests", type=int, default=400, help="hard cap on each load phase's requests")
    p.add_argument("--requests", type=int, default=40, help="sequential requests for the reranker's cost (each way)")
    p.add_argument("--no-rerank", action="store_true", help="skip the reranker's cost")
    p.add_argument(
        "--index-dir",
        type=Path,
        help="serve this existing on-disk index (e.g. make run's .index) with one embedded-store worker, no chroma run",
    )
    p.add_argument(
        "--questions",
        choices=["short", "reports"],
        default="short",
        help="load-phase questions: short one-line questions, or the eval's 40 pasted reports (each once per 40)",
    )
    args = p.parse_args()
    questions = pasted_reports() if args.questions == "reports" else QUESTIONS
    if args.index_dir is not None:
        if not (args.index_dir / "chroma").is_dir():
            p.error(f"--index-dir {args.index_dir}: no index there (build it with make run or `ingest --index-dir`)")
        if any(n != 1 for n in args.workers):
            p.error("--index-dir serves an embedded store, which one process may open: use --workers 1")

    work = Path(tempfile.mkdtemp(prefix="bench-api-"))
    load_start = os.getloadavg()
    chroma_port = free_port()
    base_env = {
        **os.environ,
        "ASSISTANT_INDEX_DIR": str(work / "index"),
        "ASSISTANT_CHROMA_URL": f"http://{HOST}:{chroma_port}",
        "ASSISTANT_FEEDBACK_DB": str(work / "feedback.sqlite3"),
        "ASSISTANT_HOST": HOST,
        "ASSISTANT_LOG_LEVEL": "WARNING",
    }
    base_env.setdefault("ASSISTANT_VLLM_RELEASES", "[]")  # no 336 MB wheel download at start-up unless asked for
    if args.index_dir is not None:  # an existing index, embedded: no chroma run, nothing to build
        base_env["ASSISTANT_INDEX_DIR"] = str(args.index_dir.resolve())
        del base_env["ASSISTANT_CHROMA_URL"]
    rows: list[tuple[str, str]] = []
    started = time.perf_counter()
    chroma_cmd = [str(Path(sys.executable).parent / "chroma"), "run", "--path", str(work / "chroma"),
                  "--host", HOST, "--port", str(chroma_port)]  # fmt: skip
    helpers = []
    try:
        if args.index_dir is None:
            chroma = spawn(chroma_cmd, base_env, work / "chroma.log")
            helpers.append(chroma)
            wait_for(f"http://{HOST}:{chroma_port}/api/v2/heartbeat", chroma, work / "chroma.log", started)
            procs, _, first = start_workers(1, base_env, work, "build")  # builds the index into Chroma, alone
            stop(procs)
            rows.append(
                ("start-up to ready, 1 worker, first run (builds the index into `chroma run`)", f"{first:.1f} s")
            )
        for n in args.workers:
            procs, bases, ready = start_workers(n, base_env, work, f"w{n}")
            try:
                sequential(bases[0], 8, f"warm{n}")  # warm every path of one worker once
                for b in bases[1:]:
                    sequential(b, 2, f"warm{n}")
                count, errors, elapsed, lat = asyncio.run(
                    load(bases, args.concurrency, args.duration, args.max_requests, questions)
                )
            finally:
                stop(procs)
            rows.append((f"{n} worker{'s' if n > 1 else ''}: all ready after", f"{ready:.1f} s"))
            rows.append(
                (
                    f"{n} worker{'s' if n > 1 else ''}: {args.concurrency} clients, {count} requests in {elapsed:.1f} s",
                    (
                        f"**{count / elapsed:.1f} req/s**, p50 {percentile(lat, 50) * 1000:.0f} ms, "
                        f"**p95 {percentile(lat, 95) * 1000:.0f} ms**, {errors} errors"
                    ),
                )
            )
        if not args.no_rerank:
            rr_port = free_port()
            rr_cmd = [sys.executable, "-m", "tests.model_server", "--host", HOST, "--port", str(rr_port)]
            rr = spawn(rr_cmd, {**base_env, "PYTHONPATH": str(REPO)}, work / "rerank.log")
            helpers.append(rr)
            wait_for(f"http://{HOST}:{rr_port}/health", rr, work / "rerank.log", time.perf_counter())
            figures = {}
            for label, extra in (("off", {}), ("on", {"ASSISTANT_RERANK": "true"})):
                env = {**base_env, "ASSISTANT_RERANK_BASE_URL": f"http://{HOST}:{rr_port}", **extra}
                procs, bases, _ = start_workers(1, env, work, f"rerank-{label}")
                try:
                    sequential(bases[0], 8, f"warm-{label}")
                    lat = sequential(bases[0], args.requests, f"seq-{label}")
                    calls, total, outcomes = rerank_seconds(bases[0])
                finally:
                    stop(procs)
                figures[label] = lat
                rows.append(
                    (
                        f"1 worker, reranker {label}: sequential /v1/ask (n={args.requests}) p50 / p95",
                        f"{percentile(lat, 50) * 1000:.0f} / {percentile(lat, 95) * 1000:.0f} ms",
                    )
                )
                if label == "on":
                    mean = total / calls * 1000 if calls else float("nan")
                    rows.append(
                        (
                            "reranker: rerank calls, mean duration (from /metrics)",
                            f"{calls:.0f}, {mean:.0f} ms; outcomes {outcomes}",
                        )
                    )
            cost = percentile(figures["on"], 50) - percentile(figures["off"], 50)
            rows.append(("reranker's cost per answer (p50 on - p50 off)", f"**{cost * 1000:+.0f} ms**"))
    finally:
        stop(helpers)
    load_end = os.getloadavg()
    rows.append(
        (
            "machine",
            (
                f"{os.cpu_count()} cores; load average {load_start[0]:.1f} at start, {load_end[0]:.1f} at end "
                f"({time.perf_counter() - started:.0f} s run)"
            ),
        )
    )
    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | value |\n|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
