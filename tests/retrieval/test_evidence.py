"""The evidence bar a message must clear: a pasted report or log has its own."""

from assistant.retrieval.evidence import PASTE_CHARS, is_paste, min_confidence_for
from assistant.retrieval.query import analyze
from assistant.text.signals import salient_text
from assistant.text.software import names_vllm

LOG = "\n".join(f"INFO 07-14 09:58:{i:02d} [core.py:526] Waiting for init message from front-end." for i in range(12))


def test_a_question_is_held_to_the_question_bar_and_a_paste_to_its_own():
    question = "How do I get throughput out of all 8 GPUs with Llama-3.1-8B?"
    paste = f"{question}\n\n```\n{LOG}\n```"
    assert not is_paste(question) and is_paste(paste)
    assert min_confidence_for(question, 0.6, 0.7) == 0.6
    assert min_confidence_for(paste, 0.6, 0.7) == 0.7


def test_a_paste_is_what_the_embedded_summary_has_to_cut():
    text = "x " * PASTE_CHARS
    assert is_paste(text) and len(salient_text(text)) <= PASTE_CHARS
    assert not is_paste(("word " * 200)[: PASTE_CHARS - 1] + "\n\n   ")  # surrounding whitespace does not count


def test_a_message_with_no_sign_of_vllm_needs_at_least_the_unnamed_bar():
    question = "How do I pick which GPU to run on?"
    assert names_vllm(question) is False
    assert min_confidence_for(question, 0.6, 0.7, 0.8, unnamed=True) == 0.8
    assert min_confidence_for(question, 0.6, 0.7, 0.8, unnamed=False) == 0.6
    for named in (
        "How do I pick which GPU vLLM runs on?",
        "怎么指定使用vllm运行的GPU",  # next to Chinese characters
        "File \"/usr/lib/python3.12/site-packages/vllm/engine/llm_engine.py\", line 3",
        "docker run vllm/vllm-openai:latest --model m fails",
        "VLLM_USE_V1=0 makes no difference",
    ):
        assert names_vllm(named), named
        assert analyze(named).vllm_unnamed is False, named
    assert analyze(question).vllm_unnamed is True
    assert min_confidence_for(question, 0.6, 0.7, 0.5, unnamed=True) == 0.6  # never lowers a bar
    assert min_confidence_for(question, 0.6, 0.7, unnamed=True) == 0.6  # off without an unnamed bar
