"""A UI call that Gradio rejects (a payload that fits no component) is logged without the user's input.

Gradio prints the failing call's traceback itself, before our callback runs; pydantic's message in it quoted
the input, so a token pasted into a malformed call reached the server log unmasked.
"""

from __future__ import annotations

import logging

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from assistant.ui.error_log import describe_error

SECRET = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
PASSWORD = "RedisPassw0rd"


@pytest.mark.parametrize(
    "history",
    [
        [{"bad": f":{PASSWORD}@"}],  # pydantic shortens a long input in its message: a short one is quoted whole
        [{"role": "user", "content": {"text": f"{SECRET} {PASSWORD}"}}],
    ],
    ids=["no role", "content not a list"],
)
def test_a_rejected_call_is_logged_without_its_input(ui_server, capfd, caplog, history) -> None:
    url, _api = ui_server
    client = Client(f"{url}/ui/", verbose=False)
    with caplog.at_level(logging.ERROR, logger="assistant.ui"), pytest.raises(AppError):
        client.predict(f"HF_TOKEN={SECRET}", history, "as the question states", api_name="/ask")
    out, err = capfd.readouterr()
    logged = caplog.text
    for secret in (SECRET, PASSWORD):
        assert secret not in out + err + logged
    # the failure is still logged, as the clear message the UI shows for a malformed conversation
    assert "gradio call failed" in logged and "the conversation must be a list of messages" in logged


def test_describe_error_masks_other_errors() -> None:
    assert SECRET not in describe_error(ValueError(f"bad value HF_TOKEN={SECRET}"))
