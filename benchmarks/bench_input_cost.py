"""CPU time per KB of input, for each face, on the pasted shapes that used to make a request quadratic.

    .venv/bin/python benchmarks/bench_input_cost.py                        # index built in a temp dir
    .venv/bin/python benchmarks/bench_input_cost.py --index-dir .index     # reuse an index
    .venv/bin/python benchmarks/bench_input_cost.py --size 10000 --shapes a.,a-

Every face runs in this process, so `time.process_time` counts all the work a request causes (the server's
threads included): the library call (`Assistant.ask`, what the CLI's `ask` runs), `POST /v1/ask` and
`POST /v1/chat/completions` with earlier turns through a live uvicorn server on 127.0.0.1, the Gradio
callback (`respond`), and the Slack thread handler (its Web API client records the reply instead of posting).
Then four adversarial asks are kept in flight while `/healthz` and a normal ask are timed (wall clock).
Prints Markdown tables; bounded: one call per face and shape, four concurrent asks at most.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from assistant.app import create_app
from assistant.service import Assistant
from assistant.settings import Settings
from tests.helpers.server import ServerThread

SHAPES = {
    "a.": "a.",
    "a-": "a-",
    "a": "a",
    "brackets": "f([{",
    "A1": "A1",
    "mixed": "a.-_:=/@ ",
    "log line": "ERROR 10-02 13:07:51 [core.py:720] RuntimeError: not home_path.empty() at x.y.z() ",
}
NORMAL = "RuntimeError: not home_path.empty()"


class _RecordingSlack:
    """Stands in for slack_sdk's WebClient: the handler's reply is kept, not posted."""

    def __init__(self) -> None:
        self.posted: list[dict] = []

    def chat_postMessage(self, **kwargs) -> dict:
        self.posted.append(kwargs)
        return {"ok": True}


def _cpu(call: Callable[[], object]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def faces(app, client: httpx.Client, history_turns: int) -> dict[str, Callable[[str], object]]:
    tracked = app.state.tracked
    from assistant.slack.handlers import answer_in_thread
    from assistant.ui.blocks import build_ui

    demo = build_ui(tracked)
    respond = next(f.fn for f in demo.fns.values() if getattr(f, "api_name", None) == "ask")

    def ok(r: httpx.Response) -> httpx.Response:
        if r.status_code != 200:
            raise SystemExit(f"{r.request.url.path}: HTTP {r.status_code} {r.text[:200]}")
        return r

    def chat(q: str):
        earlier = [{"role": ("user", "assistant")[i % 2], "content": q} for i in range(history_turns)]
        body = {"messages": [*earlier, {"role": "user", "content": NORMAL}]}
        return ok(client.post("/v1/chat/completions", json=body))

    threads = iter(range(1_000_000))
    return {
        "library / CLI ask": lambda q: tracked.assistant.ask(q),
        "POST /v1/ask": lambda q: ok(client.post("/v1/ask", json={"question": q})),
        f"chat, {history_turns} earlier turns": chat,
        "Gradio respond": lambda q: list(respond(q, [], None)),
        "Slack thread": lambda q: answer_in_thread(_RecordingSlack(), tracked, "C1", f"{next(threads)}.0", q),
    }


def in_flight(client: httpx.Client, question: str, n: int = 4) -> tuple[float, float]:
    """(/healthz seconds, normal ask seconds) while `n` adversarial asks are in flight."""
    stop = threading.Event()

    def hammer() -> None:
        while not stop.is_set():
            client.post("/v1/ask", json={"question": question})

    with ThreadPoolExecutor(n) as pool:
        for _ in range(n):
            pool.submit(hammer)
        time.sleep(1.0)
        t0 = time.perf_counter()
        client.get("/healthz")
        health = time.perf_counter() - t0
        t0 = time.perf_counter()
        client.post("/v1/ask", json={"question": NORMAL})
        normal = time.perf_counter() - t0
        stop.set()
    return health, normal


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index-dir", type=Path, help="an index to reuse (default: built in a temp dir)")
    p.add_argument("--size", type=int, default=20_000, help="characters of each pasted shape (default 20000)")
    p.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of: {', '.join(SHAPES)}")
    p.add_argument("--faces", default="", help="comma-separated face-name prefixes to run (default: all)")
    p.add_argument("--history-turns", type=int, default=3, help="earlier turns of the shape in the chat case")
    p.add_argument("--no-in-flight", action="store_true", help="skip the four-in-flight check")
    p.add_argument(
        "--budget",
        type=float,
        default=0.5,
        help="CPU seconds a request may take; cells over it are marked (default 0.5, the budget for a 20 KB "
        "question; 2 for 228 KB of history). The tests judge growth, not seconds: this is where the budget is read",
    )
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-input-"))
    settings = Settings(
        index_dir=args.index_dir or tmp / "index",
        feedback_db=tmp / "feedback.sqlite3",
        vllm_releases=[],
        release_docs=False,
    )
    assistant = Assistant(settings)
    assistant.ensure_index()
    assistant.warm_up()
    app = create_app(settings, assistant, ui=False)
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=600) as client:
        server.wait_ready()
        client.post("/v1/ask", json={"question": NORMAL})  # warm every layer once
        wanted = [s.strip() for s in args.faces.split(",") if s.strip()]
        runs = {
            k: v for k, v in faces(app, client, args.history_turns).items() if not wanted or k.startswith(tuple(wanted))
        }
        print(
            f"CPU seconds per request for {args.size:,}-character pastes (ms per KB in brackets; "
            f"**over** marks a request over the {args.budget:g} s budget)\n"
        )
        names = [s for s in args.shapes.split(",") if s]
        print("| face | " + " | ".join(f"`{s}`" for s in names) + " |")
        print("|---|" + "---:|" * len(names))
        for face, call in runs.items():
            cells = []
            for name in names:
                unit = SHAPES[name]
                text = (unit * (args.size // len(unit) + 1))[: args.size]
                seconds = _cpu(lambda: call(text))  # noqa: B023 (called at once)
                kb = args.size / 1000 * (args.history_turns if face.startswith("chat") else 1)
                over = " **over**" if seconds > args.budget else ""
                cells.append(f"{seconds:.2f} ({seconds * 1000 / kb:.1f}){over}")
            print(f"| {face} | " + " | ".join(cells) + " |", flush=True)
        if not args.no_in_flight:
            unit = SHAPES[names[0]]
            health, normal = in_flight(client, (unit * (args.size // len(unit) + 1))[: args.size])
            print(
                f"\nFour `{names[0]}` × {args.size:,} asks in flight: /healthz {health * 1000:.0f} ms, "
                f"a normal ask {normal * 1000:.0f} ms (wall clock)"
            )


if __name__ == "__main__":
    main()
