"""No input reaches a 500, and a failing feedback store degrades instead of failing the answer."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from assistant.api.logs import JsonFormatter
from assistant.api.routes.chat import _sse
from assistant.feedback.tracked import Asked
from assistant.ui.blocks import AUTO_VERSION  # the version dropdown's default
from tests.helpers.known import KNOWN, SECRET

WORDLESS = ["???", "😀", "\u0000", " \u0000 ?! ", "🔥🔥 …"]


def _raw(client: httpx.Client, path: str, body: str) -> httpx.Response:
    """Send JSON text as is (escapes such as \\ud800 included), as a client in another language would."""
    return client.post(path, content=body.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("question", WORDLESS)
def test_wordless_questions_are_a_400_on_every_route(client: httpx.Client, question: str) -> None:
    ask = client.post("/v1/ask", json={"question": question})
    assert ask.status_code == 400 and "paste" in ask.json()["error"]["message"]
    for stream in (False, True):
        chat = client.post(
            "/v1/chat/completions", json={"messages": [{"role": "user", "content": question}], "stream": stream}
        )
        assert chat.status_code == 400 and "paste" in chat.json()["error"]["message"]


def test_a_lone_surrogate_or_nul_in_the_json_is_cleaned_not_a_500(client: httpx.Client) -> None:
    r = _raw(client, "/v1/ask", '{"question": "EngineDeadError \\ud800 after a request"}')
    assert r.status_code == 200, r.text
    assert json.loads(r.text)["hits"]
    r = _raw(client, "/v1/ask", '{"question": "\\ud800\\udfff\\u0000"}')
    assert r.status_code == 400
    r = _raw(client, "/v1/chat/completions", '{"messages": [{"role": "user", "content": "EngineDeadError \\udc00"}]}')
    assert r.status_code == 200


def test_the_ui_says_what_to_paste(api_assistant, api_settings, serve_api) -> None:
    with serve_api(api_assistant, api_settings, ui=True) as (_app, client):
        # A word no source has (EngineDeadError is a curated entry's error string since the corpus grew).
        for question in ("???", "😀", "QuuxFrobnicatorError \ud800"):
            event = _raw(client, "/ui/gradio_api/call/ask", json.dumps({"data": [question, [], AUTO_VERSION]})).json()["event_id"]
            result = client.get(f"/ui/gradio_api/call/ask/{event}").text
            # No crash shows: the abstention's own advice may name `Traceback`, a stack trace would start like this.
            assert "event: error" not in result and "Traceback (most recent call last)" not in result
            if question.startswith("QuuxFrobnicatorError"):  # it has a word: searched for, not found in this corpus
                assert "I could not find this problem" in result and "paste the error message" not in result
            else:
                assert "paste the error message" in result and "I could not find this problem" not in result


def test_a_secret_bearing_question_is_stored_masked(client: httpx.Client, live) -> None:
    app, _ = live
    r = client.post("/v1/ask", json={"question": f"{KNOWN}\nFP8 model, HF_TOKEN={SECRET}"})
    assert r.status_code == 200 and r.json()["citations"]  # answered from the full text
    [gap_or_not] = [q for q in _all_questions(app.state.store.path) if "HF_TOKEN" in q]
    assert SECRET not in gap_or_not and "HF_TOKEN=[REDACTED]" in gap_or_not


def _all_questions(db: Path) -> list[str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT question FROM questions")]


def test_log_lines_mask_secrets() -> None:
    record = logging.makeLogRecord(
        {"name": "assistant.api", "levelno": logging.ERROR, "levelname": "ERROR", "msg": f"failed for {SECRET}"}
    )
    record.error = f"Authorization: Bearer sk-live-0123456789abcdef while asking {SECRET}"
    line = JsonFormatter().format(record)
    assert SECRET not in line and "sk-live-0123456789abcdef" not in line
    assert json.loads(line)["error"].startswith("Authorization: Bearer [REDACTED]")



def test_a_read_only_feedback_db_still_answers_and_streams_end_with_done(
    api_assistant, api_settings, serve_api, readonly_db: Path
) -> None:
    settings = api_settings.with_overrides(feedback_db=readonly_db)
    with serve_api(api_assistant, settings) as (_app, client):
        r = client.post("/v1/ask", json={"question": KNOWN})
        assert r.status_code == 200 and r.json()["citations"]
        body = {"messages": [{"role": "user", "content": KNOWN}], "stream": True}
        with client.stream("POST", "/v1/chat/completions", json=body) as s:
            assert s.status_code == 200
            events = [line for line in s.iter_lines() if line.startswith("data: ")]
        assert events[-1] == "data: [DONE]"
        final = json.loads(events[-2][len("data: ") :])
        assert final["choices"][0]["finish_reason"] == "stop" and final["citations"]
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["feedback_store"].startswith("failing")
        assert str(readonly_db) not in ready.text
        metrics = client.get("/metrics").text
        assert "assistant_feedback_store_up 0.0" in metrics
        assert "assistant_feedback_store_errors_total 2.0" in metrics


def test_a_stream_that_fails_midway_ends_with_an_error_event_and_done(api_settings) -> None:
    def items():
        yield "partial answer "
        raise RuntimeError("backend vanished at /srv/secret/path")

    gen = items()
    out = list(_sse("id", 0, "m", next(gen), gen, api_settings))
    assert out[-1] == "data: [DONE]\n\n"
    err = json.loads(out[-2][len("data: ") :])["error"]
    assert err["type"] == "server_error" and "/srv" not in err["message"]
    assert not any(isinstance(x, Asked) for x in out)
