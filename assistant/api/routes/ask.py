"""`POST /v1/ask`: the library call over HTTP, answering the `ask --json` object."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from assistant.answer.render import answer_json
from assistant.api.schemas import ERROR_RESPONSES, AskRequest, AskResponse

router = APIRouter(tags=["ask"])


@router.post("/v1/ask", response_model=AskResponse, responses=ERROR_RESPONSES)
def ask(body: AskRequest, request: Request) -> JSONResponse:
    asked = request.app.state.tracked.ask("api", body.question, None, body.k, body.vllm_version)
    return JSONResponse(answer_json(asked.answer))
