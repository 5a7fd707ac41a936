"""Property: whatever text arrives, the query path answers or raises `InputError`, never anything else."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from assistant.errors import InputError
from assistant.models import Answer

FRAGMENTS = [
    "RuntimeError: not home_path.empty()",
    "EngineDeadError",
    "VLLM_USE_DEEP_GEMM=0",
    "--enforce-eager",
    "CUDA out of memory",
    "Qwen3-8B-AWQ",
    "为什么",
    "启动 FP8 模型报错",
    "how?",
    "the a of",
    "???",
    "😀",
    "\u0000",
    "\ud800",
    "\udfff",
    "\n\t",
    "()[]{}<>",
    "=:/.-_",
    "0.8.5",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
]

# Any code point (lone surrogates and control characters included), and pastes built from pieces that
# exercise the tokenizer, the signal extraction and the evidence scores.
anything = st.text(st.characters(exclude_categories=()), max_size=300)
pastes = st.lists(st.one_of(st.sampled_from(FRAGMENTS), anything), max_size=8).map(" ".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(anything, pastes))
@example("RUNTIMEError:_PATH/CU000000000M\ud800")  # an error line quoted back as "you have ..." once kept the surrogate
def test_any_text_is_answered_or_rejected_as_input(corpus_assistant, text: str) -> None:
    try:
        answer = corpus_assistant.ask(text)
    except InputError as exc:
        assert "question" in str(exc)
        return
    assert isinstance(answer, Answer) and answer.body
    answer.body.encode("utf-8")  # whatever came in, what goes out can be sent


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pastes)
def test_streaming_ends_with_an_answer_or_rejects_as_input(corpus_assistant, text: str) -> None:
    try:
        items = list(corpus_assistant.stream(text))
    except InputError:
        return
    assert isinstance(items[-1], Answer)

