"""Liveness, readiness (index loaded) and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


def _sync(request: Request) -> list:
    from assistant.sync.schedule import sync_status

    return sync_status(request.app.state.settings)


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    r = request.app.state.readiness
    synced = {s.name: s.to_dict() for s in _sync(request)}  # the last successful sync of each source
    if r.ready:
        body = {"status": "ready", "chunks": r.chunks, "startup_seconds": round(r.seconds or 0, 3)}
        return JSONResponse({**body, "sync": synced} if synced else body)
    return JSONResponse({"status": r.state, "detail": r.detail}, status_code=503, headers={"Retry-After": "1"})


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    m = request.app.state.metrics
    m.observe_sync(_sync(request))
    return Response(m.render(), media_type=m.content_type)
