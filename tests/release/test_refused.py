"""The names a pasted error refuses: only the refused one, never the list of accepted names after it."""

import pytest

from assistant.release.refused import refused_names


@pytest.mark.parametrize(
    "text, refused",
    [
        (
            "ValueError: Unknown quantization method: gptq. Must be one of ['awq', 'squeezellm'].",
            [("quantization", "gptq")],
        ),
        (
            "vllm: error: argument --quantization/-q: invalid choice: 'fp8' (choose from 'awq', 'gptq')",
            [("quantization", "fp8")],
        ),
        (
            "vllm: error: argument --tool-call-parser: invalid choice: 'llama3_json' (choose from 'hermes', 'mistral')",
            [("tool_parser", "llama3_json")],
        ),
        ("KeyError: 'invalid tool call parser: xlam (chose from { hermes,mistral })'", [("tool_parser", "xlam")]),
        (
            "vllm serve: error: argument --reasoning-parser: invalid choice: 'qwen3' (choose from 'deepseek_r1')",
            [("reasoning_parser", "qwen3")],
        ),
        (
            "ValueError: Model architectures ['Qwen3ForCausalLM', 'Qwen3MoeForCausalLM'] are not supported for now. "
            "Supported architectures: ['LlamaForCausalLM']",
            [("architecture", "Qwen3ForCausalLM"), ("architecture", "Qwen3MoeForCausalLM")],
        ),
        (
            "vllm: error: argument --tokenizer-mode: invalid choice: 'mistral' (choose from 'auto', 'slow')",
            [("flag_choice", "--tokenizer-mode=mistral")],
        ),
        # a model named in another complaint, and a name only listed as accepted, are not refused
        ("ValueError: Qwen2ForCausalLM does not support BitsAndBytes quantization yet.", []),
        ("Supported architectures: ['LlamaForCausalLM'] and the quantization methods awq, gptq", []),
        ("vllm serve: error: unrecognized arguments: --language-model-only", []),
    ],
)
def test_only_the_name_an_error_refuses_is_read(text, refused):
    assert list(refused_names(text)) == refused
