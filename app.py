"""The entry point: one process serving every face (chat UI at /ui, HTTP API at /v1, Slack when configured).

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

from assistant.api.logs import configure_logging
from assistant.app import create_app
from assistant.errors import AssistantError
from assistant.index.embedder import apply_torch_threads
from assistant.settings import Settings

log = logging.getLogger("assistant.app")


def proxy_options(settings: Settings) -> dict:
    """uvicorn's proxy settings from ours: X-Forwarded-For is read only from the proxies `forwarded_allow_ips`
    names. uvicorn alone would trust 127.0.0.1 (or $FORWARDED_ALLOW_IPS), letting any local client pick the
    address the failed-key limit counts against."""
    allowed = [ip.strip() for ip in settings.forwarded_allow_ips if ip.strip()]
    return {"proxy_headers": bool(allowed), "forwarded_allow_ips": allowed or None}


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
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=5,
        **proxy_options(settings),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
