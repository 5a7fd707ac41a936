"""The OpenAPI schema states what the server enforces: the 400s for a wordless question and for a conversation
without a user question are in the schema, so a schema-valid request is answered and an invalid one refused."""

from __future__ import annotations

import sys
import unicodedata

import httpx
import jsonschema_rs
import pytest

from assistant.api.schemas import HAS_WORDS
from assistant.text.sanitize import has_words

KNOWN = "RuntimeError: not home_path.empty()"


def test_the_schema_pattern_and_has_words_agree_on_every_code_point() -> None:
    """What a schema validator (Rust's regex, as schemathesis uses) reads in `[\\p{L}\\p{N}]` is what the server
    checks, over all of Unicode, except for characters this Python's Unicode tables do not know yet (newer
    letters: the server calls them wordless). Never the other way round, which would accept what the schema
    refuses."""
    validator = jsonschema_rs.validator_for({"type": "string", "pattern": HAS_WORDS})
    differ = [
        chr(cp)
        for cp in range(sys.maxunicode + 1)
        if not 0xD800 <= cp <= 0xDFFF and validator.is_valid(chr(cp)) != has_words(chr(cp))
    ]
    assert all(validator.is_valid(ch) and unicodedata.category(ch) == "Cn" for ch in differ)
    assert len(differ) < 0.1 * sum(1 for cp in range(sys.maxunicode + 1) if has_words(chr(cp)))


def test_openapi_states_the_rules(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    question = schema["AskRequest"]["properties"]["question"]
    assert question["pattern"] == HAS_WORDS and question["minLength"] == 1
    messages = schema["ChatRequest"]["properties"]["messages"]
    assert messages["contains"]["properties"]["role"] == {"const": "user"}


@pytest.mark.parametrize("question", ["", "   ", "?!", "🔥"])
def test_a_question_the_schema_refuses_is_a_400(client: httpx.Client, question: str) -> None:
    validator = jsonschema_rs.validator_for({"type": "string", "pattern": HAS_WORDS, "minLength": 1})
    assert not validator.is_valid(question)
    assert client.post("/v1/ask", json={"question": question}).status_code == 400


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "tool"}],
        [{"role": "tool", "content": KNOWN}],
        [{"role": "assistant", "content": KNOWN}],
        [{"role": "system", "content": "be brief"}, {"role": "developer", "content": "x"}],
    ],
)
def test_a_conversation_without_a_user_question_is_a_400_that_says_so(client: httpx.Client, messages) -> None:
    r = client.post("/v1/chat/completions", json={"messages": messages})
    assert r.status_code == 400 and "no message with role 'user'" in r.json()["error"]["message"]


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": KNOWN}, {"role": "tool", "content": "tool output"}],
        [{"role": "user", "content": KNOWN}, {"role": "assistant", "content": "Sure,"}],
        [{"role": "user", "content": KNOWN}, {"role": "user", "content": "  "}],
        [{"role": "tool"}, {"role": "user", "content": [{"type": "text", "text": KNOWN}]}],
    ],
)
def test_a_conversation_the_schema_accepts_is_answered(client: httpx.Client, messages) -> None:
    r = client.post("/v1/chat/completions", json={"messages": messages})
    assert r.status_code == 200, r.text
    assert r.json()["citations"][0]["id"] == "deepgemm-fp8-home-path-empty"
