"""Index build and warm-up in the background: `/healthz` answers at once, `/readyz` once questions can be.

An unfinished build (first run, or one interrupted) is finished before ready. A Chroma server that
cannot be reached yet is retried with exponential backoff; `/readyz` says what it is waiting for.

Ready means the index answers, not that it opens: an embedded index is first checked in a child process
(a damaged HNSW file kills whoever reads it), and once loaded, one vector query and one lexical query on
chunks it holds must find them, at start and after each sync. A failure keeps `/readyz` at 503 with the
reason and the repair, and is logged once; the server stays up instead of crash-looping.
"""

from __future__ import annotations

import logging
import threading
import time

from assistant.errors import AssistantError, StoreUnavailableError
from assistant.index.embedder import every_core
from assistant.index.health import check_index
from assistant.index.probe import probe_vector_index
from assistant.service import Assistant
from assistant.settings import Settings

log = logging.getLogger("assistant.api")

RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 30.0


def repair_hint(settings: Settings) -> str:
    """How to get a working index back (the index is derived data: it is rebuilt from its sources)."""
    if settings.chroma_url:
        return (
            f"delete the collection {settings.collection!r} on the Chroma server (or point chroma_url at a fresh "
            f"one) and restart: the index is rebuilt from {settings.corpus_dir}"
        )
    where = settings.index_dir
    return (
        f"stop the server, move the index folder aside (mv {where} {where}.damaged) and start it again: it is "
        f"rebuilt from {settings.corpus_dir} and the releases in vllm_releases; run `python -m assistant sync` "
        "again for synced sources"
    )


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
        self.index_problem: str | None = None  # the last failed index check, until one passes
        self.on_ready: list = []  # callables run once ready (e.g. app.py prints where to open the UI)
        self.fill: threading.Thread | None = None  # the background fill of USE and paragraph vectors, once ready

    @property
    def ready(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def stop(self) -> None:
        """End a retry loop (server shutting down)."""
        self._stopping.set()

    def prepare(self, assistant: Assistant) -> None:
        """Check, finish or build the index (progress logged), load the model and indexes, check they answer,
        then mark ready."""
        started = time.perf_counter()
        self.state, self.detail = "loading", "checking the vector index"
        damaged = probe_vector_index(assistant.settings)
        if damaged is not None:  # before this process maps the files: a damaged one would kill it
            self._index_failed(assistant.settings, damaged)
            return
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
        problem = self._check(assistant)
        if problem is not None:
            self._index_failed(assistant.settings, problem)
            return
        todo = assistant.missing_block_vectors()  # looked for now; stored in the background once ready
        self.seconds = time.perf_counter() - started
        self.state, self.detail = "ready", ""
        self._event.set()
        log.info("ready", extra={"chunks": self.chunks, "seconds": round(self.seconds, 2)})
        if todo or assistant.settings.use_channel:
            self.start_block_fill(assistant, todo)
        for callback in self.on_ready:
            callback(self)

    def start_block_fill(self, assistant: Assistant, todo: list | None = None) -> threading.Thread:
        """Store the vectors the index lacks (a sync's docs sections, an index built by an earlier version) in
        the background: first the USE vectors (the multilingual channel joins retrieval once every chunk has
        one), then the paragraph vectors (answers embed the missing ones on demand until then). So the first
        start is ready as soon as the sections are indexed. Idempotent; a stopped fill resumes next start."""

        def fill() -> None:
            try:
                stored = assistant.ensure_use_vectors(progress=lambda m: log.debug("index progress", extra={"progress": m}))
            except Exception:
                log.exception("USE vectors not stored; the USE channel stays off")
            else:
                if stored:
                    log.info("USE vectors stored", extra={"chunks": stored})
            try:
                filled = assistant.ensure_block_vectors(
                    progress=lambda m: log.debug("index progress", extra={"progress": m}), todo=todo
                )
            except Exception:
                log.exception("paragraph vectors not stored")
                return
            if filled:
                log.info("paragraph vectors stored", extra={"sections": filled})

        if self.fill is not None and self.fill.is_alive():  # one at a time: a second would embed the same again
            return self.fill
        self.fill = threading.Thread(target=fill, name="assistant-paragraph-vectors", daemon=True)
        self.fill.start()
        return self.fill

    @staticmethod
    def _check(assistant: Assistant) -> str | None:
        try:
            return check_index(assistant.store, assistant.retriever.lexical)
        except Exception as exc:  # noqa: BLE001 - loading the lexical side failed: the index does not answer
            return f"the index cannot be loaded ({type(exc).__name__}: {exc})"

    def _index_failed(self, settings: Settings, problem: str) -> None:
        """Not ready (any more): say why and how to repair it, in /readyz and once in the log."""
        self._event.clear()
        self.index_problem = problem
        self.state = "failed"
        self.detail = f"the index does not answer: {problem}. Repair: {repair_hint(settings)}"
        log.error("index damaged; not ready", extra={"error": problem, "repair": repair_hint(settings)})

    def recheck(self, assistant: Assistant) -> bool:
        """After a sync: check the index answers again; a failure turns /readyz 503, a pass after a failure
        turns it ready again. True when it answers. The files are probed in a child process first, as at start:
        Chroma's bindings may crash the process that maps a damaged index instead of raising."""
        problem = probe_vector_index(assistant.settings) or self._check(assistant)
        if problem is not None:
            self._index_failed(assistant.settings, problem)
            return False
        if self.index_problem is not None:
            log.info("index answers again; ready", extra={"was": self.index_problem})
            self.index_problem = None
            self.state, self.detail = "ready", ""
            self._event.set()
        return True

    def _load(self, assistant: Assistant) -> None:
        def progress(message: str) -> None:
            self.detail = message
            log.info("index progress", extra={"progress": message})

        with every_core():  # nothing is answered before ready, so the first start's build takes both cores
            prepared = assistant.prepare_index(progress=progress)  # the eval's release corpus is built by the same call
        if prepared.index is not None:
            log.info("index built", extra={"summary": prepared.index.summary()})
        for synced in prepared.releases:
            log.info("release indexed", extra={"summary": synced.summary()})
        docs = prepared.docs
        if prepared.docs_error is not None:  # another sync holds the index: serve what it has, the next start tries again
            log.warning("release docs not indexed", extra={"error": prepared.docs_error})
        if docs is not None and not docs.ok:  # served without them; the next start tries again
            log.warning("release docs not indexed", extra={"summary": docs.summary()})
        elif docs is not None and docs.wrote:
            log.info("release docs indexed", extra={"summary": docs.summary()})
        assistant.warm_up()
        self.chunks = assistant.store.count()

    def start(self, assistant: Assistant) -> threading.Thread:
        thread = threading.Thread(target=self.prepare, args=(assistant,), name="assistant-warm-up", daemon=True)
        thread.start()
        return thread
