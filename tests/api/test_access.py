"""One access policy for every route: with keys set, the API, the UI, Gradio's API and the ops pages need one."""

from __future__ import annotations

import logging

import httpx
import pytest

from assistant.api.access import AccessPolicy, classify, is_loopback
from assistant.api.ratelimit import RateLimiter
from assistant.ui.blocks import AUTO_VERSION  # the version dropdown's default
from tests.helpers.known import KNOWN

KEY, OTHER = "k-0123456789", "k-other-key"

# (method, path, request kwargs) for every route a client can use, the UI's Gradio API included.
ROUTES = [
    ("POST", "/v1/ask", {"json": {"question": KNOWN}}),
    ("POST", "/v1/chat/completions", {"json": {"messages": [{"role": "user", "content": KNOWN}]}}),
    ("GET", "/v1/models", {}),
    ("GET", "/ui/", {}),
    ("GET", "/ui/gradio_api/info", {}),
    ("POST", "/ui/gradio_api/call/ask", {"json": {"data": [KNOWN, [], AUTO_VERSION]}}),
    ("GET", "/", {}),
    ("GET", "/metrics", {}),
    ("GET", "/docs", {}),
    ("GET", "/openapi.json", {}),
]


@pytest.fixture(scope="module")
def keyed(api_assistant, api_settings, serve_api):
    settings = api_settings.with_overrides(api_keys=[KEY, OTHER], ops_access="keyed")
    with serve_api(api_assistant, settings, ui=True) as (app, client):
        yield app, client


@pytest.mark.parametrize(("method", "path", "kwargs"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_every_route_needs_a_key_and_works_with_one(keyed, method: str, path: str, kwargs: dict) -> None:
    _, client = keyed
    missing = client.request(method, path, **kwargs)
    assert missing.status_code == 401, missing.text
    assert "missing API key" in missing.json()["error"]["message"]
    wrong = client.request(method, path, headers={"Authorization": "Bearer nope"}, **kwargs)
    assert wrong.status_code == 401 and wrong.json()["error"]["message"] == "invalid API key"
    ok = client.request(method, path, headers={"Authorization": f"Bearer {KEY}"}, follow_redirects=False, **kwargs)
    assert ok.status_code in (200, 307), ok.text


def test_gradio_api_answers_only_with_a_key(keyed) -> None:
    _, client = keyed
    auth = {"Authorization": f"Bearer {OTHER}"}
    event = client.post("/ui/gradio_api/call/ask", json={"data": [KNOWN, [], AUTO_VERSION]}, headers=auth).json()["event_id"]
    assert client.get(f"/ui/gradio_api/call/ask/{event}").status_code == 401
    result = client.get(f"/ui/gradio_api/call/ask/{event}", headers=auth)
    assert result.status_code == 200 and "VLLM_USE_DEEP_GEMM=0" in result.text


def test_uploads_are_off_for_everyone(keyed) -> None:
    _, client = keyed
    files = {"files": ("big.bin", b"x" * 1024, "application/octet-stream")}
    for headers in ({}, {"Authorization": f"Bearer {KEY}"}):
        r = client.post("/ui/gradio_api/upload", files=files, headers=headers)
        assert r.status_code == 403 and "uploads are off" in r.json()["error"]["message"]
        assert "/tmp" not in r.text


def test_a_browser_logs_in_with_the_key_and_gets_a_session_cookie(keyed) -> None:
    _, client = keyed
    page = client.get("/ui/", headers={"Accept": "text/html"})
    assert page.status_code == 401 and '<form method="post" action="/login">' in page.text
    bad = client.post("/login", data={"key": "nope", "next": "/ui/"}, follow_redirects=False)
    assert bad.status_code == 401 and "not valid" in bad.text
    with httpx.Client(base_url=client.base_url, timeout=30) as browser:
        login = browser.post("/login", data={"key": KEY, "next": "//evil.example/"}, follow_redirects=False)
        assert login.status_code == 303 and login.headers["location"] == "/ui/"  # no open redirect
        assert "HttpOnly" in login.headers["set-cookie"] and KEY not in login.headers["set-cookie"]
        assert browser.get("/ui/").status_code == 200
        event = browser.post("/ui/gradio_api/call/ask", json={"data": [KNOWN, [], AUTO_VERSION]}).json()["event_id"]
        assert "VLLM_USE_DEEP_GEMM=0" in browser.get(f"/ui/gradio_api/call/ask/{event}").text


def test_probes_and_slack_stay_open(keyed) -> None:
    _, client = keyed
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    assert client.post("/slack/events", content=b"{}").status_code == 404  # Slack is off here; not a 401


def test_body_limit_covers_the_ui_routes(keyed) -> None:
    app, client = keyed
    big = b"x" * (app.state.settings.max_body_bytes + 1)
    r = client.post("/ui/gradio_api/queue/join", content=big, headers={"Authorization": f"Bearer {KEY}"})
    assert r.status_code == 413


def test_ops_pages_are_open_on_loopback_by_default(api_assistant, api_settings, serve_api) -> None:
    settings = api_settings.with_overrides(api_keys=[KEY])  # ops_access auto, host 127.0.0.1
    with serve_api(api_assistant, settings) as (_app, client):
        assert client.get("/metrics").status_code == 200
        assert client.get("/openapi.json").status_code == 200
        assert client.post("/v1/ask", json={"question": KNOWN}).status_code == 401


def test_per_key_rate_limit_answers_429_with_retry_after(api_assistant, api_settings, serve_api) -> None:
    settings = api_settings.with_overrides(api_keys=[KEY, OTHER], rate_limit_per_minute=3)
    with serve_api(api_assistant, settings) as (app, client):
        # The limiter's clock stands still unless the test moves it: slow asks cannot refill the bucket.
        now = [1_000.0]
        app.state.access.limiter.clock = lambda: now[0]
        first = {"Authorization": f"Bearer {KEY}"}
        for _ in range(3):
            assert client.post("/v1/ask", json={"question": KNOWN}, headers=first).status_code == 200
        limited = client.post("/v1/ask", json={"question": KNOWN}, headers=first)
        assert limited.status_code == 429 and limited.headers["retry-after"] == "20"  # a token per 20 s at 3/min
        assert limited.json()["error"]["type"] == "rate_limit_error"
        second = {"Authorization": f"Bearer {OTHER}"}  # another key has its own budget
        assert client.post("/v1/ask", json={"question": KNOWN}, headers=second).status_code == 200
        assert client.get("/healthz").status_code == 200  # probes are never limited
        now[0] += 19.9
        assert client.post("/v1/ask", json={"question": KNOWN}, headers=first).status_code == 429
        now[0] += 0.1  # 20 s after the last token went: one more ask
        assert client.post("/v1/ask", json={"question": KNOWN}, headers=first).status_code == 200


def test_binding_beyond_loopback_without_keys_warns(caplog: pytest.LogCaptureFixture, api_settings) -> None:
    with caplog.at_level(logging.WARNING, logger="assistant.api"):
        policy = AccessPolicy.from_settings(api_settings.with_overrides(host="0.0.0.0"))
    assert not policy.ops_open
    assert any("without API keys" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="assistant.api"):
        AccessPolicy.from_settings(api_settings.with_overrides(host="0.0.0.0", api_keys=[KEY]))
        AccessPolicy.from_settings(api_settings)
    assert not caplog.records


def test_route_classes_and_loopback() -> None:
    assert classify("/healthz") == "open" and classify("/slack/events") == "slack"
    assert classify("/metrics") == "ops" and classify("/openapi.json") == "ops"
    assert classify("/ui/gradio_api/upload") == "upload" and classify("/ui/gradio_api/call/ask") == "keyed"
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.1.2.3")


def test_rate_limiter_refills_over_time() -> None:
    now = [0.0]
    limiter = RateLimiter(2, clock=lambda: now[0])
    assert limiter.check("a") is None and limiter.check("a") is None
    assert limiter.check("a") == 30  # one request every 30 s at 2 a minute
    assert limiter.check("b") is None
    now[0] = 30.0
    assert limiter.check("a") is None and limiter.check("a") is not None
