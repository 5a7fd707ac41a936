"""OpenAI-compatible chat completions (plain and SSE streaming) and `/v1/models`.

The last user message with words is the question; earlier user/assistant messages are the conversation used for
follow-ups. Citations are in the text ([n] and the sources footer this route renders, as `ask` prints
it) and in an extra `citations` field. When streaming, the body arrives as deltas and the footer as the
last content delta. With an LLM backend the body streams part by part, each part only once verified; when
the generated answer is abandoned a delta with the notice says so and the extractive answer follows.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse

from assistant.answer.render import answer_json, plain_text, sources_footer
from assistant.api.errors import ApiError
from assistant.api.public import public_text
from assistant.api.schemas import ERROR_RESPONSES, MODEL_ID, ChatCompletion, ChatMessage, ChatRequest, ModelList
from assistant.errors import AssistantError
from assistant.feedback.tracked import Asked
from assistant.models import Answer, Switch, Turn
from assistant.settings import Settings
from assistant.text.sanitize import has_words

log = logging.getLogger("assistant.api")
router = APIRouter(tags=["openai"])


def conversation(messages: list[ChatMessage]) -> tuple[str, list[Turn]]:
    """The question (the last user message with words; else the last user message, which then fails
    validation with a message saying what to paste) and the user/assistant turns before it.

    Messages after the question (an assistant prefill, tool output) are ignored: the answer is grounded in
    the sources, not continued. What the schema states (`contains` a user message with words) and what this
    accepts are the same rule."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        roles = ", ".join(sorted({m.role for m in messages}))
        raise ApiError(400, f"the conversation has no message with role 'user' (the question); got only: {roles}")
    worded = [i for i in users if has_words(messages[i].text())]
    at = worded[-1] if worded else users[-1]
    history = [
        Turn(role=m.role, content=m.text()) for m in messages[:at] if m.role in ("user", "assistant") and m.text()
    ]
    return messages[at].text(), history


def _extras(answer: Answer) -> dict:
    data = answer_json(answer)
    extras = {"citations": data["citations"], "abstained": answer.abstained, "language": answer.language}
    if answer.notice:
        extras["notice"] = answer.notice
    return extras


def _usage(prompt: str, completion: str) -> dict:
    # Word counts: the extractive backend has no tokenizer; clients only need the shape.
    p, c = len(prompt.split()), len(completion.split())
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


# One server-sent event (OpenAPI 3.1 reads a text/event-stream `schema` as each event's): its `data` is a
# `chat.completion.chunk` or an error object as JSON, and the last one is `[DONE]`.
SSE_EVENT = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "data": {"type": "string", "description": "A chat.completion.chunk or an error object as JSON, or [DONE]."},
        "event": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}


@router.get("/v1/models", response_model=ModelList, responses=ERROR_RESPONSES)
def models() -> dict:
    return {
        "object": "list",
        "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "vllm-troubleshooting"}],
    }


@router.post(
    "/v1/chat/completions",
    response_model=ChatCompletion,
    responses={
        200: {
            "description": "A chat completion, or with `stream: true` server-sent `chat.completion.chunk` events "
            "ending with `data: [DONE]`.",
            "content": {"text/event-stream": {"schema": SSE_EVENT}},
        },
        **ERROR_RESPONSES,
    },
)
def chat_completions(body: ChatRequest, request: Request):
    question, history = conversation(body.messages)
    tracked = request.app.state.tracked
    model = body.model or MODEL_ID
    cid, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
    if not body.stream:
        answer = tracked.ask("chat", question, history, body.k).answer
        content = plain_text(answer)
        return JSONResponse(
            {
                "id": cid,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": _usage(question, content),
                **_extras(answer),
            }
        )
    items = tracked.stream("chat", question, history, body.k)
    first = next(items)  # a bad question fails here, before any byte is sent, as a 4xx
    return StreamingResponse(
        _sse(cid, created, model, first, items, request.app.state.settings),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache"},
    )


def _chunk(cid: str, created: int, model: str, delta: dict, finish: str | None = None, **extra) -> str:
    payload = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def _sse(
    cid: str,
    created: int,
    model: str,
    first: str | Switch | Asked,
    rest: Iterator[str | Switch | Asked],
    settings: Settings,
) -> Iterator[str]:
    yield _chunk(cid, created, model, {"role": "assistant", "content": ""})
    streamed = ""
    try:
        for item in _chain(first, rest):
            if isinstance(item, Switch):  # what was streamed is withdrawn: say so, then the extractive answer
                streamed = ""
                yield _chunk(cid, created, model, {"content": f"\n\n---\n{item.notice}\n\n"})
            elif isinstance(item, Asked):
                answer = item.answer
                extras = _extras(answer)
                if answer.body.strip() == streamed.strip():  # the sources footer follows the streamed body
                    footer = sources_footer(answer.citations, answer.language)
                    if footer:
                        yield _chunk(cid, created, model, {"content": "\n\n" + footer})
                else:  # the verified answer replaced what was streamed
                    extras["final_content"] = plain_text(answer)
                yield _chunk(cid, created, model, {}, "stop", **extras)
            elif item:
                streamed += item
                yield _chunk(cid, created, model, {"content": item})
    except Exception as exc:  # headers are sent: the stream must still end with an error event and [DONE]
        if isinstance(exc, AssistantError):
            log.error("stream failed", extra={"error": str(exc)})
            message = public_text(str(exc), settings)
        else:
            log.exception("stream failed")
            message = "internal error while streaming; the server log has the details"
        err = {"error": {"message": message, "type": "server_error", "code": 500}}
        yield f"data: {json.dumps(err, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"


def _chain(first, rest):
    yield first
    yield from rest
