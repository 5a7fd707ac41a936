"""The UI's Gradio API called with wrong types: a clear sentence for the caller, never a Python error."""

from __future__ import annotations

import json

import httpx
import pytest

from assistant.ui.blocks import AUTO_VERSION, CONVERSATION_SHAPE

KNOWN = "RuntimeError: not home_path.empty()"


def call(base: str, api: str, data: list) -> tuple[str, object]:
    """(last event name, its data) of one Gradio API call."""
    with httpx.Client(base_url=base, timeout=60) as client:
        started = client.post(f"/ui/gradio_api/call/{api}", json={"data": data})
        assert started.status_code == 200, started.text
        text = client.get(f"/ui/gradio_api/call/{api}/{started.json()['event_id']}").text
    events = [line.removeprefix("event: ") for line in text.splitlines() if line.startswith("event: ")]
    payloads = [line.removeprefix("data: ") for line in text.splitlines() if line.startswith("data: ")]
    return events[-1], json.loads(payloads[-1])


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ([KNOWN, [], 5], "the vLLM version must be text such as '0.33.0', got int"),
        ([KNOWN, 5, AUTO_VERSION], CONVERSATION_SHAPE),
        ([KNOWN, [{"role": 3}], AUTO_VERSION], CONVERSATION_SHAPE),
        ([KNOWN, ["not a message"], AUTO_VERSION], CONVERSATION_SHAPE),
    ],
)
def test_wrong_types_get_a_clear_error(ui_server, data: list, says: str) -> None:
    base, _ = ui_server
    event, payload = call(base, "ask", data)
    assert event == "error" and payload["error"] == says
    assert "attribute" not in payload["error"] and "pydantic" not in payload["error"]


def test_a_wrong_comment_type_is_not_a_crash(ui_server) -> None:
    base, _ = ui_server
    event, payload = call(base, "feedback_up", [5, None])
    assert event == "complete" and payload[0] == "Ask a question first, then rate the answer."


def test_right_types_still_answer(ui_server) -> None:
    base, _ = ui_server
    event, payload = call(base, "ask", [KNOWN, [], AUTO_VERSION])
    assert event == "complete" and "VLLM_USE_DEEP_GEMM=0" in json.dumps(payload)
