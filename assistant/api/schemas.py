"""Request and response models of the HTTP API (strict: a wrong type is a 422, not a coercion)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

MODEL_ID = "vllm-troubleshooting-assistant"


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: StrictStr = Field(description="The error message, traceback or problem description.")
    k: StrictInt | None = Field(None, ge=1, le=50, description="Number of hits returned (default: settings.top_k).")


class CitationOut(BaseModel):
    id: str
    title: str
    source: str


class HitOut(CitationOut):
    score: float


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


class ChatRequest(BaseModel):
    """OpenAI's chat completion request; sampling fields are accepted and ignored (answers are grounded)."""

    model_config = ConfigDict(extra="allow")

    model: StrictStr | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    stream: StrictBool | None = False
    k: StrictInt | None = Field(None, ge=1, le=50, description="Number of hits retrieved (extension).")
