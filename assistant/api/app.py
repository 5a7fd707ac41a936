"""The FastAPI app factory: routers, guards, metrics and error mapping around one shared Assistant."""

from __future__ import annotations

import logging
import threading
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request

from assistant.api.access import AccessMiddleware, AccessPolicy
from assistant.api.errors import ApiError, install_error_handlers
from assistant.api.limits import BodyLimitMiddleware
from assistant.api.metrics import Metrics, MetricsMiddleware
from assistant.api.public import public_text
from assistant.api.readiness import Readiness
from assistant.api.routes import ask, chat, health
from assistant.errors import StoreError
from assistant.feedback.store import FeedbackStore
from assistant.feedback.tracked import TrackedAssistant
from assistant.service import Assistant
from assistant.settings import Settings

log = logging.getLogger("assistant.api")


def _open_store(store: FeedbackStore) -> None:
    """The schema migrations run at start-up, beside the index warm-up; a database that cannot be reached
    is logged and shown by /readyz (`feedback_store`), and answering goes on."""
    try:
        store.open()
    except StoreError as exc:
        log.error("feedback store unavailable at start-up", extra={"error": str(exc)})
        return
    store.check()  # a database that connects but cannot be written shows in /readyz too


def _require_ready(request: Request) -> None:
    if not request.app.state.readiness.ready:
        r = request.app.state.readiness
        raise ApiError(
            503,
            public_text(
                f"the assistant is not ready yet ({r.state}{': ' + r.detail if r.detail else ''}); retry shortly",
                request.app.state.settings,
            ),
            "service_unavailable",
            {"Retry-After": "1"},
        )


def create_api(
    assistant: Assistant, settings: Settings, *, store: FeedbackStore | None = None, prepare: bool = True
) -> FastAPI:
    """The API app. With `prepare`, the index is built (first run) and warmed up in the background at start-up;
    `/readyz` turns 200 when done. `app.state.tracked` is the call the UI and the Slack bot share.
    Every route, mounted ones included, passes the one `AccessPolicy` built from `settings`."""
    metrics = Metrics()
    readiness = Readiness()
    store = store or FeedbackStore.from_settings(settings)
    metrics.watch_store(store)
    tracked = TrackedAssistant(
        assistant, store, observer=metrics.observe_answer, on_store_error=metrics.observe_store_error
    )
    policy = AccessPolicy.from_settings(settings)

    from assistant.sync.schedule import SyncScheduler

    scheduler = SyncScheduler(settings, assistant)  # runs only when sync_interval_minutes > 0
    readiness.on_ready.append(lambda _r: scheduler.start())
    scheduler.after_run.append(lambda _report: readiness.recheck(assistant))  # a sync must leave an index that answers
    # a sync's new docs sections get their paragraph vectors, but only from an index the recheck above passed
    scheduler.after_run.append(lambda _report: readiness.ready and readiness.start_block_fill(assistant))

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if store.path is not None:  # a local file is checked before the first request; a server in _open_store
            store.check()  # a corrupt or read-only feedback DB shows in /readyz now, not at the first failed write
        if prepare and not readiness.ready:
            readiness.start(assistant)
            threading.Thread(target=_open_store, args=(store,), name="assistant-store-open", daemon=True).start()
        yield
        scheduler.stop()
        readiness.stop()
        store.close()

    app = FastAPI(
        title="vLLM troubleshooting assistant",
        description="From a pasted vLLM error to a cited fix.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.assistant = assistant
    app.state.metrics = metrics
    app.state.readiness = readiness
    app.state.store = store
    app.state.tracked = tracked
    app.state.sync = scheduler

    app.state.access = policy

    guarded = [Depends(_require_ready)]
    app.include_router(health.router)
    app.include_router(ask.router, dependencies=guarded)
    app.include_router(chat.router, dependencies=guarded)
    install_error_handlers(app, metrics)
    # Outermost last: metrics see every request, the key check runs before a body is read.
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(AccessMiddleware, policy=policy)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    return app
