"""Prometheus metrics in a registry of their own (one per app), plus the ASGI middleware feeding them."""

from __future__ import annotations

import logging
import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from assistant.models import Answer

log = logging.getLogger("assistant.api")

_ROUTES = (
    "/v1/ask",
    "/v1/chat/completions",
    "/v1/models",
    "/healthz",
    "/readyz",
    "/metrics",
    "/slack/events",
    "/login",
)
_BUCKETS = (0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def route_label(path: str) -> str:
    """Known routes by name, everything else (the UI's assets and API) folded, to bound cardinality."""
    if path in _ROUTES:
        return path
    if path.startswith("/ui"):
        return "/ui"
    return "other"


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "assistant_http_requests_total",
            "HTTP requests by route, method and status.",
            ["route", "method", "status"],
            registry=r,
        )
        self.latency = Histogram(
            "assistant_http_request_duration_seconds",
            "Time to the last byte of the response.",
            ["route"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.in_flight = Gauge("assistant_http_requests_in_flight", "Requests being served.", registry=r)
        self.answers = Counter("assistant_answers_total", "Answers given, by face.", ["face"], registry=r)
        self.abstentions = Counter(
            "assistant_abstentions_total", "Questions abstained on, by face.", ["face"], registry=r
        )
        self.errors = Counter(
            "assistant_errors_total", "Errors returned, by route and kind.", ["route", "kind"], registry=r
        )
        self.reranks = Counter(
            "assistant_rerank_total",
            "Rerank calls by outcome: ok, or the fallback to the fused order (timeout, unreachable, http_error, "
            "malformed, incomplete).",
            ["outcome"],
            registry=r,
        )
        self.rerank_latency = Histogram(
            "assistant_rerank_duration_seconds",
            "Time of a rerank call, fallbacks included.",
            buckets=_BUCKETS,
            registry=r,
        )
        self.sync_success = Gauge(
            "assistant_sync_last_success_timestamp_seconds",
            "Unix time of the last successful sync, by source.",
            ["source"],
            registry=r,
        )
        self.sync_failing = Gauge(
            "assistant_sync_failing", "1 when the last sync attempt of a source failed.", ["source"], registry=r
        )
        self.store_errors = Counter(
            "assistant_feedback_store_errors_total",
            "Questions answered but not logged because the feedback store could not be written.",
            registry=r,
        )
        self.store_up = Gauge(
            "assistant_feedback_store_up",
            "1 while the feedback store accepts writes, 0 after a failed write.",
            registry=r,
        )
        self.store_up.set(1)

    def observe_sync(self, statuses) -> None:
        """Set the sync gauges from the checkpoint file's per-source status (read at scrape time)."""
        for s in statuses:
            if s.last_success:
                self.sync_success.labels(s.name).set(s.last_success)
            self.sync_failing.labels(s.name).set(1 if s.last_error else 0)

    def watch_store(self, store) -> None:
        """Report the store's health at scrape time (a later successful write clears the failure)."""
        self.store_up.set_function(lambda: 0.0 if store.failure else 1.0)

    def observe_store_error(self, _exc: Exception) -> None:
        self.store_errors.inc()

    def observe_answer(self, face: str, answer: Answer) -> None:
        self.answers.labels(face).inc()
        if answer.abstained:
            self.abstentions.labels(face).inc()
        if answer.rerank is not None:
            self.reranks.labels(answer.rerank.status).inc()
            self.rerank_latency.observe(answer.rerank.seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts and times every HTTP request to its last body byte (streams included) and logs one line."""

    def __init__(self, app, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        route = route_label(scope["path"])
        status = 500
        done = False
        m = self.metrics

        def finish() -> None:
            nonlocal done
            if done:
                return
            done = True
            elapsed = time.perf_counter() - started
            m.requests.labels(route, scope["method"], str(status)).inc()
            m.latency.labels(route).observe(elapsed)
            if status >= 500 and route != "/readyz":  # 503 while loading is the readiness answer, not an error
                m.errors.labels(route, "server").inc()
            if route != "/ui" and route != "/metrics":
                log.info(
                    "request",
                    extra={
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "ms": round(elapsed * 1000, 2),
                    },
                )

        async def send_wrapper(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                finish()

        m.in_flight.inc()
        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            m.in_flight.dec()
            finish()
