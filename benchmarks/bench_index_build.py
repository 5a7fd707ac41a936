"""What building `make run`'s index costs, by phase, on one thread and on every core.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_index_build.py [--release 0.33.0] [--bf16 auto|on|off]

Each row builds the index `python -m assistant eval --docs-release X` and the CI gate score (the curated entries,
the release's code facts and docs, their USE and paragraph vectors: `build_release_index`) into a fresh temporary
folder. "one thread" holds PyTorch and BLAS at one thread, as a served query is; "every core" is what
`build_release_index` does (`every_core`). The wheel and the sdist are read from the wheel cache (downloaded on
first use, before the first row, and not timed). `--bf16 off` times a CPU without native bfloat16.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

from assistant.eval import release_corpus
from assistant.index.embedder import every_core, usable_cores
from assistant.release.fetch import download_wheel
from assistant.release.sdist import download_sdist
from assistant.service import Assistant
from assistant.settings import Settings

# The message that ends each phase, in build order (assistant/eval/release_corpus.py and what it calls).
PHASES = [
    ("curated entries (MiniLM, USE)", "release index, curated corpus:"),
    ("code facts (wheel)", "raise/log sites in"),
    ("docs sections (MiniLM)", "pages of v"),
    ("USE vectors", "stored the USE vectors"),
    ("paragraph vectors (MiniLM)", "stored the paragraph vectors"),
]


@contextlib.contextmanager
def one_thread():
    import torch
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            yield 1
    finally:
        torch.set_num_threads(before)


def build(settings: Settings, release: str, threads) -> tuple[dict[str, float], float, int]:
    """Seconds per phase, in all, and the chunks indexed."""
    with tempfile.TemporaryDirectory() as tmp:
        assistant = Assistant(release_corpus.release_settings(settings, release, Path(tmp)))
        marks: dict[str, float] = {}
        started = time.perf_counter()

        def progress(message: str) -> None:
            for name, needle in PHASES:
                if needle in message:
                    marks[name] = time.perf_counter()  # the last such message ends the phase
            print(f"  {time.perf_counter() - started:7.1f} s  {message[:110]}", file=sys.stderr)

        with threads() as n:
            print(f"building on {n} thread(s)", file=sys.stderr)
            release_corpus._build_release_index(assistant, progress)  # the build itself, under this row's threads
        total = time.perf_counter() - started
        seconds, previous = {}, started
        for name, _ in PHASES:
            if name in marks:
                seconds[name], previous = marks[name] - previous, marks[name]
        return seconds, total, assistant.store.count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default="0.33.0")
    parser.add_argument("--bf16", choices=["auto", "on", "off"], default="auto")
    args = parser.parse_args()
    settings = Settings(answer_backend="extractive", embedding_bf16=args.bf16)
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    download_wheel(args.release, settings.wheel_cache_dir, say)
    download_sdist(args.release, settings.wheel_cache_dir, say, settings.package_index_url)

    rows = [("one thread", one_thread), (f"every core ({usable_cores()})", every_core)]
    results = [(label, *build(settings, args.release, threads)) for label, threads in rows]
    names = [name for name, _ in PHASES]
    print(f"make run's index for vLLM {args.release}, bfloat16 {args.bf16}, {results[0][3]} chunks\n")
    print("| threads | " + " | ".join(names) + " | total |")
    print("|---|" + "---:|" * (len(names) + 1))
    for label, seconds, total, _ in results:
        cells = [f"{seconds[n]:.0f} s" if n in seconds else "-" for n in names]
        print(f"| {label} | " + " | ".join(cells) + f" | {total:.0f} s |")


if __name__ == "__main__":
    main()
