"""Bounded cost per request, through real HTTP: history has its own limits (a clear 400 naming the limit),
and an adversarial 20 KB question or a long history costs little CPU (the server runs in this process, so
`time.process_time` counts the server's work)."""

from __future__ import annotations

import time

import httpx
import pytest

from assistant.service import Assistant
from assistant.settings import Settings


@pytest.fixture(scope="module")
def limited(api_assistant: Assistant, api_settings: Settings, serve_api):
    """A server whose history limits are small, sharing the session's index and model."""
    settings = api_settings.with_overrides(max_history_turns=4, max_turn_chars=500, max_history_chars=1200)
    assistant = Assistant(settings, embedder=api_assistant.embedder, store=api_assistant.store)
    with serve_api(assistant, settings) as (_app, client):
        yield client


def _chat(client: httpx.Client, earlier: list[str], question: str) -> httpx.Response:
    roles = ["user", "assistant"]
    messages = [{"role": roles[i % 2], "content": c} for i, c in enumerate(earlier)]
    return client.post("/v1/chat/completions", json={"messages": [*messages, {"role": "user", "content": question}]})


@pytest.mark.parametrize(
    ("earlier", "says"),
    [
        (["RuntimeError: not home_path.empty()", "an answer"] * 3, "the limit is 4"),
        (["x" * 501], "the limit is 500 per message"),
        (["y" * 450] * 3, "the limit is 1200"),
    ],
    ids=["turns", "one turn", "total"],
)
def test_history_over_a_limit_is_a_400_naming_it(limited: httpx.Client, earlier: list[str], says: str) -> None:
    r = _chat(limited, earlier, "and on an H100?")
    assert r.status_code == 400, r.text
    assert says in r.json()["error"]["message"]


def test_history_within_the_limits_is_answered(limited: httpx.Client) -> None:
    r = _chat(limited, ["RuntimeError: not home_path.empty()", "an answer"], "and on an H100?")
    assert r.status_code == 200, r.text


def _cpu(call) -> tuple[float, httpx.Response]:
    start = time.process_time()
    response = call()
    return time.process_time() - start, response


@pytest.mark.parametrize("unit", ["a.", "a-", "a"])
def test_a_20kb_adversarial_question_is_cheap(client: httpx.Client, unit: str) -> None:
    """Was 24 s of CPU for `a.` × 10,000 (the issue's measure, 12 s here); the issue's budget is 0.5 s for the
    whole request, embedding included (about 0.17 s here)."""
    cpu, r = _cpu(lambda: client.post("/v1/ask", json={"question": unit * (20_000 // len(unit))}))
    assert r.status_code == 200, r.text
    assert cpu < 0.5, f"{cpu:.2f} s of CPU"


def test_a_long_history_is_cheap(client: httpx.Client) -> None:
    """Three 20 KB earlier turns took 87 s (22 s here); budget 2 s; at the default limits nearly the whole body (228 KB of history) is read."""
    earlier = [("a." * 10_000)[:19_000], ("a-" * 10_000)[:19_000]] * 6
    cpu, r = _chat_cpu(client, earlier)
    assert r.status_code == 200, r.text
    assert cpu < 2.0, f"{cpu:.2f} s of CPU"


def _chat_cpu(client: httpx.Client, earlier: list[str]) -> tuple[float, httpx.Response]:
    return _cpu(lambda: _chat(client, earlier, "RuntimeError: not home_path.empty()"))
