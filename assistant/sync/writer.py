"""Applying a source's units to one index generation: embed only what changed, remove what disappeared.

A unit is what a source fetches as a whole (a file, a docs page, an issue); its chunks share an
`origin`. Applying a unit replaces exactly that unit's chunks, so a sync interrupted between units
leaves every unit either old or new, never half of one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from assistant.index.embedder import Embedder
from assistant.index.store import ChromaStore
from assistant.ingest.pipeline import Counts, write_chunks
from assistant.models import Chunk


class IndexWriter:
    """Writes units into `store`; with `dry_run` it only counts what would change."""

    def __init__(
        self,
        store: ChromaStore,
        embedder: Callable[[], Embedder],
        dry_run: bool = False,
        batch_size: int = 64,
        open_target: Callable[[], ChromaStore] | None = None,
    ):
        """Reads `store`; the first write goes to `open_target()` (a copy of `store`) when given, so a sync
        that changes nothing writes nothing."""
        self.store = store
        self._open_target = open_target
        self._embedder = embedder  # loaded on the first changed chunk: an unchanged sync never loads the model
        self.dry_run = dry_run
        self.batch_size = batch_size
        self.stored: dict[str, tuple[str, str]] = store.hashes()  # id -> (content hash, origin)
        self.by_origin: dict[str, set[str]] = defaultdict(set)
        for cid, (_, origin) in self.stored.items():
            self.by_origin[origin].add(cid)

    def origins(self, prefix: str) -> set[str]:
        return {o for o, ids in self.by_origin.items() if ids and o.startswith(prefix)}

    def apply(self, units: dict[str, Sequence[Chunk]], counts: Counts) -> None:
        """Make each unit (origin -> its chunks; empty means the unit is gone) hold exactly these chunks."""
        todo: list[Chunk] = []
        stale: list[str] = []
        for origin, given in units.items():
            chunks = list({c.id: c for c in given}.values())  # a repeated id: the last one wins, as in `ingest`
            new_ids = {c.id for c in chunks}
            for c in chunks:
                old = self.stored.get(c.id)
                if old is None:
                    counts.added += 1
                    todo.append(c)
                elif old[0] != c.content_hash or old[1] != origin:
                    counts.updated += 1
                    todo.append(c)
                else:
                    counts.unchanged += 1
            stale += [cid for cid in self.by_origin.get(origin, ()) if cid not in new_ids]
        stale = sorted(set(stale) - {c.id for c in todo})
        counts.removed += len(stale)
        if self.dry_run or not (todo or stale):
            return
        if self._open_target is not None:
            self.store, self._open_target = self._open_target(), None
        embed = lambda texts: self._embedder().embed(texts)
        write_chunks(self.store, todo, stale, embed, self.batch_size, with_blocks=False)  # paragraphs: filled later
        for cid in stale:
            _, origin = self.stored.pop(cid)
            self.by_origin[origin].discard(cid)
        for c in todo:
            old = self.stored.get(c.id)
            if old is not None:
                self.by_origin[old[1]].discard(c.id)
            self.stored[c.id] = (c.content_hash, c.origin)
            self.by_origin[c.origin].add(c.id)

    def remove(self, origins: Iterable[str], counts: Counts) -> None:
        """Drop whole units (a file deleted, an issue no longer listed)."""
        self.apply({o: [] for o in origins}, counts)
