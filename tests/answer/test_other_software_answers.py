"""A message about another product that names vLLM on the way is not answered from vLLM's sources, end to end.

Through the real index of the curated corpus and the real embedding model: the report's template, its title, or
its command line tells which product it is about, while the same problem pasted from vLLM's own command is answered.
"""

from __future__ import annotations

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.97 GiB. GPU 0 has a total capacity of 79.25 GiB"


def test_a_report_on_another_products_template_is_declined(corpus_assistant):
    report = (
        "### Open WebUI Version\n\nv0.6.2\n\n### Actual Behavior\n\nThe model list stays empty; the vllm server "
        'logs "POST /v1/chat/completions HTTP/1.1" 404 Not Found: The model `qwen` does not exist.'
    )
    answer = corpus_assistant.ask(report)
    assert answer.abstained and answer.declined and not answer.citations
    assert "problem with Open WebUI, not with vLLM" in answer.body
    plain = corpus_assistant.ask(report.replace("### Open WebUI Version\n\nv0.6.2\n\n", ""))
    assert not plain.declined  # the same symptom, reported without the other product's template


def test_a_product_that_picks_vllm_on_its_command_line_is_an_abstention_naming_it(corpus_assistant):
    paste = f"llamafactory-cli api --model_name_or_path /models/qwen --infer_backend vllm\n\n{OOM}"
    answer = corpus_assistant.ask(paste)
    assert answer.abstained and not answer.declined and not answer.citations
    assert answer.body.startswith("You run vLLM through LLaMA-Factory")
    own = corpus_assistant.ask(f"vllm serve /models/qwen --gpu-memory-utilization 0.9\n\n{OOM}")
    assert not own.abstained and own.citations  # vLLM's own command: its sources answer


def test_a_rust_program_in_a_message_that_never_names_vllm_is_declined(corpus_assistant):
    text = "```\ncargo run --bin gguf-tokenizer -- --model /m/phi-3-mini-q4.gguf\n```\nError: failed to initialize from GGUF"
    answer = corpus_assistant.ask(text)
    assert answer.declined and answer.body.startswith("The code you paste runs cargo, not vLLM")


CPU_FRAMES = """```text
  File "/usr/local/lib/python3.10/dist-packages/vllm/platforms/cuda.py", line 88, in device_id_to_physical_device_id
    raise RuntimeError("CUDA_VISIBLE_DEVICES is set to empty string,"
RuntimeError: CUDA_VISIBLE_DEVICES is set to empty string, which means GPU support is disabled.
```"""


def test_vllms_frames_under_a_framework_the_user_ran_is_an_abstention_naming_it(corpus_assistant):
    said = f'How do I run inference on CPU? I start it with CUDA_VISIBLE_DEVICES="" llamafactory-cli api my_vllm.yaml\n{CPU_FRAMES}'
    answer = corpus_assistant.ask(said)
    assert answer.abstained and not answer.declined  # a known problem it rules out may still be named, never the fix
    assert "You run vLLM through LLaMA-Factory" in answer.body
    own = corpus_assistant.ask(
        f'How do I run inference on CPU? CUDA_VISIBLE_DEVICES="" vllm serve /models/qwen\n{CPU_FRAMES}'
    )
    assert not own.body.startswith("You run vLLM through")  # vLLM's own command: read as vLLM's problem


def test_a_rust_engines_log_is_declined_although_the_message_names_vllm(corpus_assistant):
    log = (
        "2025-07-22T15:25:53.936712Z  INFO mistralrs_core::utils::normal: Detected minimum CUDA compute capability 8.6\n"
        "2025-07-22T15:27:23.479467Z  INFO mistralrs_core::paged_attention: PagedAttention KV cache type is F8E4M3\n"
        "Error: internal error 'F8E4M3 not supported in CUDA backend'"
    )
    text = f"FP8 KV cache on 3090\n\nI can't get FP8 KV cache to work. This works fine on vllm.\n\n```\n{log}\n```"
    answer = corpus_assistant.ask(text)
    assert answer.declined and "problem with mistral.rs, not with vLLM" in answer.body
    plain = corpus_assistant.ask(text.replace("mistralrs_core::", "engine::"))
    assert not plain.declined  # the same words without the crate's log targets: left to the evidence


def test_a_question_to_another_engine_that_names_vllm_only_as_its_yardstick_is_declined(corpus_assistant):
    question = (
        "Can LMDeploy share one A100 between two models? It takes all the memory by default; is there a parameter "
        "like vLLM's gpu-memory-utilization to limit it?"
    )
    answer = corpus_assistant.ask(question)
    assert answer.declined and "LMDeploy" in answer.body and not answer.citations
    own = corpus_assistant.ask(question.replace("like vLLM's", "in vLLM,").replace("LMDeploy", "vLLM"))
    assert not own.declined  # the same question asked of vLLM itself
