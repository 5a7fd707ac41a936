"""The app factory every way of serving uses: the API, the chat UI at /ui and Slack when configured.

`app.py` (the entry point), the tests and the benchmarks all build the app here, so what is tested is
what ships.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI

from assistant.api import create_api
from assistant.service import Assistant
from assistant.settings import Settings

log = logging.getLogger("assistant.app")


def create_app(
    settings: Settings, assistant: Assistant | None = None, *, ui: bool = True, prepare: bool = True
) -> FastAPI:
    """The API with the UI mounted at /ui and Slack's Events API at /slack/events (or Socket Mode) when configured.

    `assistant` lets a caller share an already loaded model and index; `prepare=False` leaves the index
    build and warm-up to the caller (`/readyz` stays 503 until `app.state.readiness.prepare(...)`)."""
    api = create_api(assistant or Assistant(settings), settings, prepare=prepare)
    tracked = api.state.tracked
    if ui:
        from assistant.ui import mount_ui

        mount_ui(api, tracked)
    from assistant.slack import slack_mode

    mode = slack_mode(settings)
    if mode != "off":
        from assistant.slack import create_slack_app, mount_slack, start_socket_mode

        try:
            bolt = create_slack_app(settings, tracked)
        except Exception as exc:  # noqa: BLE001 - a bad token or an unreachable Slack must not take the UI and API down
            log.error("slack disabled: the app could not start", extra={"error": f"{type(exc).__name__}: {exc}"})
        else:
            if mode == "http":
                mount_slack(api, bolt)
            else:
                api.state.readiness.on_ready.append(lambda _r: start_socket_mode(bolt, settings))
            log.info("slack enabled", extra={"mode": mode})
    api.state.slack_mode = mode
    return api
