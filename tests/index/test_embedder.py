"""The local MiniLM embedder: its own batching loop gives sentence-transformers' vectors, and bfloat16 stays within
cosine 0.9999 of them, so an index stored in one precision is searched with the other."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.index.embedder import SentenceTransformerEmbedder, embedding_bf16, make_embedder, native_bf16
from assistant.settings import DEFAULT_EMBEDDING_MODEL, Settings

SHORT = "CUDA out of memory when loading Qwen2.5-7B"
# A paste longer than the model's 256 word pieces: both paths must cut it at the same place.
PASTE = (
    "ERROR 11-30 10:01:02 [core.py:512] EngineCore failed to start.\n"
    + '  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 88, in __init__\n' * 12
    + "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored "
    "in KV cache (16384). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing "
    "the engine.\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --gpu-memory-utilization 0.85"
)
TEXTS = [SHORT, PASTE, "tool calling 400 error", "张量并行启动时卡在 NCCL INFO", "x"]


@pytest.fixture(scope="module")
def pair() -> tuple[SentenceTransformerEmbedder, SentenceTransformerEmbedder]:
    """A float32 and a bfloat16 embedder sharing one loaded model."""
    fp32 = SentenceTransformerEmbedder(DEFAULT_EMBEDDING_MODEL, bf16=False)
    bf16 = SentenceTransformerEmbedder(DEFAULT_EMBEDDING_MODEL, bf16=True)
    bf16._model = fp32._load()
    return fp32, bf16


def test_the_batching_loop_gives_sentence_transformers_vectors_in_input_order(pair):
    fp32, _ = pair
    model = fp32._load()
    assert len(model.tokenizer(PASTE)["input_ids"]) > model.max_seq_length  # the paste is truncated
    expected = model.encode(TEXTS, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
    got = fp32.embed(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 384)
    assert np.allclose(got, expected, atol=1e-5)
    # more than one batch of 32, of mixed lengths: each row still belongs to its own text
    many = [f"{t} {i}" for i in range(20) for t in (SHORT, PASTE)]
    assert np.allclose(fp32.embed(many), model.encode(many, normalize_embeddings=True), atol=1e-5)
    assert fp32.embed([]).shape == (0, 384)


def test_bfloat16_vectors_stay_within_cosine_0_9999_of_float32(pair):
    fp32, bf16 = pair
    reference, fast = fp32.embed(TEXTS), bf16.embed(TEXTS)
    assert fast.dtype == np.float32
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)  # normalised in float32
    cosines = (reference * fast).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    assert not np.array_equal(reference, fast)  # it did run in bfloat16
    # one text alone (a question) and the same text in a batch (ingest) agree as closely
    alone = np.vstack([bf16.embed([t]) for t in TEXTS])
    assert (alone * fast).sum(axis=1).min() > 0.9999


def test_bfloat16_keeps_the_ranking_of_close_candidates(pair):
    """The question's vector orders sections as float32 does, even ones a few hundredths apart."""
    fp32, bf16 = pair
    sections = [
        "Tool calling: start the server with --enable-auto-tool-choice and --tool-call-parser to use tool_choice auto.",
        "Function calling with tool_choice named or required works without extra flags.",
        "Claude Code integration: point the coding agent at the vLLM server's OpenAI-compatible endpoint.",
        "Structured outputs: guided decoding with JSON schema, regex or grammar.",
        "Reasoning outputs: --reasoning-parser extracts the reasoning content.",
    ]
    question = '400 "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    docs = fp32.embed(sections)
    ranks = [np.argsort(-(docs @ e.embed([question])[0])).tolist() for e in (fp32, bf16)]
    assert ranks[0] == ranks[1]


def test_the_setting_decides_the_precision():
    assert embedding_bf16(Settings(embedding_bf16="on")) is True
    assert embedding_bf16(Settings(embedding_bf16="off")) is False
    assert embedding_bf16(Settings(embedding_bf16="auto")) is native_bf16()
    assert make_embedder(Settings(embedding_bf16="off")).bf16 is False
    assert SentenceTransformerEmbedder(DEFAULT_EMBEDDING_MODEL).bf16 is native_bf16()


def test_a_build_runs_on_every_core_and_gives_the_served_thread_count_back():
    """`every_core` (an index built before anything is answered) raises PyTorch's and BLAS's threads to the usable
    cores and restores the caller's counts afterwards, after a failure too."""
    import torch
    from threadpoolctl import threadpool_info

    from assistant.index.embedder import every_core, usable_cores

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with every_core() as n:
            assert n == usable_cores() == torch.get_num_threads()
            assert all(p["num_threads"] == n for p in threadpool_info() if p["user_api"] == "blas")
        assert torch.get_num_threads() == 1
        with pytest.raises(RuntimeError), every_core():
            raise RuntimeError("the build failed")
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
