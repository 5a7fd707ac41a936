"""Folder sources: curated entries and Q&A pages, read by the same loaders as `ingest`.

Each file is a unit (its origin is the file's path, as with `ingest`), so syncing a folder and
ingesting it agree about which chunks belong to which file.
"""

from __future__ import annotations

from pathlib import Path

from assistant.errors import LoadError, SyncError
from assistant.ingest.loader import discover, load_file
from assistant.ingest.seed_pages import looks_like_seed_page
from assistant.ingest.sources import read_text
from assistant.sync.context import SyncContext
from assistant.sync.sources import EntriesSource, QaPagesSource

_ENTRY_SUFFIXES = {".yaml", ".yml"}


def _wanted(source: EntriesSource | QaPagesSource, path: Path) -> bool:
    if isinstance(source, EntriesSource):
        return path.suffix.lower() in _ENTRY_SUFFIXES
    try:
        return looks_like_seed_page(read_text(path))
    except LoadError:
        return True  # reported by the loader below


def sync_folder(source: EntriesSource | QaPagesSource, ctx: SyncContext) -> None:
    root = source.path
    if not root.is_dir():
        raise SyncError(f"{source.name}: {root} is not a folder (set 'path' in the sources file)")
    prefix = str(root).rstrip("/") + "/"
    seen: set[str] = set()
    failed: set[str] = set()
    files = [p for p in discover(root) if _wanted(source, p)]
    for i, path in enumerate(files, start=1):
        origin = str(path)
        try:
            chunks = load_file(path, root)
        except LoadError as err:
            failed.add(origin)  # a broken edit keeps what was indexed from that file
            ctx.notes.append(f"skipped {err.path}: {err.reason}")
            ctx.say(f"skipped {err.path}: {err.reason}")
            continue
        seen.add(origin)
        ctx.apply({origin: chunks})
        if i % 20 == 0 or i == len(files):
            ctx.say(f"{i}/{len(files)} files")
    ctx.remove(ctx.writer.origins(prefix) - seen - failed)
