"""`POST /v1/ask`, health, readiness, metrics, limits and keys, over real HTTP to a live server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import CURATED
from tests.helpers.known import KNOWN, UNKNOWN

REPO = Path(__file__).resolve().parents[2]


def _assert_clear_error(r: httpx.Response, status: int, needle: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert needle.lower() in body["error"]["message"].lower(), body
    assert "Traceback" not in r.text and 'File "' not in r.text


def test_ask_answers_with_citations(client: httpx.Client) -> None:
    r = client.post("/v1/ask", json={"question": KNOWN})
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"answer", "abstained", "language", "citations", "hits"}
    assert body["abstained"] is False
    assert body["citations"][0]["id"] == "deepgemm-fp8-home-path-empty"
    assert "[1]" in body["answer"] and "Sources:" in body["answer"]
    assert "VLLM_USE_DEEP_GEMM=0" in body["answer"]


def test_a_chinese_answer_has_one_footer_in_chinese(client: httpx.Client) -> None:
    body = client.post("/v1/ask", json={"question": "启动 FP8 模型报错 not home_path.empty()，怎么解决？"}).json()
    assert body["language"] == "zh" and body["abstained"] is False
    assert body["answer"].count("\n\n来源:\n[1] ") == 1 and "Sources:" not in body["answer"]
    assert body["answer"].count(body["citations"][0]["source"]) == 1


def test_ask_matches_cli_json(client: httpx.Client, faces_index: Path) -> None:
    """The API returns the same object as `python -m assistant ask --json`."""
    cli = subprocess.run(
        [sys.executable, "-m", "assistant", "ask", "--json", "--index-dir", str(faces_index), KNOWN],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
    )
    assert cli.returncode == 0, cli.stderr
    assert client.post("/v1/ask", json={"question": KNOWN}).json() == json.loads(cli.stdout)


def test_ask_abstains_and_logs_a_knowledge_gap(live) -> None:
    app, client = live
    body = client.post("/v1/ask", json={"question": UNKNOWN}).json()
    assert body["abstained"] is True and body["citations"] == []
    gaps = app.state.store.gaps()
    assert any(g.question == UNKNOWN and g.face == "api" for g in gaps)


def test_k_bounds_the_hits(client: httpx.Client) -> None:
    assert len(client.post("/v1/ask", json={"question": KNOWN, "k": 1}).json()["hits"]) == 1


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ('{"question": ', 400, "not valid JSON"),
        ("[1, 2]", 400, "JSON object"),
        ('"just a string"', 400, "JSON object"),
        ("", 400, "JSON object body"),
        ('{"question": 42}', 422, "question: Input should be a valid string"),
        ('{"question": ["a"]}', 422, "question"),
        ('{"k": 3}', 422, "question: Field required"),
        ('{"question": "x", "colour": "red"}', 422, "colour: unknown field"),
        ('{"question": "x", "k": 0}', 422, "k: Input should be greater than or equal to 1"),
        ('{"question": "x", "k": "3"}', 422, "k: Input should be a valid integer"),
        ('{"question": ""}', 400, "the question is empty"),
        ('{"question": "   \\n  "}', 400, "the question is empty"),
        (json.dumps({"question": "x" * 25_000}), 400, "the limit is 20000"),
    ],
)
def test_bad_requests_get_a_clear_4xx(client: httpx.Client, body: str, status: int, needle: str) -> None:
    r = client.post("/v1/ask", content=body, headers={"content-type": "application/json"})
    _assert_clear_error(r, status, needle)


def test_huge_bodies_are_refused_before_parsing(client: httpx.Client) -> None:
    r = client.post("/v1/ask", json={"question": "x" * 300_000})
    _assert_clear_error(r, 413, "larger than the limit")

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(40):
            yield b"x" * 10_000

    r = client.post("/v1/ask", content=chunks(), headers={"content-type": "application/json"})
    _assert_clear_error(r, 413, "larger than the limit")


def test_unknown_routes_and_methods(client: httpx.Client) -> None:
    _assert_clear_error(client.get("/v1/nope"), 404, "no route")
    _assert_clear_error(client.get("/v1/ask"), 405, "not allowed")


def test_health_readiness_and_metrics(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["chunks"] == CURATED  # the faces index: corpus/, a chunk an entry
    client.post("/v1/ask", json={"question": KNOWN})
    client.post("/v1/ask", json={"question": UNKNOWN})
    client.post("/v1/ask", json={"question": ""})
    text = client.get("/metrics").text
    assert 'assistant_http_requests_total{method="POST",route="/v1/ask",status="200"}' in text
    assert 'assistant_http_request_duration_seconds_bucket{le="0.05",route="/v1/ask"}' in text
    assert 'assistant_abstentions_total{face="api"}' in text
    assert 'assistant_errors_total{kind="input",route="/v1/ask"}' in text


def test_not_ready_until_the_index_is_loaded(api_assistant, api_settings, serve_api) -> None:
    with serve_api(api_assistant, api_settings, wait=False, prepare=False) as (app, client):
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 503
        r = client.post("/v1/ask", json={"question": KNOWN})
        _assert_clear_error(r, 503, "not ready")
        assert r.headers["retry-after"] == "1"
        app.state.readiness.prepare(api_assistant)
        assert client.post("/v1/ask", json={"question": KNOWN}).status_code == 200


def test_api_keys_when_configured(api_assistant, api_settings, serve_api) -> None:
    keyed = api_settings.with_overrides(api_keys=["s3cret", "other"])
    with serve_api(api_assistant, keyed) as (_app, client):
        _assert_clear_error(client.post("/v1/ask", json={"question": KNOWN}), 401, "missing API key")
        r = client.post("/v1/ask", json={"question": KNOWN}, headers={"Authorization": "Bearer wrong"})
        _assert_clear_error(r, 401, "invalid API key")
        r = client.post("/v1/ask", json={"question": KNOWN}, headers={"Authorization": "Bearer s3cret"})
        assert r.status_code == 200
        assert client.get("/healthz").status_code == 200  # probes stay open
