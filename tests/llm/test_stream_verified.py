"""Only verified text on the wire: a streamed LLM answer, read by a client, never carries what failed the check.

The "model" is `tests/llm/sse_server.py`, a separate process speaking the OpenAI streaming protocol (real
HTTP, real SSE, a few characters per event), so the planted inventions arrive cut into tokens as a real
model's would. The client is the official `openai` package reading our own `/v1/chat/completions` stream
from a live uvicorn server, as the docs' streaming example does.
"""

from __future__ import annotations

import openai
import pytest

from assistant.answer.generative import NOTICES
from assistant.app import create_app
from assistant.models import Answer, Switch
from tests.helpers.server import ServerThread
from tests.llm.test_generative_llm import AWQ_QUESTION, GOOD_REPLY

FIRST_SENTENCE = GOOD_REPLY.split(" [1]. ", 1)[0] + " [1]. "
INVENTED = ("VLLM_MAGIC_FIX", "--enable-magic-fix", "99999", "MAGIC", "magic-fix")
BAD_REPLY = (
    FIRST_SENTENCE + "To fix it, set `VLLM_MAGIC_FIX=1` and pass `--enable-magic-fix`, which PR #99999 added [1]. "
    "Then restart the server [1]."
)


def assert_nothing_invented(text: str) -> None:
    for name in INVENTED:
        assert name.lower() not in text.lower(), f"{name!r} reached the client"


@pytest.fixture
def planted_assistant(planted, make_assistant):
    assistant = make_assistant(planted.base_url, llm_max_retries=0, llm_timeout=60.0)
    assistant.warm_up()
    return assistant


# --- the library stream ---------------------------------------------------------------------------------


def test_a_part_with_invented_names_is_never_yielded_and_the_extractive_answer_follows(
    planted, planted_assistant, base_assistant
):
    planted.say(BAD_REPLY)
    items = list(planted_assistant.stream(AWQ_QUESTION))
    texts = [i for i in items if isinstance(i, str)]
    for t in texts:
        assert_nothing_invented(t)
    assert_nothing_invented("".join(texts))
    switch = next(i for i in items if isinstance(i, Switch))
    answer = items[-1]
    assert isinstance(answer, Answer)
    # the verified first sentence was sent; then the switch; then the extractive answer, whole
    before = items[: items.index(switch)]
    assert "".join(before) == FIRST_SENTENCE
    after = items[items.index(switch) + 1 : -1]
    extractive = base_assistant.ask(AWQ_QUESTION)
    assert "".join(after) == extractive.body == answer.body
    assert answer.written_by == "extractive"
    assert answer.notice == switch.notice and answer.notice.startswith("The generated answer failed verification")
    assert "appears in none of the cited sources" in answer.notice  # why, without naming the invention


def test_an_invented_first_sentence_sends_no_generated_text_at_all(planted, planted_assistant, base_assistant):
    planted.say("Set VLLM_MAGIC_FIX=1 to make AWQ batch-invariant on SM80 [1]. " + GOOD_REPLY)
    items = list(planted_assistant.stream(AWQ_QUESTION))
    assert not any(isinstance(i, Switch) for i in items)  # nothing generated was shown, so nothing to withdraw
    assert items[:-1] == [base_assistant.ask(AWQ_QUESTION).body]
    assert items[-1].notice.startswith("The generated answer failed verification")


def test_a_good_reply_streams_in_verified_parts(planted, planted_assistant):
    planted.say(GOOD_REPLY)
    items = list(planted_assistant.stream(AWQ_QUESTION))
    parts, answer = items[:-1], items[-1]
    assert len(parts) > 1 and all(isinstance(p, str) for p in parts)
    assert "".join(parts) == GOOD_REPLY == answer.body
    assert answer.written_by == "llm" and answer.notice is None and answer.citations


# --- over the wire: our API, read by the openai client ----------------------------------------------------


@pytest.fixture
def oai(planted_assistant, tmp_path):
    settings = planted_assistant.settings.with_overrides(feedback_db=tmp_path / "feedback.sqlite3")
    with ServerThread(create_app(settings, planted_assistant, ui=False)) as server:
        server.wait_ready()
        yield openai.OpenAI(base_url=server.url + "/v1", api_key="none", max_retries=0, timeout=120)


def read_stream(oai: openai.OpenAI) -> tuple[list[str], dict]:
    """(each content delta as the client got it, the final chunk's extra fields)."""
    deltas, final = [], {}
    stream = oai.chat.completions.create(
        model="vllm-troubleshooting-assistant", stream=True, messages=[{"role": "user", "content": AWQ_QUESTION}]
    )
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            deltas.append(chunk.choices[0].delta.content)
        if chunk.choices and chunk.choices[0].finish_reason == "stop":
            final = chunk.model_extra or {}
    return deltas, final


def test_no_delta_a_client_receives_carries_an_invented_name(planted, oai, base_assistant):
    planted.say(BAD_REPLY)
    deltas, final = read_stream(oai)
    for d in deltas:
        assert_nothing_invented(d)
    printed = "".join(deltas)  # what the docs' example prints
    assert_nothing_invented(printed)
    extractive = base_assistant.ask(AWQ_QUESTION)
    assert printed.startswith(FIRST_SENTENCE)
    assert final["notice"].startswith("The generated answer failed verification")
    assert final["notice"] in printed  # a client that prints only the deltas is told too
    assert extractive.body in printed and printed.rstrip().endswith(extractive.citations[-1].source)
    assert "final_content" not in final  # the deltas are the answer: nothing to replace


def test_the_good_path_still_streams_incrementally_over_the_wire(planted, oai):
    planted.say(GOOD_REPLY)
    deltas, final = read_stream(oai)
    body = [d for d in deltas if not d.startswith("\n\nSources:")]
    assert len(body) > 1, f"expected the answer in several deltas before the end, got {body!r}"
    assert "".join(body) == GOOD_REPLY
    assert deltas[-1].startswith("\n\nSources:") and "notice" not in final
    assert [c["id"] for c in final["citations"]] == ["awq-batch-invariance-sm80"]


def test_the_model_abstaining_shows_no_marker(planted, planted_assistant):
    planted.say("NO_ANSWER")
    items = list(planted_assistant.stream(AWQ_QUESTION))
    assert all("NO_ANSWER" not in i for i in items if isinstance(i, str))
    assert items[-1].notice == NOTICES["abstained"]


# --- the Gradio UI, through its own HTTP API ------------------------------------------------------------


def test_the_ui_never_shows_an_invented_name_while_it_streams(planted, planted_assistant, tmp_path, base_assistant):
    from gradio_client import Client

    planted.say(BAD_REPLY)
    settings = planted_assistant.settings.with_overrides(feedback_db=tmp_path / "feedback.sqlite3")
    with ServerThread(create_app(settings, planted_assistant, ui=True)) as server:
        server.wait_ready()
        client = Client(server.url + "/ui/", verbose=False)
        job = client.submit(AWQ_QUESTION, [], None, api_name="/ask")
        job.result(timeout=120)
        updates = job.outputs()
    assert len(updates) > 2  # the UI streamed: pending turns, then the final one
    for update in updates:
        assert_nothing_invented(str(update))
    assert any(FIRST_SENTENCE.strip() in str(u[0]) for u in updates[:-1])  # the verified part was shown first
    shown = str(updates[-1][0][-1]["content"])
    assert base_assistant.ask(AWQ_QUESTION).body.split("\n")[0] in shown and FIRST_SENTENCE.strip() not in shown
    assert "failed verification" in str(updates[-1][2])
