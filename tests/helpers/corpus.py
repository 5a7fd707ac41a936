"""A folder of some curated entries, for tests about building or syncing an index rather than about the entries."""

from __future__ import annotations

import shutil
from pathlib import Path

from assistant.settings import REPO_ROOT

ENTRIES = REPO_ROOT / "corpus" / "entries"


def some_entries(dest: Path, n: int = 40, also: tuple[str, ...] = ()) -> list[Path]:
    """Copy the first `n` entries (by file name) and the entries named in `also` (ids) into `dest`; returns the
    copies. Every entry would make the test slower with each entry written, and test nothing more."""
    dest.mkdir(parents=True, exist_ok=True)
    chosen = dict.fromkeys([*sorted(ENTRIES.glob("*.yaml"))[:n], *(ENTRIES / f"{i}.yaml" for i in also)])
    return [Path(shutil.copy(path, dest / path.name)) for path in chosen]
