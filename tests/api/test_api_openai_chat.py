"""`/v1/chat/completions` through the official `openai` client against a live server, streaming included."""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.helpers.known import KNOWN

FOLLOW_UP = "and what is the workaround?"
ENTRY = "deepgemm-fp8-home-path-empty"


@pytest.fixture(scope="module")
def oai(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0, timeout=30)


def test_models_lists_the_assistant(oai: openai.OpenAI) -> None:
    assert [m.id for m in oai.models.list()] == ["vllm-troubleshooting-assistant"]


def test_completion_has_cited_text_and_citations_field(oai: openai.OpenAI) -> None:
    resp = oai.chat.completions.create(
        model="vllm-troubleshooting-assistant", temperature=0.2, messages=[{"role": "user", "content": KNOWN}]
    )
    choice = resp.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    assert "[1]" in choice.message.content and "Sources:" in choice.message.content
    extra = resp.model_extra
    assert extra["abstained"] is False
    assert extra["citations"][0]["id"] == ENTRY
    assert resp.usage.total_tokens > 0


def test_streaming_gives_the_same_answer_and_citations_at_the_end(oai: openai.OpenAI) -> None:
    plain = oai.chat.completions.create(model="x", messages=[{"role": "user", "content": KNOWN}])
    stream = oai.chat.completions.create(model="x", messages=[{"role": "user", "content": KNOWN}], stream=True)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["citations"][0]["id"] == ENTRY
    assert all(c.object == "chat.completion.chunk" for c in chunks)


def test_follow_up_uses_the_conversation(oai: openai.OpenAI) -> None:
    alone = oai.chat.completions.create(model="x", messages=[{"role": "user", "content": FOLLOW_UP}])
    assert alone.model_extra["abstained"] is True
    first = oai.chat.completions.create(model="x", messages=[{"role": "user", "content": KNOWN}])
    follow = oai.chat.completions.create(
        model="x",
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": KNOWN},
            {"role": "assistant", "content": first.choices[0].message.content},
            {"role": "user", "content": [{"type": "text", "text": FOLLOW_UP}]},
        ],
    )
    assert follow.model_extra["abstained"] is False
    assert follow.model_extra["citations"][0]["id"] == ENTRY


def test_bad_conversations_are_clear_4xx(oai: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="no message with role 'user'"):
        oai.chat.completions.create(model="x", messages=[{"role": "assistant", "content": "hi"}])
    with pytest.raises(openai.BadRequestError, match="the question is empty"):
        oai.chat.completions.create(model="x", messages=[{"role": "user", "content": "  "}])
    with pytest.raises(openai.BadRequestError, match="the question is empty"):
        oai.chat.completions.create(model="x", messages=[{"role": "user", "content": ""}], stream=True)
    with pytest.raises(openai.UnprocessableEntityError, match="messages"):
        oai.chat.completions.create(model="x", messages=[])


def test_raw_sse_framing(client: httpx.Client) -> None:
    with client.stream(
        "POST", "/v1/chat/completions", json={"stream": True, "messages": [{"role": "user", "content": KNOWN}]}
    ) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in r.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"


def test_api_key_works_with_the_openai_client(api_assistant, api_settings, serve_api) -> None:
    keyed = api_settings.with_overrides(api_keys=["s3cret"])
    with serve_api(api_assistant, keyed) as (_app, client):
        url = str(client.base_url).rstrip("/") + "/v1"
        good = openai.OpenAI(base_url=url, api_key="s3cret", max_retries=0)
        assert good.chat.completions.create(model="x", messages=[{"role": "user", "content": KNOWN}]).choices
        bad = openai.OpenAI(base_url=url, api_key="nope", max_retries=0)
        with pytest.raises(openai.AuthenticationError, match="invalid API key"):
            bad.chat.completions.create(model="x", messages=[{"role": "user", "content": KNOWN}])
