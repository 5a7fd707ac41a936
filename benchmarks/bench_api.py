"""Serving benchmark: start-up to ready, warm `/v1/ask` latency, and throughput under a bounded local load.

    .venv/bin/python benchmarks/bench_api.py                      # index in a temp dir, built on start-up
    .venv/bin/python benchmarks/bench_api.py --index-dir .index   # reuse an index (start-up = load only)

Starts `app.py` (UI + API, as users run it) in a subprocess on 127.0.0.1, then:
  1. start-up: process launch -> `GET /readyz` answers 200 (twice: first run builds the index, then a restart);
  2. warm latency: N sequential `POST /v1/ask` over a rotating set of questions (known errors and unknowns);
  3. throughput: C concurrent clients for D seconds (bounded by --max-requests), loopback only.
Prints a Markdown table. Questions get a unique suffix so no layer can answer from a cache.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_app(index_dir: Path, feedback_db: Path, port: int, log: Path) -> tuple[subprocess.Popen, float]:
    env = {
        **os.environ,
        "ASSISTANT_INDEX_DIR": str(index_dir),
        "ASSISTANT_FEEDBACK_DB": str(feedback_db),
        "ASSISTANT_HOST": HOST,
        "ASSISTANT_PORT": str(port),
        "ASSISTANT_LOG_LEVEL": "WARNING",
    }
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log.open("w")
    )
    url = f"http://{HOST}:{port}/readyz"
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"app.py exited with {proc.returncode}; see {log}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return proc, time.perf_counter() - started
        except httpx.TransportError:
            pass
        if time.perf_counter() - started > 600:
            proc.kill()
            raise SystemExit("app.py was not ready within 600 s")
        time.sleep(0.05)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def sequential(base: str, n: int) -> list[float]:
    times = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for i in range(n):
            q = f"{QUESTIONS[i % len(QUESTIONS)]} (run {i})"
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
    base: str, concurrency: int, duration: float, max_requests: int, questions: list[str] = QUESTIONS
) -> tuple[int, int, float, list[float]]:
    latencies: list[float] = []
    errors = 0
    issued = 0
    deadline = time.perf_counter() + duration

    async def worker(client: httpx.AsyncClient, w: int) -> None:
        nonlocal errors, issued
        while time.perf_counter() < deadline and issued < max_requests:
            issued += 1
            q = f"{questions[issued % len(questions)]} (load {w}-{issued})"
            t = time.perf_counter()
            try:
                r = await client.post("/v1/ask", json={"question": q})
                if r.status_code != 200:
                    errors += 1
            except httpx.HTTPError:
                errors += 1
            latencies.append(time.perf_counter() - t)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        started = time.perf_counter()
        await asyncio.gather(*(worker(client, w) for w in range(concurrency)))
        elapsed = time.perf_counter() - started
    return len(latencies), errors, elapsed, latencies


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--index-dir", type=Path, help="existing index to serve (default: a fresh temp dir, built on start-up)"
    )
    p.add_argument("--requests", type=int, default=200, help="sequential requests for warm latency")
    p.add_argument("--concurrency", type=int, default=4, help="concurrent clients in the load phase")
    p.add_argument("--duration", type=float, default=20.0, help="seconds of the load phase")
    p.add_argument("--max-requests", type=int, default=5000, help="hard cap on load-phase requests")
    p.add_argument(
        "--questions",
        choices=["short", "reports"],
        default="short",
        help="load-phase questions: short one-line questions, or the eval's 40 pasted reports (each once per 40)",
    )
    args = p.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-api-"))
    index_dir = args.index_dir or work / "index"
    rows: list[tuple[str, str]] = []
    port = free_port()
    base = f"http://{HOST}:{port}"
    load_avg = os.getloadavg()[0]

    fresh = args.index_dir is None
    proc, first = start_app(index_dir, work / "feedback.sqlite3", port, work / "app1.log")
    rows.append(("start-up to ready" + (" (first run: builds the index)" if fresh else ""), f"{first:.1f} s"))
    if fresh:
        stop(proc)
        proc, again = start_app(index_dir, work / "feedback.sqlite3", port, work / "app2.log")
        rows.append(("start-up to ready (index on disk)", f"{again:.1f} s"))
    try:
        sequential(base, 20)  # warm every path once
        seq = sequential(base, args.requests)
        rows.append(
            (f"warm /v1/ask latency, sequential (n={args.requests}) p50", f"{percentile(seq, 50) * 1000:.1f} ms")
        )
        rows.append(("warm /v1/ask latency, sequential p95", f"{percentile(seq, 95) * 1000:.1f} ms"))
        rows.append(("sequential throughput", f"{len(seq) / sum(seq):.1f} req/s"))
        questions = pasted_reports() if args.questions == "reports" else QUESTIONS
        n, errors, elapsed, lat = asyncio.run(load(base, args.concurrency, args.duration, args.max_requests, questions))
        label = f"throughput, {args.concurrency} concurrent clients, {elapsed:.0f} s ({args.questions} questions)"
        rows.append((label, f"{n / elapsed:.1f} req/s"))
        rows.append(
            (
                "latency under that load p50 / p95",
                f"{percentile(lat, 50) * 1000:.1f} / {percentile(lat, 95) * 1000:.1f} ms",
            )
        )
        rows.append(("errors under load", f"{errors} of {n}"))
    finally:
        stop(proc)
    rows.append(("machine", f"{os.cpu_count()} cores, load average {load_avg:.2f} at start"))

    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | value |\n|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
