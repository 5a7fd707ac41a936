"""`Assistant.prepare` reads a question once; `Prepared.compose` gives the answer `ask` gives, at any bar.

Real Chroma, the real embedding models, the curated corpus and the shared docs copy (`docs_assistant`).
"""

from __future__ import annotations

import pytest

from assistant.answer.render import answer_json

QUESTIONS = [
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`",
    "A100 上 AWQ 模型 batch size 不同输出不一样",
    "How do I bake sourdough bread?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_composing_at_the_settings_bar_is_the_answer_ask_gives(docs_assistant, question):
    prepared = docs_assistant.prepare(question)
    assert answer_json(prepared.compose()) == answer_json(docs_assistant.ask(question))


def test_one_reading_composes_at_any_bar(docs_assistant):
    prepared = docs_assistant.prepare(QUESTIONS[0])
    assert not prepared.compose(0.0).abstained
    # a known problem whose message the question quotes answers from half the bar; nothing reaches half of 2.01
    assert prepared.compose(2.01).abstained
    assert answer_json(prepared.compose(prepared.bar)) == answer_json(prepared.compose())


def test_the_release_given_beside_the_question_enters_the_setup(docs_assistant):
    assert docs_assistant.prepare(QUESTIONS[0]).setup.vllm_version is None
    assert docs_assistant.prepare(QUESTIONS[0], vllm_version="0.8.5").setup.vllm_version == "0.8.5"
    # a release the question itself names wins over the one given beside it
    named = docs_assistant.prepare("vllm 0.7.3: " + QUESTIONS[0], vllm_version="0.8.5")
    assert named.setup.vllm_version == "0.7.3"


def test_an_llm_is_never_given_a_known_problem_the_setup_rules_out(docs_assistant):
    question = "VLLM_BATCH_INVARIANT=1 but my AWQ model is still not batch-invariant on an H100"  # the entry: SM80-89
    prepared = docs_assistant.prepare(question, k=20)
    entry = "awq-batch-invariance-sm80"
    assert entry in _entries(prepared.hits)
    assert entry not in _entries(prepared.usable())
    dropped = [h for h in prepared.hits if h not in prepared.usable()]
    assert all(h.chunk.kind == "entry" for h in dropped)  # a docs section states no conditions to rule it out


def _entries(hits) -> set[str]:
    return {h.chunk.entry.id for h in hits if h.chunk.entry is not None}


def test_a_message_with_no_sign_of_vllm_is_held_to_the_unnamed_bar_unless_the_conversation_named_it(docs_assistant):
    from assistant.models import Turn

    s = docs_assistant.settings
    question = "How do I pin the model to one GPU?"
    assert docs_assistant.prepare(question).bar == max(s.min_confidence, s.min_confidence_unnamed)
    assert docs_assistant.prepare(question.replace("the model", "vLLM")).bar == s.min_confidence
    history = [Turn("user", "We serve Qwen2.5-7B with vLLM 0.9.1."), Turn("assistant", "…")]
    assert docs_assistant.prepare(question, history).bar == s.min_confidence
