"""Domain errors and request errors to JSON status codes, in OpenAI's error shape; never a traceback."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from assistant.api.public import public_text
from assistant.errors import AssistantError, ConfigError, IndexError_, InputError

log = logging.getLogger("assistant.api")


class ApiError(Exception):
    """An error the API answers with `status` and `message` (auth, readiness, bad conversation)."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.headers = headers


def error_response(status: int, message: str, kind: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": status}}, status_code=status, headers=headers
    )


def _describe(exc: RequestValidationError) -> tuple[int, str]:
    parts = []
    status = 422
    for err in exc.errors():
        if err.get("type") == "json_invalid":
            return 400, "the request body is not valid JSON"
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        msg = err.get("msg", "invalid value")
        if err.get("type") == "extra_forbidden":
            msg = "unknown field"
        elif err.get("type") == "missing" and not loc:
            return 400, "the request needs a JSON object body"
        elif err.get("type") in ("model_attributes_type", "dict_type") and not loc:
            return 400, "the request body must be a JSON object"
        parts.append(f"{loc or 'body'}: {msg}")
    return status, "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI, metrics) -> None:
    def count(request: Request, kind: str) -> None:
        from assistant.api.metrics import route_label

        metrics.errors.labels(route_label(request.url.path), kind).inc()

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        count(request, "validation")
        status, message = _describe(exc)
        return error_response(status, message, "invalid_request_error")

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError):
        count(request, "input")
        return error_response(400, str(exc), "invalid_request_error")

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError):
        count(request, exc.kind)
        return error_response(exc.status, exc.message, exc.kind, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        messages = {
            404: f"no route {request.url.path}",
            405: f"method {request.method} is not allowed on {request.url.path}",
        }
        return error_response(
            exc.status_code,
            messages.get(exc.status_code, str(exc.detail)),
            "invalid_request_error",
            getattr(exc, "headers", None),
        )

    @app.exception_handler(AssistantError)
    async def _assistant(request: Request, exc: AssistantError):
        count(request, type(exc).__name__)
        status = 503 if isinstance(exc, (IndexError_, ConfigError)) else 500
        log.error("assistant error", extra={"path": request.url.path, "error": str(exc)})
        return error_response(status, public_text(str(exc), request.app.state.settings), "server_error")

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        count(request, "unexpected")
        log.exception("unexpected error", extra={"path": request.url.path})
        return error_response(500, "internal error; the server log has the details", "server_error")
