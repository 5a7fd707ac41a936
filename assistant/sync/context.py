"""What a source's sync sees: its cursor, a checkpoint call, the index writer and its counts."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.ingest.pipeline import Counts
from assistant.models import Chunk
from assistant.settings import Settings
from assistant.sync.github import GitHubClient
from assistant.sync.state import SourceState, SyncState
from assistant.sync.writer import IndexWriter

Progress = Callable[[str], None]


@dataclass
class SyncContext:
    name: str
    settings: Settings
    writer: IndexWriter
    state: SyncState
    progress: Progress = lambda _m: None
    dry_run: bool = False
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    counts: Counts = field(default_factory=Counts)
    requests: int = 0  # remote requests made (conditional ones included)
    notes: list[str] = field(default_factory=list)  # shown in the summary (e.g. "retry after ...")

    @property
    def source_state(self) -> SourceState:
        return self.state.source(self.name)

    def cursor(self) -> dict[str, Any]:
        """Where the last run stopped: the pending cursor of a resumed staging, else the committed one."""
        return self.source_state.working_cursor()

    def checkpoint(self, cursor: dict[str, Any]) -> None:
        """Record progress that is already in the staging index; a run killed after this resumes from here."""
        if self.dry_run:
            return
        self.source_state.pending = dict(cursor)
        self.state.save()

    def apply(self, units: dict[str, Sequence[Chunk]]) -> None:
        self.writer.apply(units, self.counts)

    def remove(self, origins: Sequence[str] | set[str]) -> None:
        self.writer.remove(origins, self.counts)

    def github(self) -> GitHubClient:
        """A GitHub client set up from the settings, waiting on this sync's clock and counting its requests."""

        def count() -> None:
            self.requests += 1

        return GitHubClient(
            self.settings.github_api_url,
            self.settings.github_token,
            max_wait=self.settings.github_max_wait,
            backoff=self.settings.github_backoff,
            sleep=self.sleep,
            clock=self.clock,
            on_request=count,
        )

    def say(self, message: str) -> None:
        self.progress(f"[{self.name}] {message}")
