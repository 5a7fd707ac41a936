"""`python -m assistant sync`, parked for good after its N-th progress line: the kill test's barrier.

Usage: `python -m tests.sync.paused_sync N [sync arguments]`. The CLI runs unchanged, except that the line it
prints to stderr as progress N (a `[source] ...` line) is followed by `signal.pause()`: once the test has read
that line, this process cannot move on, so a SIGKILL lands right after that point and never after the sync ended.
"""

from __future__ import annotations

import signal
import sys

from assistant import cli


def main(argv: list[str]) -> int:
    pause_after, seen = int(argv[0]), 0
    printed = cli._stderr

    def progress(message: str) -> None:
        nonlocal seen
        printed(message)
        if message.startswith("["):
            seen += 1
            if seen == pause_after:
                signal.pause()

    cli._stderr = progress  # `sync` looks it up when it runs
    return cli.main(["sync", *argv[1:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
