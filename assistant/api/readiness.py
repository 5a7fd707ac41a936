"""Index build and warm-up in the background: `/healthz` answers at once, `/readyz` once questions can be.

An unfinished build (first run, or one interrupted) is finished before ready. A Chroma server that
cannot be reached yet is retried with exponential backoff; `/readyz` says what it is waiting for.
"""

from __future__ import annotations

import logging
import threading
import time

from assistant.errors import AssistantError, StoreUnavailableError, SyncError
from assistant.service import Assistant

log = logging.getLogger("assistant.api")

RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 30.0


class Readiness:
    def __init__(self, retry_first: float = RETRY_FIRST_SECONDS, retry_max: float = RETRY_MAX_SECONDS) -> None:
        self._event = threading.Event()
        self._stopping = threading.Event()
        self.retry_first = retry_first
        self.retry_max = retry_max
        self.state = "starting"
        self.detail = ""
        self.seconds: float | None = None
        self.chunks: int | None = None
        self.attempts = 0
        self.on_ready: list = []  # callables run once ready (e.g. app.py prints where to open the UI)

    @property
    def ready(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def stop(self) -> None:
        """End a retry loop (server shutting down)."""
        self._stopping.set()

    def prepare(self, assistant: Assistant) -> None:
        """Finish or build the index (progress logged), load the model and indexes, then mark ready."""
        started = time.perf_counter()
        delay = self.retry_first
        while True:
            self.attempts += 1
            self.state = "loading"
            try:
                self._load(assistant)
                break
            except StoreUnavailableError as exc:
                self.state = "waiting"
                self.detail = f"the vector store is unreachable, retrying in {delay:g} s: {exc}"
                log.warning("vector store unreachable; retrying", extra={"error": str(exc), "retry_in": delay})
                if self._stopping.wait(delay):
                    return
                delay = min(delay * 2, self.retry_max)
            except AssistantError as exc:
                self.state, self.detail = "failed", str(exc)
                log.error("start-up failed", extra={"error": str(exc)})
                return
            except Exception as exc:  # reported by /readyz instead of killing the server silently
                self.state, self.detail = "failed", f"{type(exc).__name__}: {exc}"
                log.exception("start-up failed")
                return
        self.seconds = time.perf_counter() - started
        self.state, self.detail = "ready", ""
        self._event.set()
        log.info("ready", extra={"chunks": self.chunks, "seconds": round(self.seconds, 2)})
        for callback in self.on_ready:
            callback(self)

    def _load(self, assistant: Assistant) -> None:
        def progress(message: str) -> None:
            self.detail = message
            log.info("index progress", extra={"progress": message})

        report = assistant.ensure_index(progress=progress)
        if report is not None:
            log.info("index built", extra={"summary": report.summary()})
        for synced in assistant.ensure_releases(progress=progress):
            log.info("release indexed", extra={"summary": synced.summary()})
        try:
            docs = assistant.ensure_release_docs(progress=progress)
        except SyncError as exc:  # another sync holds the index: serve what it has, the next start tries again
            log.warning("release docs not indexed", extra={"error": str(exc)})
            docs = None
        if docs is not None and not docs.ok:  # served without them; the next start tries again
            log.warning("release docs not indexed", extra={"summary": docs.summary()})
        elif docs is not None and docs.wrote:
            log.info("release docs indexed", extra={"summary": docs.summary()})
        filled = assistant.ensure_block_vectors(progress=progress)  # an index built before they were stored
        if filled:
            log.info("paragraph vectors stored", extra={"sections": filled})
        assistant.warm_up()
        self.chunks = assistant.store.count()

    def start(self, assistant: Assistant) -> threading.Thread:
        thread = threading.Thread(target=self.prepare, args=(assistant,), name="assistant-warm-up", daemon=True)
        thread.start()
        return thread
