"""The curated entries answer through the real index and embedding model, with what the entry knows.

A user who names their release is told whether it has the problem; one who does not is asked. These are the
entries' answers end to end: retrieval (Chroma + BM25, the real embedding model), applicability, the
extractive answer.
"""

from __future__ import annotations


def test_a_renamed_flag_is_answered_with_the_replacement_and_the_users_release(corpus_assistant):
    q = "vllm 0.16.0: vllm serve BAAI/bge-m3 --task embed fails: unrecognized arguments: --task embed"
    answer = corpus_assistant.ask(q)
    assert not answer.abstained
    assert answer.citations[0].id == "task-flag-removed-use-runner-convert"
    assert "--runner pooling" in answer.lead
    assert "this began in vLLM 0.13.0; you run 0.16.0, so it applies to your release." in answer.lead
    assert "`--task` was removed in 0.13.0 (use `--runner`)" in answer.lead


def test_a_release_before_the_change_is_not_told_the_fix(corpus_assistant):
    q = "vllm 0.12.0: vllm serve BAAI/bge-m3 --task embed fails: unrecognized arguments: --task embed"
    answer = corpus_assistant.ask(q)
    assert answer.abstained and "--runner pooling" not in answer.body
    assert "began in vLLM 0.13.0 [1]; you run 0.12.0, which predates it" in answer.body


def test_an_affected_release_in_chinese(corpus_assistant):
    q = "升级到 vllm 0.6.4 之后，同一张卡上跑第二个模型报错 ValueError: No available memory for the cache blocks，0.6.3 没问题"
    answer = corpus_assistant.ask(q)
    assert answer.citations[0].id == "gpu-memory-utilization-global-limit-0-6-4"
    assert "您使用的是 0.6.4，属于受影响版本（==0.6.4.*）" in answer.lead
    assert "10511" in answer.lead


def test_a_platform_specific_entry_is_found_from_its_symptoms(corpus_assistant):
    answer = corpus_assistant.ask(
        "Qwen3-0.6B with max_model_len 40960 fails: 4.38 GiB KV cache is needed, which is larger than the available "
        "KV cache memory (4.00 GiB), and VLLM_CPU_KVCACHE_SPACE is not set"
    )
    cited = [c.id for c in answer.citations]
    assert "cpu-backend-kv-cache-space-too-small" in cited[:2], cited


def test_an_old_release_is_told_to_upgrade_to_the_release_with_support(corpus_assistant):
    answer = corpus_assistant.ask("Can I run Qwen3-32B on vllm 0.6.3? Loading it fails: the architecture is not supported")
    assert answer.citations[0].id == "qwen3-needs-vllm-0-8-4"
    assert "you run 0.6.3; fixed in 0.8.4: upgrade to 0.8.4 or later." in answer.lead
