"""Bolt app factory, HTTP mounting (Events API, signed requests) and Socket Mode, chosen by settings."""

from __future__ import annotations

import logging
from typing import Literal

from fastapi import FastAPI, Request
from slack_bolt import App
from slack_sdk import WebClient

from assistant.errors import ConfigError
from assistant.feedback.tracked import TrackedAssistant
from assistant.settings import Settings
from assistant.slack import handlers

log = logging.getLogger("assistant.slack")
EVENTS_PATH = "/slack/events"


def slack_mode(settings: Settings) -> Literal["off", "http", "socket"]:
    """Off without a bot token; Socket Mode with an app token; otherwise the Events API over HTTP."""
    if not settings.slack_bot_token:
        return "off"
    if settings.slack_app_token:
        return "socket"
    if settings.slack_signing_secret:
        return "http"
    raise ConfigError(
        "slack_bot_token is set but neither slack_signing_secret (HTTP mode, Events API) "
        "nor slack_app_token (Socket Mode) is: set one of ASSISTANT_SLACK_SIGNING_SECRET, ASSISTANT_SLACK_APP_TOKEN"
    )


def create_slack_app(settings: Settings, tracked: TrackedAssistant, client: WebClient | None = None) -> App:
    """The Bolt app. It calls `auth.test` once at creation (on the configured Slack API URL) to learn its
    own user id, which is how it recognises and ignores its own messages."""
    mode = slack_mode(settings)
    if mode == "off":
        raise ConfigError("Slack is off: set ASSISTANT_SLACK_BOT_TOKEN")
    if client is None:
        kwargs = {"base_url": settings.slack_api_url.rstrip("/") + "/"} if settings.slack_api_url else {}
        client = WebClient(token=settings.slack_bot_token, **kwargs)
    app = App(
        client=client,
        signing_secret=settings.slack_signing_secret or "",
        request_verification_enabled=mode == "http",
        process_before_response=False,
    )
    handlers.register(app, tracked)
    return app


def mount_slack(api: FastAPI, app: App, path: str = EVENTS_PATH) -> None:
    """`POST /slack/events` on the API app; Bolt verifies the signature and acks within Slack's 3 s."""
    from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
    from starlette.concurrency import run_in_threadpool

    @api.post(path, include_in_schema=False)
    async def slack_events(request: Request):
        body = await request.body()
        response = await run_in_threadpool(app.dispatch, to_bolt_request(request, body))
        return to_starlette_response(response)


def start_socket_mode(app: App, settings: Settings):
    """Connect over Socket Mode in a background thread; returns the handler (call `.close()` to stop)."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(app, settings.slack_app_token)
    handler.connect()
    log.info("slack socket mode connected")
    return handler
