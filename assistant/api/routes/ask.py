"""`POST /v1/ask`: the library call over HTTP, answering the `ask --json` object."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from assistant.api.schemas import AskRequest, AskResponse

router = APIRouter(tags=["ask"])


@router.post("/v1/ask", responses={200: {"model": AskResponse}})
def ask(body: AskRequest, request: Request) -> JSONResponse:
    asked = request.app.state.tracked.ask("api", body.question, None, body.k)
    return JSONResponse(asked.answer.to_dict())
