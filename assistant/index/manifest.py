"""The build-completion manifest: an index counts as complete only once its build wrote this, last.

It lives in the Chroma collection's metadata, so it travels with the index (an embedded folder or a
Chroma server shared by several workers), and one `modify` call makes it visible atomically.

    begin(store, roots)      before the first write of an ingest: state "building", what is pending
    complete(store, roots)   after the last write: state "complete", the finished sources, chunk count
    read(store)              None for an index no manifest was ever written to (built before manifests)

A reader that finds "building" knows a build was interrupted and which sources to ingest again to
finish it (ingest is incremental: finishing embeds only what is missing). A generation swap can use
the same three calls on the collection of the generation it builds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

FORMAT = 1
_KEY = "build_manifest"


class ManifestStore(Protocol):
    """What the manifest needs of a store: its metadata, its size and its write revision."""

    def metadata(self) -> dict: ...

    def update_metadata(self, values: dict) -> None: ...

    def count(self) -> int: ...

    def revision(self) -> int: ...


@dataclass(frozen=True)
class BuildManifest:
    state: Literal["building", "complete"]
    sources: tuple[str, ...] = ()  # roots whose ingest finished, oldest first
    pending: tuple[str, ...] = ()  # roots of the ingest under way (or interrupted)
    chunks: int = 0  # chunks in the store when the build completed
    revision: int = 0  # the store's revision when the build completed
    updated: float = 0.0

    @property
    def complete(self) -> bool:
        return self.state == "complete"

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "state": self.state,
                "sources": list(self.sources),
                "pending": list(self.pending),
                "chunks": self.chunks,
                "revision": self.revision,
                "updated": self.updated,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> BuildManifest | None:
        """None when the text is not a manifest this version understands (treated like no manifest)."""
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT or data.get("state") not in ("building", "complete"):
                return None
            return cls(
                state=data["state"],
                sources=tuple(str(s) for s in data.get("sources", [])),
                pending=tuple(str(s) for s in data.get("pending", [])),
                chunks=int(data.get("chunks", 0)),
                revision=int(data.get("revision", 0)),
                updated=float(data.get("updated", 0.0)),
            )
        except (ValueError, TypeError, AttributeError, KeyError):
            return None


def read(store: ManifestStore) -> BuildManifest | None:
    raw = store.metadata().get(_KEY)
    return BuildManifest.from_json(raw) if isinstance(raw, str) else None


def carried(store: ManifestStore) -> dict:
    """The manifest as metadata to give a copy of the store (a sync's new generation), {} when there is none."""
    raw = store.metadata().get(_KEY)
    return {_KEY: raw} if isinstance(raw, str) else {}


def _roots(roots: Sequence[Path | str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(Path(r).resolve()) for r in roots))


def begin(store: ManifestStore, roots: Sequence[Path | str]) -> BuildManifest:
    """Mark the index as being built from `roots` (before anything is written)."""
    previous = read(store)
    done = tuple(s for s in (previous.sources if previous else ()) if s not in _roots(roots))
    manifest = BuildManifest("building", sources=done, pending=_roots(roots), updated=time.time())
    store.update_metadata({_KEY: manifest.to_json()})
    return manifest


def complete(store: ManifestStore, roots: Sequence[Path | str]) -> BuildManifest:
    """Mark the build from `roots` finished (after its last write)."""
    previous = read(store)
    sources = tuple(dict.fromkeys([*(previous.sources if previous else ()), *_roots(roots)]))
    manifest = BuildManifest(
        "complete", sources=sources, chunks=store.count(), revision=store.revision(), updated=time.time()
    )
    store.update_metadata({_KEY: manifest.to_json()})
    return manifest
