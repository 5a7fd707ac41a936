"""The sync checkpoint: one small JSON file under the index folder, replaced atomically on every write.

It holds each source's cursor (committed: what the live index reflects; pending: what the staging
generation reflects), its ETags and the time of its last successful sync. A killed sync leaves a
consistent file behind: the next run resumes from the pending cursor into the same staging generation.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assistant.errors import SyncError

_FORMAT = 1


@dataclass
class SourceState:
    cursor: dict[str, Any] = field(default_factory=dict)  # committed: matches the live generation
    pending: dict[str, Any] | None = None  # written while a staging generation is being filled
    last_success: float | None = None  # unix time of the last sync that completed for this source
    last_attempt: float | None = None
    last_error: str | None = None
    last_summary: dict[str, int] | None = None

    def working_cursor(self) -> dict[str, Any]:
        return dict(self.pending if self.pending is not None else self.cursor)


@dataclass
class Staging:
    collection: str  # the generation being filled
    base: str  # the live generation it was copied from
    base_revision: int  # the live revision at the copy: a write to live since then invalidates the staging


@dataclass
class SyncState:
    path: Path
    sources: dict[str, SourceState] = field(default_factory=dict)
    staging: Staging | None = None

    @classmethod
    def load(cls, path: Path) -> SyncState:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError) as exc:
            raise SyncError(f"the sync state {path} is unreadable ({exc}); delete it to sync from scratch") from exc
        if raw.get("format") != _FORMAT:
            return cls(path)
        staging = Staging(**raw["staging"]) if raw.get("staging") else None
        sources = {name: SourceState(**s) for name, s in (raw.get("sources") or {}).items()}
        return cls(path, sources, staging)

    def source(self, name: str) -> SourceState:
        return self.sources.setdefault(name, SourceState())

    def save(self) -> None:
        """Write to a temporary file, fsync, then rename over the old one: never a half-written state."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        blob = {
            "format": _FORMAT,
            "staging": asdict(self.staging) if self.staging else None,
            "sources": {name: asdict(s) for name, s in sorted(self.sources.items())},
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(blob, fh, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(self.path)
