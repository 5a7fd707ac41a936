"""One process serving every face: the chat UI at /ui, the HTTP API at /v1, Slack when configured.

    python app.py                 # http://127.0.0.1:7860/ui/  (ASSISTANT_HOST / ASSISTANT_PORT or --host/--port)

The index is built from corpus/ on first run (progress in the log); /readyz turns 200 once questions
can be answered. Logs are JSON lines on stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

STARTED = time.perf_counter()
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no telemetry, no version check
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub lookups
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # keep stderr to JSON log lines

from fastapi import FastAPI

from assistant.api import create_api
from assistant.api.logs import configure_logging
from assistant.errors import AssistantError
from assistant.index.embedder import apply_torch_threads
from assistant.service import Assistant
from assistant.settings import Settings

log = logging.getLogger("assistant.app")


def create_app(settings: Settings, assistant: Assistant | None = None, ui: bool = True) -> FastAPI:
    """The API with the UI mounted at /ui and Slack's Events API at /slack/events when configured."""
    api = create_api(assistant or Assistant(settings), settings)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the vLLM troubleshooting assistant (UI, API, Slack).")
    parser.add_argument("--host", help="bind address (env ASSISTANT_HOST, default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (env ASSISTANT_PORT, default 7860)")
    parser.add_argument("--no-ui", action="store_true", help="serve the API (and Slack) only")
    parser.add_argument("--log-level", default=os.environ.get("ASSISTANT_LOG_LEVEL", "INFO"), help="log level")
    args = parser.parse_args(argv)
    configure_logging(args.log_level.upper())
    try:
        settings = Settings().with_overrides(host=args.host, port=args.port)
        app = create_app(settings, ui=not args.no_ui)
    except (AssistantError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    apply_torch_threads(settings)
    base = f"http://{settings.host}:{settings.port}"

    def announce(readiness) -> None:
        since_start = time.perf_counter() - STARTED
        log.info("ready to answer", extra={"url": base, "startup_seconds": round(since_start, 2)})
        print(
            f"\nvLLM troubleshooting assistant is ready ({since_start:.1f}s after start):\n"
            f"  chat UI   {base}/ui/\n  API       {base}/v1/ask   (OpenAI-compatible: {base}/v1)\n"
            f"  API docs  {base}/docs\n  health    {base}/healthz  {base}/readyz  {base}/metrics\n",
            flush=True,
        )

    app.state.readiness.on_ready.append(announce)
    log.info("starting", extra={"url": base, "ui": not args.no_ui, "slack": app.state.slack_mode})
    print(f"starting on {base} (building/loading the index; the UI opens at {base}/ui/ once ready)", flush=True)
    import uvicorn

    uvicorn.run(
        app, host=settings.host, port=settings.port, log_config=None, access_log=False, timeout_graceful_shutdown=5
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
