"""Whose flag is it: Docker's before the image, vLLM's after it; and vLLM's own spelling of a flag."""

from __future__ import annotations

import pytest

from assistant.text.commands import canonical_flag, other_program_flags


@pytest.mark.parametrize(
    ("text", "foreign"),
    [
        (
            (
                "docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
                "  --env HF_TOKEN=$HF_TOKEN -p 8000:8000 --ipc=host vllm/vllm-openai:latest --model m --max-model-len 8k"
            ),
            {"--runtime", "--gpus", "-v", "--env", "-p", "--ipc"},
        ),
        ("podman run --shm-size 16g -v hf:/root/.cache localhost:5000/vllm --tensor-parallel-size 2", {"--shm-size", "-v"}),
        ("docker run --rm --name vllm/dev rocm/vllm:latest --swap-space 4", {"--rm", "--name"}),  # a name is not the image
        ("vllm serve Qwen/Qwen3-8B --gpus 2", set()),  # no container runner: every flag is the user's vLLM command's
        ("docker run --gpus all --ipc=host", {"--gpus", "--ipc"}),  # no image: nothing after it to be vLLM's
    ],
)
def test_flags_before_the_image_are_the_container_runners(text: str, foreign: set[str]) -> None:
    assert other_program_flags(text) == foreign


@pytest.mark.parametrize(
    ("text", "foreign"),
    [
        # the user's own script, next to the vLLM command they compare it with
        (
            "python web_demo.py --device cuda --dtype bf16\npython -m vllm.entrypoints.openai.api_server --model m",
            {"--device", "--dtype"},
        ),
        # another engine's launcher, after the env vars it sets; `--port` is given to vLLM too
        (
            "CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path x --tp 8 --port 1\n"
            "vllm serve x --port 2",
            {"--model-path", "--tp", "-m"},
        ),
        ("$ torchrun --nproc-per-node 2 train.py\n`pip install -U --pre vllm`", {"--nproc-per-node", "-U", "--pre"}),
        ("python3 -m vllm.entrypoints.openai.api_server --model m --swap-space 4", set()),  # vLLM's own module
        ("python vllm/benchmarks/serve.py --max-model-len 4096", set()),  # a script under vLLM's tree: its flags
        ("Ray workers never see --tensor-parallel-size 2", set()),  # a sentence, not `ray` run in a shell
        ("python bench.py --backend vllm --max-model-len 4096\nWhy does --max-model-len 4096 fail?", {"--backend"}),
    ],
)
def test_flags_on_a_line_that_runs_another_program_are_its_own(text: str, foreign: set[str]) -> None:
    assert other_program_flags(text) == foreign


def test_a_flag_given_to_both_is_not_foreign() -> None:
    assert other_program_flags("docker run --env A=1 img/x:1 --env B") == frozenset()


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("--max_model_len", "--max-model-len"),
        ("--max-model-len", "--max-model-len"),
        ("--no_enable_prefix_caching", "--no-enable-prefix-caching"),
        ("--compilation_config.cudagraph_capture_sizes", "--compilation-config.cudagraph_capture_sizes"),
        ("VLLM_USE_V1", "VLLM_USE_V1"),
    ],
)
def test_the_flag_as_vllms_parser_reads_it(name: str, canonical: str) -> None:
    assert canonical_flag(name) == canonical
