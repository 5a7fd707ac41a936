"""The vLLM-release source: a release read from its own code (env vars, CLI flags, raise sites).

The reading and its store live in `assistant.release` (a subsystem of its own, stored beside the
Chroma index, not embedded); sync calls its one entry point and reports the release as one unit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import AssistantError, SyncError
from assistant.settings import Settings
from assistant.sync.context import Progress, SyncContext
from assistant.sync.sources import ReleaseSource


@dataclass(frozen=True)
class ReleaseOutcome:
    changed: bool  # False: the release was already indexed
    summary: str


ReleaseRunner = Callable[[ReleaseSource, Settings, Progress], ReleaseOutcome]


def release_runner() -> ReleaseRunner:
    """`assistant.release`'s sync, behind the small interface sync needs."""
    try:
        from assistant.release.store import ReleaseStore
        from assistant.release.sync import sync_release as read_release
    except ModuleNotFoundError as exc:
        raise SyncError("this version cannot read vLLM releases (the assistant.release package is missing)") from exc

    def run(source: ReleaseSource, settings: Settings, progress: Progress) -> ReleaseOutcome:
        report = read_release(
            source.spec,
            ReleaseStore(settings.index_dir),
            progress,
            settings.wheel_cache_dir,
            settings.release_workers,
            as_version=source.as_version,
            force=source.force,
        )
        return ReleaseOutcome(changed=not report.skipped, summary=report.summary())

    return run


def looks_like_release(target: str) -> bool:
    """Whether a `sync` argument names a release rather than a declared source."""
    if target.startswith("vllm==") or target == "installed" or target.endswith(".whl"):
        return True
    path = Path(target)
    return path.is_dir() and (path / "vllm" / "envs.py").is_file()


def sync_release(source: ReleaseSource, ctx: SyncContext, run: ReleaseRunner | None = None) -> None:
    if ctx.dry_run:
        ctx.say(f"would read {source.spec} (releases are read whole; nothing read in a dry run)")
        return
    try:
        outcome = (run or release_runner())(source, ctx.settings, ctx.say)
    except SyncError:
        raise
    except AssistantError as exc:  # e.g. a wheel that cannot be downloaded or read
        raise SyncError(f"{source.spec}: {exc}") from exc
    if outcome.changed:
        ctx.counts.added += 1
    else:
        ctx.counts.unchanged += 1
    ctx.notes.append(outcome.summary)
