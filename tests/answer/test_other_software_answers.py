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
