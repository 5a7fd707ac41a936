"""One sync run: every selected source into a staging generation, then one atomic promotion.

A source that fails (a remote that keeps failing, a bad archive) is reported and keeps what it had;
the others are still published. A rate-limited source stops at its last checkpoint and is published
as far as it got. Anything unexpected aborts the run: nothing is published, the staging generation
and the checkpoints stay, and the next run resumes from them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from assistant.errors import RateLimited, SyncError
from assistant.index.embedder import Embedder, make_embedder
from assistant.ingest.pipeline import Counts
from assistant.settings import Settings
from assistant.sync.context import Progress, SyncContext
from assistant.sync.discussions import sync_discussions
from assistant.sync.docs_archive import sync_docs
from assistant.sync.folders import sync_folder
from assistant.sync.generations import Generations
from assistant.sync.issues_source import sync_issues
from assistant.sync.lock import sync_lock
from assistant.sync.release import sync_release
from assistant.sync.sources import (
    DocsSource,
    EntriesSource,
    GitHubDiscussionsSource,
    GitHubIssuesSource,
    QaPagesSource,
    ReleaseSource,
    Source,
)
from assistant.sync.state import SyncState
from assistant.sync.writer import IndexWriter

log = logging.getLogger("assistant.sync")


@dataclass
class SourceResult:
    name: str
    kind: str
    status: str  # "ok", "partial" (rate-limited; resumes next run), "failed"
    counts: Counts
    requests: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    retry_at: float | None = None

    def line(self) -> str:
        c = self.counts
        text = (
            f"{self.name:<20} {self.status:<7} {c.added} added, {c.updated} updated, {c.removed} removed, "
            f"{c.unchanged} unchanged"
        )
        if self.requests:
            text += f", {self.requests} requests"
        if self.error:
            text += f" — {self.error}"
        return text


@dataclass
class SyncReport:
    results: list[SourceResult]
    dry_run: bool = False
    generation: str | None = None  # the generation made live, None when nothing was published

    @property
    def ok(self) -> bool:
        return all(r.status == "ok" for r in self.results)

    @property
    def wrote(self) -> bool:
        return any(r.counts.wrote for r in self.results)

    def summary(self) -> str:
        head = "dry run: nothing written; would change:" if self.dry_run else "sync summary:"
        return "\n".join([head, *("  " + r.line() for r in self.results)])


def _run_source(source: Source, ctx: SyncContext) -> None:
    if isinstance(source, (EntriesSource, QaPagesSource)):
        sync_folder(source, ctx)
    elif isinstance(source, DocsSource):
        sync_docs(source, ctx)
    elif isinstance(source, GitHubIssuesSource):
        sync_issues(source, ctx)
    elif isinstance(source, GitHubDiscussionsSource):
        sync_discussions(source, ctx)
    elif isinstance(source, ReleaseSource):
        sync_release(source, ctx)
    else:  # pragma: no cover - the sources file schema admits no other kind
        raise SyncError(f"unknown source kind {source.kind!r}")


def state_path(settings: Settings):
    return settings.index_dir / f"sync-{settings.collection}.json"


def run_sync(
    settings: Settings,
    sources: list[Source],
    *,
    embedder: Callable[[], Embedder] | None = None,
    dry_run: bool = False,
    progress: Progress = lambda _m: None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> SyncReport:
    """Sync `sources` into the index; returns per-source counts. Raises SyncError when another sync runs
    (on this index folder, or, with `database_url` set, on any host sharing the database)."""
    loaded: list[Embedder] = []

    def get_embedder() -> Embedder:
        if not loaded:
            loaded.append(embedder() if embedder else make_embedder(settings))
        return loaded[0]

    with sync_lock(settings):  # one sync at a time: on this index folder, and on every host sharing the database
        state = SyncState.load(state_path(settings))
        gens = Generations(settings)
        _finish_interrupted_promotion(state, gens)
        staging = None if dry_run else gens.resume(state)
        if staging is not None:
            writer = IndexWriter(staging, get_embedder)
        else:  # the staging generation is made on the first write: an unchanged sync writes nothing
            writer = IndexWriter(gens.live, get_embedder, dry_run, open_target=lambda: gens.create(state))
        results = []
        for source in sources:
            ctx = SyncContext(source.name, settings, writer, state, progress, dry_run, clock, sleep)
            started = time.perf_counter()
            ctx.say(f"syncing ({source.kind})")
            status, error, retry_at = "ok", None, None
            try:
                _run_source(source, ctx)
            except RateLimited as exc:
                status, error, retry_at = "partial", str(exc), exc.retry_at
            except SyncError as exc:
                status, error = "failed", str(exc)
                log.error("source failed", extra={"source": source.name, "error": str(exc)})
            result = SourceResult(
                source.name,
                source.kind,
                status,
                ctx.counts,
                ctx.requests,
                time.perf_counter() - started,
                ctx.notes,
                error,
                retry_at,
            )
            results.append(result)
        report = SyncReport(results, dry_run)
        if dry_run:
            return report
        try:
            report.generation = _publish(state, gens)
        except SyncError as exc:
            for r in results:
                r.status, r.error = "failed", r.error or str(exc)
            raise
        finally:  # statuses only after publishing: "last success" means the answers use it
            _record(state, results, clock())
        return report


def _record(state: SyncState, results: list[SourceResult], now: float) -> None:
    for r in results:
        s = state.source(r.name)
        s.last_attempt = now
        s.last_error = r.error
        s.last_summary = r.counts.as_dict()
        if r.status == "ok":
            s.last_success = now
    state.save()


def _publish(state: SyncState, gens: Generations) -> str | None:
    """Make the staging generation (if any was written) live and the pending cursors the committed ones."""
    name = gens.promote(state) if state.staging is not None else None
    _commit(state)
    return name


def _commit(state: SyncState) -> None:
    for s in state.sources.values():
        if s.pending is not None:
            s.cursor, s.pending = s.pending, None
    state.staging = None
    state.save()


def _finish_interrupted_promotion(state: SyncState, gens: Generations) -> None:
    """A kill between the pointer flip and the state write: the staging is live, so its cursors are committed."""
    if state.staging is not None and gens.live_name() == state.staging.collection:
        _commit(state)
