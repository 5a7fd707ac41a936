"""Incremental ingest keyed by content hash: unchanged chunks cost nothing, the model loads only if needed.

Ingesting a folder mirrors it: chunks whose file (or section) disappeared from it are removed, except
those of files that failed to load this time (a broken edit never deletes what was indexed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.errors import AssistantError, LoadError
from assistant.index.embedder import Embedder
from assistant.index.store import ChromaStore
from assistant.ingest.loader import discover, load_file
from assistant.models import Chunk

Progress = Callable[[str], None]


@dataclass
class IngestReport:
    files: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[LoadError] = field(default_factory=list)

    @property
    def wrote(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        return (
            f"{self.files} files, {self.chunks} chunks: {self.added} added, {self.updated} updated, "
            f"{self.removed} removed, {self.unchanged} unchanged, {len(self.skipped)} files skipped"
        )


def _under(origin: str, root: Path) -> bool:
    return origin == str(root) or origin.startswith(str(root).rstrip("/") + "/")


def ingest(
    paths: Sequence[Path],
    store: ChromaStore,
    embedder: Embedder,
    progress: Progress = lambda _msg: None,
    batch_size: int = 64,
) -> IngestReport:
    report = IngestReport()
    roots = [Path(p).resolve() for p in paths]
    for root in roots:
        if not root.exists():
            raise AssistantError(f"{root}: no such file or folder")

    chunks: dict[str, Chunk] = {}
    failed: set[str] = set()
    for root in roots:
        for path in discover(root):
            try:
                loaded = load_file(path, root)
            except LoadError as err:
                report.skipped.append(err)
                failed.add(str(path))
                progress(f"skipped {err.path}: {err.reason}")
                continue
            report.files += 1
            for chunk in loaded:
                chunks[chunk.id] = chunk
    report.chunks = len(chunks)

    stored = store.hashes()
    todo = [c for c in chunks.values() if stored.get(c.id, ("", ""))[0] != c.content_hash]
    report.updated = sum(1 for c in todo if c.id in stored)
    report.added = len(todo) - report.updated
    report.unchanged = len(chunks) - len(todo)

    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        vectors = embedder.embed([c.dense_text for c in batch])
        store.upsert(batch, vectors)
        progress(f"embedded {min(start + batch_size, len(todo))}/{len(todo)} chunks")

    stale = [
        cid
        for cid, (_, origin) in stored.items()
        if cid not in chunks and origin not in failed and any(_under(origin, r) for r in roots)
    ]
    store.delete(stale)
    report.removed = len(stale)
    return report
