"""Incremental ingest keyed by content hash: unchanged chunks cost nothing, the model loads only if needed.

Ingesting a folder mirrors it: chunks whose file (or section) disappeared from it are removed, except
those of files that failed to load this time (a broken edit never deletes what was indexed).

Nothing is overwritten by accident: a file whose chunk id is already taken, in this run by a file
loaded before it or in the index by another file that still exists, is skipped with a message naming
both places, and the first keeps its chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from assistant.errors import AssistantError, LoadError
from assistant.index import use_vectors
from assistant.index.block_vectors import embed_with_blocks
from assistant.index.embedder import Embedder
from assistant.index.store import ChromaStore
from assistant.ingest.loader import discover, load_file
from assistant.models import Chunk

Progress = Callable[[str], None]


@dataclass
class Counts:
    """What a write did to the index, chunk by chunk (ingest and sync both report it)."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0

    @property
    def wrote(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def as_dict(self) -> dict[str, int]:
        return {"added": self.added, "updated": self.updated, "removed": self.removed, "unchanged": self.unchanged}


@dataclass
class IngestReport(Counts):
    files: int = 0
    chunks: int = 0
    skipped: list[LoadError] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.files} files, {self.chunks} chunks: {self.added} added, {self.updated} updated, "
            f"{self.removed} removed, {self.unchanged} unchanged, {len(self.skipped)} files skipped"
        )


def _where(chunk: Chunk) -> str:
    return f"'{chunk.title}'" if chunk.kind != "entry" else "the entry"


def duplicate_reason(new: Chunk, first: Chunk) -> str:
    """Why a file is skipped: one of its chunks has the id of a chunk another file gave first."""
    return (
        f"{_where(new)} has the id '{new.id}', already given by {first.origin} ({_where(first)}); "
        "nothing from this file was indexed and the first is kept"
    )


def _owned_elsewhere(chunk: Chunk, stored: dict[str, tuple[str, str]], loaded: dict[str, list[Chunk]]) -> bool:
    """The index holds this id from another file that still exists and is not part of this run."""
    if chunk.id not in stored:
        return False
    origin = stored[chunk.id][1]
    return bool(origin) and origin != chunk.origin and origin not in loaded and Path(origin).exists()


def _under(origin: str, root: Path) -> bool:
    return origin == str(root) or origin.startswith(str(root).rstrip("/") + "/")


def write_chunks(
    store: ChromaStore,
    todo: Sequence[Chunk],
    stale: Sequence[str],
    embed: Callable[[list[str]], np.ndarray],
    batch_size: int = 64,
    progress: Progress = lambda _msg: None,
    with_blocks: bool = True,
    use_embed: Callable[[list[str]], np.ndarray] | None = None,
) -> None:
    """Embed and upsert `todo` a batch at a time, then delete `stale`: the write path of ingest and sync alike.
    `with_blocks`: embed the docs sections' paragraphs too (index.block_vectors); a sync leaves them to the
    server's background fill, so that a first start with thousands of docs sections is not twice as long.
    `use_embed`: the USE model, whose vector of each chunk is stored with it (index.use_vectors); a sync
    leaves those to the background fill too."""
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        if with_blocks:
            vectors, block_vectors = embed_with_blocks(batch, embed)
        else:
            vectors, block_vectors = embed([c.dense_text for c in batch]), None
        if use_embed is not None:
            use = use_vectors.fields_for(batch, use_embed)
            block_vectors = [{**b, **u} for b, u in zip(block_vectors or [{}] * len(batch), use)]
        store.upsert(batch, vectors, block_vectors)
        progress(f"embedded {min(start + batch_size, len(todo))}/{len(todo)} chunks")
    store.delete(stale)


@dataclass
class IngestPlan:
    """What an ingest of some roots would write: the chunks to embed, the ids to delete, and the counts."""

    report: IngestReport
    todo: list[Chunk]
    stale: list[str]

    @property
    def changes(self) -> bool:
        return bool(self.todo or self.stale)


def plan_ingest(paths: Sequence[Path], store: ChromaStore, progress: Progress = lambda _msg: None) -> IngestPlan:
    """Load `paths` and compare them with the index, writing nothing: what `ingest` would do."""
    report = IngestReport()
    roots = [Path(p).resolve() for p in paths]
    for root in roots:
        if not root.exists():
            raise AssistantError(f"{root}: no such file or folder")

    chunks: dict[str, Chunk] = {}
    failed: set[str] = set()

    def skip(err: LoadError) -> None:
        report.skipped.append(err)
        failed.add(err.path)
        progress(f"skipped {err.path}: {err.reason}")

    loaded_files: dict[str, list[Chunk]] = {}
    for root in roots:
        for path in discover(root):
            if str(path) in loaded_files:  # given twice (a folder and a file in it)
                continue
            try:
                loaded = load_file(path, root)
                taken = next((c for c in loaded if c.id in chunks), None)
                if taken is not None:
                    raise LoadError(str(path), duplicate_reason(taken, chunks[taken.id]))
            except LoadError as err:
                skip(err)
                continue
            loaded_files[str(path)] = loaded
            chunks.update((c.id, c) for c in loaded)

    stored = store.hashes()
    for origin, loaded in list(loaded_files.items()):
        clash = next((c for c in loaded if _owned_elsewhere(c, stored, loaded_files)), None)
        if clash is not None:
            other = stored[clash.id][1]
            skip(
                LoadError(
                    origin,
                    f"{_where(clash)} has the id '{clash.id}' of a chunk indexed from {other}, "
                    "which still exists; nothing from this file was indexed",
                )
            )
            del loaded_files[origin]
            for c in loaded:
                del chunks[c.id]
    report.files = len(loaded_files)
    report.chunks = len(chunks)
    todo = [c for c in chunks.values() if stored.get(c.id, ("", ""))[0] != c.content_hash]
    report.updated = sum(1 for c in todo if c.id in stored)
    report.added = len(todo) - report.updated
    report.unchanged = len(chunks) - len(todo)

    stale = [
        cid
        for cid, (_, origin) in stored.items()
        if cid not in chunks and origin not in failed and any(_under(origin, r) for r in roots)
    ]
    report.removed = len(stale)
    return IngestPlan(report, todo, stale)


def ingest(
    paths: Sequence[Path],
    store: ChromaStore,
    embedder: Embedder,
    progress: Progress = lambda _msg: None,
    batch_size: int = 64,
    plan: IngestPlan | None = None,
    use_embedder: Embedder | None = None,
) -> IngestReport:
    """Bring the index in line with `paths` (`plan`: one `plan_ingest` made just before, not made again).
    `use_embedder`: also store each written chunk's USE vector (`Settings.use_channel`)."""
    plan = plan if plan is not None else plan_ingest(paths, store, progress)
    use_embed = use_embedder.embed if use_embedder is not None else None
    write_chunks(store, plan.todo, plan.stale, embedder.embed, batch_size, progress, use_embed=use_embed)
    return plan.report
