"""Request and response models of the HTTP API (strict: a wrong type is a 422, not a coercion)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr

MODEL_ID = "vllm-troubleshooting-assistant"


def _integral(value: Any) -> Any:
    """JSON does not tell 21 from 21.0 and the schema says `integer`, so an integral float is accepted;
    21.5, "21" and true stay errors."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


HitCount = Annotated[StrictInt, Field(ge=1, le=50), BeforeValidator(_integral)]

# What `validate_question` enforces, stated for clients and schema fuzzers: at least one letter or digit in
# any script (`has_words`: Unicode categories L and N). Checked in code, not by pydantic, so that a wordless
# question gets the 400 that says what to paste rather than a regex error.
HAS_WORDS = r"[\p{L}\p{N}]"
_QUESTION_SCHEMA = {"minLength": 1, "pattern": HAS_WORDS}


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: StrictStr = Field(
        description="The error message, traceback or problem description: at least one letter or digit "
        "(else 400), at most `max_question_chars` characters.",
        json_schema_extra=_QUESTION_SCHEMA,
    )
    k: HitCount | None = Field(None, description="Number of hits returned, 1-50 (default: settings.top_k).")
    vllm_version: StrictStr | None = Field(
        None,
        pattern=r"^v?\d+\.\d+(\.\d+)?([.+\w-]*)$",
        description="The user's vLLM version; code facts come from this release (default: what the question states).",
    )


class CitationOut(BaseModel):
    id: str
    title: str
    source: str


class HitOut(CitationOut):
    score: float = Field(description="The fused retrieval score.")
    rerank_score: float | None = Field(None, description="The reranker's relevance score, when it ordered the hits.")


class AskResponse(BaseModel):
    """Same object as `python -m assistant ask --json`."""

    answer: str
    abstained: bool
    language: str
    citations: list[CitationOut]
    hits: list[HitOut]
    notice: str | None = None


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: StrictStr
    text: StrictStr | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: StrictStr | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(p.text for p in self.content if p.type == "text" and p.text)
        return self.content or ""


# A conversation needs a user message with words (`conversation` in routes/chat.py picks the last one).
_HAS_QUESTION = {
    "contains": {
        "type": "object",
        "required": ["role", "content"],
        "properties": {
            "role": {"const": "user"},
            "content": {
                "anyOf": [
                    {"type": "string", **_QUESTION_SCHEMA},
                    {
                        "type": "array",
                        "contains": {
                            "type": "object",
                            "required": ["type", "text"],
                            "properties": {"type": {"const": "text"}, "text": {"type": "string", **_QUESTION_SCHEMA}},
                        },
                    },
                ]
            },
        },
    }
}


class ChatRequest(BaseModel):
    """OpenAI's chat completion request; sampling fields are accepted and ignored (answers are grounded)."""

    model_config = ConfigDict(extra="allow")

    model: StrictStr | None = None
    messages: list[ChatMessage] = Field(
        min_length=1,
        description="The question is the last user message with a letter or digit (400 when there is none); "
        "the user and assistant messages before it are the conversation; messages after it are ignored.",
        json_schema_extra=_HAS_QUESTION,
    )
    stream: StrictBool | None = False
    k: HitCount | None = Field(None, description="Number of hits retrieved, 1-50 (extension).")


class Readiness(BaseModel):
    """`GET /readyz`: `ready`, or why not (`starting`, `loading`, `waiting`, `failed`) with a detail; `failed`
    includes an index that fails its self-check, with the repair in the detail."""

    status: str
    detail: str | None = None
    chunks: int | None = None
    startup_seconds: float | None = None
    sync: dict[str, dict[str, Any]] | None = Field(None, description="Each synced source's last run (when sync is on).")
    feedback_store: str = Field(
        "ok", description="'ok', or 'failing: <reason>' while asked questions cannot be logged."
    )


class ErrorBody(BaseModel):
    message: str
    type: str
    code: int


class ErrorResponse(BaseModel):
    """Every error, in OpenAI's shape."""

    error: ErrorBody


ERROR_RESPONSES: dict[int | str, dict] = {
    400: {
        "model": ErrorResponse,
        "description": "Bad input: empty or wordless question, invalid JSON, bad conversation.",
    },
    401: {
        "model": ErrorResponse,
        "description": "A key is required (`ASSISTANT_API_KEYS` is set) and none or a wrong one was sent.",
    },
    413: {"model": ErrorResponse, "description": "The request body is larger than `max_body_bytes`."},
    422: {"model": ErrorResponse, "description": "A field has the wrong type or value."},
    429: {"model": ErrorResponse, "description": "Rate limit exceeded; `Retry-After` says when to retry."},
    503: {"model": ErrorResponse, "description": "Not ready yet (index loading) or the index is unavailable."},
}


class ModelCard(BaseModel):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"]
    data: list[ModelCard]


class ChatChoiceMessage(BaseModel):
    role: Literal["assistant"]
    content: str


class ChatChoice(BaseModel):
    index: int
    message: ChatChoiceMessage
    finish_reason: str


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """OpenAI's chat completion, plus the assistant's `citations`, `abstained`, `language` (and `notice`)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: Usage
    citations: list[CitationOut]
    abstained: bool
    language: str
    notice: str | None = None
