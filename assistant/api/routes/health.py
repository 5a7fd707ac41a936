"""Liveness, readiness (index loaded) and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from assistant.api.public import public_text
from assistant.api.schemas import Readiness

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


def _sync(request: Request) -> list:
    from assistant.sync.schedule import sync_status

    return sync_status(request.app.state.settings)


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={
        503: {
            "model": Readiness,
            "description": "Not ready: building, loading or checking the index, waiting for Chroma, or `failed` "
            "(e.g. an index that does not answer its self-check; `detail` says why and how to repair it).",
        }
    },
)
async def readyz(request: Request) -> JSONResponse:
    """200 once questions can be answered. `feedback_store` says whether asked questions are being logged:
    a failing store does not stop answers, so it is reported here rather than turning the probe red."""
    r = request.app.state.readiness
    synced = {s.name: s.to_dict() for s in _sync(request)}  # the last successful sync of each source
    settings = request.app.state.settings
    store = request.app.state.store
    store_state = "ok" if store.failure is None else public_text(f"failing: {store.failure}", settings)
    if r.ready:
        body = Readiness(
            status="ready",
            chunks=r.chunks,
            startup_seconds=round(r.seconds or 0, 3),
            feedback_store=store_state,
            sync=synced or None,
        )
        return JSONResponse(body.model_dump(exclude_none=True))
    body = Readiness(status=r.state, detail=public_text(r.detail, settings), feedback_store=store_state)
    return JSONResponse(body.model_dump(exclude_none=True), status_code=503, headers={"Retry-After": "1"})


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}},
            "description": "Prometheus text format.",
        }
    },
)
async def metrics(request: Request) -> Response:
    m = request.app.state.metrics
    m.observe_sync(_sync(request))
    return Response(m.render(), media_type=m.content_type)
