"""Index build and warm-up in the background: `/healthz` answers at once, `/readyz` once questions can be."""

from __future__ import annotations

import logging
import threading
import time

from assistant.errors import AssistantError
from assistant.service import Assistant

log = logging.getLogger("assistant.api")


class Readiness:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.state = "starting"
        self.detail = ""
        self.seconds: float | None = None
        self.chunks: int | None = None
        self.on_ready: list = []  # callables run once ready (e.g. app.py prints where to open the UI)

    @property
    def ready(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def prepare(self, assistant: Assistant) -> None:
        """Build the index on first run (progress logged), load the model and indexes, then mark ready."""
        started = time.perf_counter()
        self.state = "loading"

        def progress(message: str) -> None:
            self.detail = message
            log.info("index progress", extra={"progress": message})

        try:
            report = assistant.ensure_index(progress=progress)
            if report is not None:
                log.info("index built", extra={"summary": report.summary()})
            assistant.warm_up()
            self.chunks = assistant.store.count()
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

    def start(self, assistant: Assistant) -> threading.Thread:
        thread = threading.Thread(target=self.prepare, args=(assistant,), name="assistant-warm-up", daemon=True)
        thread.start()
        return thread
