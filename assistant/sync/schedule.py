"""Sync on a schedule inside the server: a background thread, so answers never wait for it.

Each run syncs the enabled sources into a staging generation and promotes it; the retriever then
switches to it on its next question. A failed run is logged and the previous knowledge keeps serving.
Several hosts may run the same schedule: with a shared database one run at a time holds the lock
(`assistant.sync.lock`), the others skip that turn, and every host follows the pointer it promotes.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass

from assistant.errors import AssistantError, SyncBusy
from assistant.service import Assistant
from assistant.settings import Settings
from assistant.sync.runner import SyncReport, run_sync, state_path
from assistant.sync.sources import load_sources, select
from assistant.sync.state import SyncState

log = logging.getLogger("assistant.sync")


@dataclass(frozen=True)
class SourceStatus:
    name: str
    last_success: float | None
    last_attempt: float | None
    last_error: str | None

    def to_dict(self) -> dict:
        def iso(ts: float | None) -> str | None:
            return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds") if ts else None

        return {
            "last_success": iso(self.last_success),
            "last_attempt": iso(self.last_attempt),
            "last_error": self.last_error,
        }


def sync_status(settings: Settings) -> list[SourceStatus]:
    """What the checkpoint file says about each source's last sync (empty when nothing was ever synced)."""
    path = state_path(settings)
    if not path.is_file():
        return []
    try:
        state = SyncState.load(path)
    except AssistantError:
        return []
    return [SourceStatus(n, s.last_success, s.last_attempt, s.last_error) for n, s in sorted(state.sources.items())]


class SyncScheduler:
    def __init__(self, settings: Settings, assistant: Assistant):
        self.settings = settings
        self.assistant = assistant
        self.interval = settings.sync_interval_minutes * 60
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0
        self.last_report: SyncReport | None = None
        self.last_error: str | None = None
        self.after_run: list = []  # callables run after each successful sync (the server re-checks its index)

    def run_once(self) -> SyncReport | None:
        try:
            sources = select(load_sources(self.settings.sources_file), [])
            report = run_sync(
                self.settings,
                sources,
                embedder=lambda: self.assistant.embedder,
                progress=lambda m: log.info("sync progress", extra={"progress": m}),
            )
        except SyncBusy as exc:  # another process or host is syncing the same index: its result serves here too
            log.info("scheduled sync skipped: another sync is running", extra={"reason": str(exc)})
            return None
        except AssistantError as exc:
            self.last_error = str(exc)
            log.error("scheduled sync failed; the previous knowledge keeps serving", extra={"error": str(exc)})
            return None
        except Exception as exc:  # a bug in one run must not stop the schedule or the server
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.exception("scheduled sync failed; the previous knowledge keeps serving")
            return None
        finally:
            self.runs += 1
        self.last_report, self.last_error = report, None
        if report.generation:
            self.assistant.retriever.refresh()
        log.info("scheduled sync done", extra={"summary": report.summary(), "generation": report.generation})
        for callback in self.after_run:
            callback(report)
        return report

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(self.interval)

    def start(self) -> None:
        if self.interval <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="assistant-sync", daemon=True)
        self._thread.start()
        log.info("scheduled sync on", extra={"every_minutes": self.settings.sync_interval_minutes})

    def stop(self) -> None:
        self._stop.set()
