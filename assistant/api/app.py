"""The FastAPI app factory: routers, guards, metrics and error mapping around one shared Assistant."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request

from assistant.api.errors import ApiError, install_error_handlers
from assistant.api.limits import BodyLimitMiddleware, bearer_guard
from assistant.api.metrics import Metrics, MetricsMiddleware
from assistant.api.readiness import Readiness
from assistant.api.routes import ask, chat, health
from assistant.feedback.store import FeedbackStore
from assistant.feedback.tracked import TrackedAssistant
from assistant.service import Assistant
from assistant.settings import Settings


def _require_ready(request: Request) -> None:
    if not request.app.state.readiness.ready:
        r = request.app.state.readiness
        raise ApiError(
            503,
            f"the assistant is not ready yet ({r.state}{': ' + r.detail if r.detail else ''}); retry shortly",
            "service_unavailable",
            {"Retry-After": "1"},
        )


def create_api(
    assistant: Assistant, settings: Settings, *, store: FeedbackStore | None = None, prepare: bool = True
) -> FastAPI:
    """The API app. With `prepare`, the index is built (first run) and warmed up in the background at start-up;
    `/readyz` turns 200 when done. `app.state.tracked` is the call the UI and the Slack bot share."""
    metrics = Metrics()
    readiness = Readiness()
    store = store or FeedbackStore(settings.feedback_db)
    tracked = TrackedAssistant(assistant, store, observer=metrics.observe_answer)

    from assistant.sync.schedule import SyncScheduler

    scheduler = SyncScheduler(settings, assistant)  # runs only when sync_interval_minutes > 0
    readiness.on_ready.append(lambda _r: scheduler.start())

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if prepare and not readiness.ready:
            readiness.start(assistant)
        yield
        scheduler.stop()
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

    guarded = [Depends(bearer_guard(settings.api_keys)), Depends(_require_ready)]
    app.include_router(health.router)
    app.include_router(ask.router, dependencies=guarded)
    app.include_router(chat.router, dependencies=guarded)
    install_error_handlers(app, metrics)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    return app
