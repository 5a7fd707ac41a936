"""Which software a message runs: command lines, traceback frames and imports, not the names it mentions."""

import pytest

from assistant.text.setup import conversation_setup, extract_setup
from assistant.text.software import (
    code_without_vllm,
    driver,
    frame_packages,
    imported,
    log_crates,
    names_vllm,
    programs,
    programs_choosing_vllm,
    runs_vllm,
    template_products,
    title_subject,
    toolchain_without_vllm,
    versioned_products,
)

FIRE = """Traceback (most recent call last):
  File "/work/infer.py", line 52, in <module>
    fire.Fire(main)
  File "/usr/lib/python3.11/site-packages/fire/core.py", line 135, in Fire
    component_trace = _Fire(component, args, parsed_flag_args, context, name)
  File "/work/infer.py", line 40, in main
    llm = LLM(**engine_args)
  File "/usr/lib/python3.11/site-packages/vllm/entrypoints/llm.py", line 243, in __init__
    self.llm_engine = LLMEngine.from_engine_args(
ValueError: `limit_mm_per_prompt` is only supported for multimodal models."""
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
        (FIRE, None),  # python-fire only calls the user's own function, which builds vLLM's engine itself
        (FIRE.replace("/work/infer.py\", line 40", "/usr/lib/python3.11/site-packages/trl/infer.py\", line 40"), "trl"),
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


def test_subcommands_pins_and_keys():
    text = (
        "HF_TOKEN=x llamafactory-cli api --model_name_or_path /m --infer_backend vllm\n"
        "open-webui serve\n"
        "cargo run --release --bin tokenize -- --model x.gguf\n"
        "vllm==0.10.0\n"  # a pin in an environment list, not a command
        "applications:\n"  # a YAML key
        "ollama works fine here\n"  # prose: no option follows, and the name is an English-like word
        "lmdeploy serve api_server /m --backend turbomind"
    )
    assert programs(text) == ["llamafactory-cli", "open-webui", "cargo", "lmdeploy"]
    assert not runs_vllm("Versions:\nvllm==0.10.0\nray==2.48.0")
    assert programs_choosing_vllm(text) == ["llamafactory-cli"]  # `--backend turbomind` picks another engine


def test_what_a_report_is_filed_about():
    report = "### Bug\n\n### Open WebUI Version\n\nv0.6.1\n\nvLLM Version : 0.9.0\nPyTorch version: 2.7.0\n"
    assert versioned_products(report) == ["Open WebUI", "vLLM", "PyTorch"]
    assert title_subject("[Serve] [Bug]: KServe drops my headers\n\nbody") == "KServe drops my headers"
    assert title_subject("issue: v1//models 404") == "v1//models 404"


@pytest.mark.parametrize(
    "text, expected",
    [
        (  # another project's issue template: the product it asks the version of is the one it was filed to
            "wsl2 perf degrade\n\n### What happened\n\npinned memory fails\n\n### How did you install FreeToken\n\n"
            "pip\n\n### FreeToken version\n\nv0.2.0-beta.17\n\n### OS\n\nWindows 11\n\n### GPU and driver\n\nRTX 5090",
            "FreeToken",
        ),
        # the environment questions of a template name no product
        ("### CUDA Version\n\n12.4\n\n### Python version\n\n3.11\n\n### OS version\n\nUbuntu 22.04\n\nslow", None),
        ("### Transformers version\n\n4.51\n\n### GPU driver version\n\n570\n\nthe model loads slowly", None),
        ("FreeToken version: 0.2\n\npinned memory fails", None),  # a line of an environment list is not a heading
    ],
)
def test_a_message_that_never_names_vllm_filed_on_another_products_template(text, expected):
    assert template_products(text)[:1] == ([expected] if expected else [])
    assert extract_setup(text).other_software == expected


def test_a_message_that_names_vllm_is_not_filed_about_a_template_product_alone():
    text = "### FreeToken version\n\nv0.2\n\nthe same prompt works on vllm serve but not here"
    assert extract_setup(text).other_software is None  # it names vLLM: left to the usual evidence


@pytest.mark.parametrize("name", ["kobold.cpp", "KoboldCpp", "koboldcpp"])
def test_koboldcpp_by_the_names_its_users_write(name):
    text = f"On llama.cpp you can pass --reasoning-budget 0. Is there a way to disable thinking in {name}?"
    assert extract_setup(text).other_software == "koboldcpp"


@pytest.mark.parametrize(
    "text, other",
    [
        ("SGLANG报错，模型名称已经存在，版本问题？", "SGLang"),  # a CJK character is no ASCII boundary
        ("请问用ollama部署qwen3时怎么关闭思考？", "Ollama"),
        ("我部署的gpustack版本为v0.6.2，Tesla V100 上能否传 --dtype=half？", "GPUStack"),
        ("ilab serve cannot start: ValueError: Unable to configure handler", "InstructLab"),
        ("the sglangx fork fails", None),  # another name that merely begins the same
    ],
)
def test_other_products_next_to_chinese_text_and_serving_platforms(text, other):
    assert extract_setup(text).other_software == other


def test_a_command_of_another_language_in_a_message_that_never_names_vllm():
    assert toolchain_without_vllm("```\ncargo run --bin gguf-tokenizer -- --model m.gguf\n```\nError: x") == "cargo"
    assert toolchain_without_vllm("npm install\ncargo run --bin x -- --model m\nthen vllm serve m") is None
    assert toolchain_without_vllm("python -m pip install -e . --no-build-isolation") is None
    assert conversation_setup("npx create-app my-ui --template x\nthe page is blank").runs_other == "npx"


@pytest.mark.parametrize(
    "text, other",
    [
        (  # another product's issue template; vLLM's log only shows the request it received
            "### Open WebUI Version\n\nv0.6.1\n\nThe models list is empty; vllm logs GET /v1//models 404",
            "Open WebUI",
        ),
        (  # the title opens with the other product, and names vLLM only inside its env var
            "[Serve] Ray Serve LLM does not pass VLLM_ALLOW_LONG_MAX_MODEL_LEN\n\nvllm==0.10.0\nray==2.48.0",
            "Ray Serve",
        ),
        (  # both products given a version: the report may be about vLLM's side
            "### Open WebUI Version\n\nv0.6.1\n\nvLLM Version: 0.9.0\n\nreasoning is not shown",
            None,
        ),
        (  # a title that names vLLM too: vLLM's change may be the answer
            "LiteLLM loses reasoning_content since vLLM 0.17.1\n\nLiteLLM version: 1.70",
            None,
        ),
        ("Does vLLM work behind Open WebUI?\n\nvllm serve m --port 8000", None),  # runs vLLM
    ],
)
def test_a_report_filed_about_another_product_that_names_vllm(text, other):
    assert extract_setup(text).other_software == other


def test_a_product_whose_command_line_picks_vllm_runs_it_for_the_user():
    text = (
        "CUDA_VISIBLE_DEVICES=2 llamafactory-cli api --model_name_or_path /m --infer_backend vllm\n"
        "it still runs on GPU 0"
    )
    setup = extract_setup(text)
    assert setup.driver == "LLaMA-Factory" and setup.other_software is None
    assert extract_setup("llamafactory-cli api --model_name_or_path /m --infer_backend huggingface").driver is None


def test_a_version_field_of_another_product_is_not_the_vllm_release():
    assert extract_setup("### Open WebUI Version\n\nv0.5.20\n\nmodels are missing").vllm_version is None
    assert extract_setup("### vLLM Version\n\nv0.8.5\n\nmodels are missing").vllm_version == "0.8.5"


def test_vllm_next_to_chinese_characters_is_named():
    text = "使用VLLM运行qwen的时候报错，日志来自 xinference.api.restful_api"
    setup = extract_setup(text)
    assert setup.uses_vllm is True and setup.other_software is None
    assert extract_setup("这个不是vllm的问题，我没用vllm跑").uses_vllm is False  # said absent, with no space either


CUDA_FRAMES = """```text
  File "/usr/local/lib/python3.10/dist-packages/vllm/platforms/cuda.py", line 88, in device_id_to_physical_device_id
    raise RuntimeError("CUDA_VISIBLE_DEVICES is set to empty string,"
RuntimeError: CUDA_VISIBLE_DEVICES is set to empty string, which means GPU support is disabled.
```"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # vLLM's frames under a framework the user says they ran (in prose, not a command line of its own)
        (
            f'I deploy with CUDA_VISIBLE_DEVICES="" llamafactory-cli api my_vllm.yaml to run on CPU\n{CUDA_FRAMES}',
            "LLaMA-Factory",
        ),
        (f"Xinference launches the model and fails:\n{CUDA_FRAMES}", "Xinference"),
        (f"vllm serve /m --device cpu\n{CUDA_FRAMES}\nthe same with LLaMA-Factory", None),  # vLLM's own command
        (f"This works in SGLang but vLLM fails:\n{CUDA_FRAMES}", None),  # an engine of its own never runs vLLM
        (f"switched from LLaMA-Factory, now:\n{CUDA_FRAMES}", None),  # a comparison
        (f"CUDA_VISIBLE_DEVICES is empty on purpose\n{CUDA_FRAMES}", None),  # no framework named
    ],
)
def test_vllms_frames_under_a_framework_the_user_ran(text, expected):
    assert extract_setup(text).driver == expected


def test_a_rust_programs_log_targets_name_its_crate():
    log = (
        "2025-07-22T15:25:53.936712Z  INFO mistralrs_core::utils::normal: Detected minimum CUDA compute capability 8.6\n"
        "2025-07-22T15:27:23.479467Z  INFO mistralrs_core::paged_attention: PagedAttention KV cache type is F8E4M3\n"
        "Error: internal error 'F8E4M3 not supported in CUDA backend'"
    )
    assert log_crates(log) == ["mistralrs_core", "mistralrs"]
    assert log_crates("INFO 07-22 15:25:53 [core.py:1] vllm::engine started") == []  # vLLM's own log format
    # the message names vLLM ("works fine on vllm"), but what runs is the Rust program
    setup = extract_setup(f"FP8 KV cache fails on my 3090. This works fine on vllm.\n```\n{log}\n```")
    assert setup.other_software == "mistral.rs"


@pytest.mark.parametrize(
    ("text", "other"),
    [
        # written for this test, in the shapes a question to another engine's tracker takes
        ("Can SGLang share one A100 between two models, with a memory fraction like vLLM's gpu-memory-utilization?",
         "SGLang"),
        ("请问lmdeploy能不能限制显存占用？比如vllm中的gpu-memory-utilization参数", "LMDeploy"),
        ("Is there a flag like in vllm to set the served model name for ollama?", "Ollama"),
    ],
)
def test_vllm_named_only_as_the_yardstick_of_another_products_question(text, other):
    setup = extract_setup(text)
    assert setup.other_software == other
    assert setup.uses_vllm is None  # vLLM is not what the message is about: it is only compared with


@pytest.mark.parametrize(
    "text",
    [
        "It looks like vLLM hangs after loading the weights",
        "I'd like vLLM to accept a list of API keys",
        "Throughput is lower than vLLM 0.6.3 gave me on the same GPU",  # vLLM's own releases compared: about vLLM
    ],
)
def test_vllm_named_as_the_subject_is_not_a_yardstick(text):
    assert names_vllm(text)
    assert extract_setup(text).uses_vllm is True
