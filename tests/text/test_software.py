"""Which software a message runs: command lines, traceback frames and imports, not the names it mentions."""

import pytest

from assistant.text.setup import conversation_setup, extract_setup
from assistant.text.software import code_without_vllm, driver, frame_packages, imported, programs, runs_vllm

TRAINER = """from trl import GRPOTrainer, GRPOConfig
args = GRPOConfig(use_vllm=True, vllm_mode="colocate")
Traceback (most recent call last):
  File "/opt/ml/code/train.py", line 12, in main
    trainer = GRPOTrainer(model, args=args)
  File "/opt/conda/lib/python3.11/site-packages/trl/trainer/grpo_trainer.py", line 657, in __init__
    self.llm = LLM(
  File "/opt/conda/lib/python3.11/site-packages/vllm/entrypoints/llm.py", line 243, in __init__
    self.llm_engine = LLMEngine.from_engine_args(
ValueError: max_num_batched_tokens (2048) is smaller than max_model_len (8192)"""

SERVE = """Traceback (most recent call last):
  File "/usr/local/bin/vllm", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/cli/main.py", line 54, in main
    args.dispatch_function(args)
  File "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py", line 300, in _lazy_init
    raise RuntimeError
RuntimeError: CUDA error: no kernel image is available for execution on the device"""

RAY = """  File "/usr/lib/python3/dist-packages/ray/_private/worker.py", line 900, in main_loop
  File "/usr/lib/python3/dist-packages/vllm/v1/executor/ray_utils.py", line 120, in execute_model
RuntimeError: NCCL error: unhandled system error"""


def test_the_packages_of_a_tracebacks_installed_frames_in_order():
    assert frame_packages(TRAINER) == ["trl", "vllm"]
    assert frame_packages(SERVE) == ["vllm", "torch"]  # /usr/local/bin/vllm is a script, not an installed package
    assert frame_packages("  /usr/lib/python3/dist-packages/tensorrt_llm/llmapi/llm.py(583): _check_arguments") == [
        "tensorrt_llm"
    ]


def test_command_lines_start_programs_and_prose_does_not():
    text = (
        "python3 -m sglang.launch_server --model-path /m --port 30003\n"
        "llama-server Qwen3-14B-Q5_K_M.gguf\n"
        "CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B \\\n"
        "sglang launch_server fails, and vllm serve works on the same box\n"
        "docker run --gpus all ghcr.io/huggingface/text-generation-inference:2.4 --model-id x"
    )
    assert programs(text) == ["sglang.launch_server", "llama-server", "vllm"]


def test_what_runs_vllm():
    assert runs_vllm(SERVE) and runs_vllm("import vllm\nllm = vllm.LLM('x')") and runs_vllm("vllm serve x --port 1")
    assert not runs_vllm("SGLang and vLLM support this by chat_template_kwargs")
    assert imported(TRAINER) == ["trl"]


@pytest.mark.parametrize(
    "text, expected",
    [
        (TRAINER, "trl"),  # the trainer builds vLLM's engine with the arguments it chooses
        (
            (
                "from llamafactory.chat import ChatModel\nimport os\n"
                "chat_model = ChatModel(dict(model_name_or_path='x', infer_backend='vllm'))"
            ),
            "llamafactory",
        ),
        (SERVE, None),  # vLLM's own CLI
        (RAY, None),  # Ray runs vLLM's workers: a dependency of vLLM, not a framework driving it
        ("import os\nfrom vllm import LLM\nllm = LLM('x', enforce_eager=True)", None),  # the user's own script
        ("import json, requests\nrequests.post(url, json={'model': 'vllm'})", None),  # a client of the server
    ],
)
def test_a_framework_that_runs_vllm_for_the_user(text, expected):
    assert driver(text) == expected
    assert extract_setup(text).driver == expected


@pytest.mark.parametrize(
    "text, other",
    [
        (
            (
                "[Feature] Is there a function called --enable-auto-tool-choice (vllm)?\n\n"
                "python3 -m sglang.launch_server --model-path /m --tool-call-parser deepseekv3"
            ),
            "SGLang",
        ),
        (
            "llama-server Qwen3-14B-Q5_K_M.gguf\n\nenable_thinking has no effect. SGLang and VLLM support it.",
            "llama.cpp",
        ),
        ("sglang launch_server fails, and vllm serve works on the same box", None),  # runs vLLM too
        ("vllm serve x --port 8000 is slower than what TGI gave us", None),
        ("we moved from llama-server to vLLM; what is the equivalent of --mmproj?", None),  # prose, nothing runs
    ],
)
def test_a_message_that_names_vllm_but_runs_another_engine(text, other):
    assert extract_setup(text).other_software == other
    assert conversation_setup(text).other_software == other


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "P2P copies are wrong on two 4090s:\n```python\nimport torch\nv = torch.randn(5, device='cuda:0')\n```",
            "torch",
        ),
        ("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '1'", None),  # the standard library says nothing
        ("import torch\nfrom vllm import LLM\nllm = LLM('x')", None),  # vLLM's own code
        ("import torch\nprint(torch.cuda.is_available())  # before vllm serve", None),  # vLLM named
        ("tensor parallel start-up hangs at NCCL INFO on two 4090s", None),  # no code at all
    ],
)
def test_code_that_runs_something_else_in_a_message_that_never_names_vllm(text, expected):
    assert code_without_vllm(text) == expected
    assert conversation_setup(text).runs_other == expected
