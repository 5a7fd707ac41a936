"""Retrieval and answers on real indexes built with the real model."""

import pytest

from assistant.service import Assistant
from tests.conftest import SEED_PAGE, make_settings


def test_deepgemm_error_line_gets_the_fix_cited(corpus_assistant):
    answer = corpus_assistant.ask("RuntimeError: not home_path.empty()")
    assert not answer.abstained
    assert answer.hits[0].chunk.id == "deepgemm-fp8-home-path-empty"
    assert "VLLM_USE_DEEP_GEMM=0" in answer.body
    assert answer.citations[0].id == "deepgemm-fp8-home-path-empty"
    assert "[1]" in answer.body and answer.citations[0].source == "corpus/entries/deepgemm-fp8-home-path-empty.yaml"


def test_chinese_question_is_answered_in_chinese(corpus_assistant):
    answer = corpus_assistant.ask("启动 FP8 模型时报错 RuntimeError: not home_path.empty()，怎么解决？")
    assert answer.language == "zh"
    assert answer.hits[0].chunk.id == "deepgemm-fp8-home-path-empty"
    assert "解决方法" in answer.body and "VLLM_USE_DEEP_GEMM=0" in answer.body


@pytest.mark.parametrize(
    "question",
    [
        "How do I make a sourdough bread starter?",
        "npm ERR! code ERESOLVE unable to resolve dependency tree",
        "法国的首都是哪里？",
    ],
)
def test_off_topic_questions_abstain_with_a_next_step(corpus_assistant, question):
    answer = corpus_assistant.ask(question)
    assert answer.abstained
    assert answer.citations == ()
    assert "vllm collect-env" in answer.body


def test_graph_replay_error_is_answered_from_the_troubleshooting_docs(docs_assistant):
    report = """Traceback (most recent call last):
  File "/opt/venv/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 1650, in execute_model
    self.graph.replay()
RuntimeError: CUDA error: an illegal instruction was encountered"""
    answer = docs_assistant.ask("vLLM crashes with an error near self.graph.replay():\n" + report)
    assert not answer.abstained
    assert answer.citations[0].source == "docs/usage/troubleshooting.md#error-near-selfgraphreplay"
    assert "--enforce-eager" in answer.body


OOM_ENTRY = "cuda-out-of-memory-model-does-not-fit"


@pytest.mark.parametrize(
    "question",
    [
        (
            "vllm serve Mistral-Small-24B on a single 24GB card dies while loading:\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 160.00 MiB. "
            "GPU 0 has a total capacity of 23.64 GiB of which 94.06 MiB is free.\nWhich options bring the memory down?"
        ),
        "用 vllm 起 32B 模型，单卡 48G，启动时直接 CUDA out of memory，有哪些参数能降低显存占用？",
    ],
)
def test_a_gpu_out_of_memory_at_start_up_gets_the_levers_that_lower_memory(docs_assistant, question):
    answer = docs_assistant.ask(question)
    assert not answer.abstained, answer.body
    assert answer.citations[0].id == OOM_ENTRY, answer.body
    for lever in ("--tensor-parallel-size", "--max-model-len", "--enforce-eager"):
        assert lever in answer.body, answer.body


def test_a_host_ram_oom_kill_is_not_answered_with_the_gpu_memory_levers(docs_assistant):
    answer = docs_assistant.ask(
        "Our pod gets OOMKilled by Kubernetes: host RAM of the vllm serve process grows to the 32Gi limit while "
        "GPU memory stays flat. What uses CPU memory?"
    )
    assert not answer.citations or answer.citations[0].id != OOM_ENTRY, answer.body


def test_english_question_finds_a_chinese_only_page(tmp_path, embedder):
    a = Assistant(make_settings(tmp_path), embedder=embedder)
    a.ingest([SEED_PAGE])
    _, hits = a.retrieve("vLLM crashes with RuntimeError: not home_path.empty() when DeepGEMM is used")
    assert hits[0].chunk.source.endswith("#question-2")
    _, hits = a.retrieve("EngineDeadError after a request with an invalid structured_outputs grammar")
    assert hits[0].chunk.source.endswith("#question-3")


def test_chinese_question_finds_english_docs(docs_assistant):
    _, hits = docs_assistant.retrieve("多机部署时 NCCL 报错 ncclCommInitRank unhandled system error，怎么排查？")
    assert hits[0].chunk.source.startswith("docs/usage/troubleshooting.md#nccl-error")


def test_follow_up_uses_the_conversation(corpus_assistant):
    from assistant.models import Turn

    history = [Turn("user", "RuntimeError: not home_path.empty() on my RTX 5090"), Turn("assistant", "...")]
    answer = corpus_assistant.ask("is there another way than disabling it?", history=history)
    assert answer.hits[0].chunk.id == "deepgemm-fp8-home-path-empty"
    assert "CUDA" in answer.body


def test_bad_questions_are_input_errors(corpus_assistant):
    from assistant.errors import InputError

    for bad in ("", "   ", None, 42, "x" * 50_000):
        with pytest.raises(InputError):
            corpus_assistant.ask(bad)
