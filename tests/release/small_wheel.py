"""A small vLLM-shaped wheel: a few .py files zipped the way the real wheel is, in two releases that differ."""

from __future__ import annotations

import zipfile
from pathlib import Path

ENVS = """
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    VLLM_HOST_IP: str = ""
    VLLM_ENGINE_READY_TIMEOUT_S: int = {ready_default}
{extra_typed}

environment_variables = {{
    # ================== Runtime Env Vars ==================
    # used in distributed environment to determine the ip address
    # of the current node, when the node has multiple network interfaces.
    "VLLM_HOST_IP": lambda: os.getenv("VLLM_HOST_IP", ""),
    # Seconds to wait for the engine to become ready.
    "VLLM_ENGINE_READY_TIMEOUT_S": lambda: int(os.getenv("VLLM_ENGINE_READY_TIMEOUT_S", "{ready_default}")),
    # Attention backend to use.
    "VLLM_ATTN_KIND": env_with_choices("VLLM_ATTN_KIND", "auto", ["auto", "flash", "triton"]),
{extra_env}
}}
"""

OLD_ONLY_ENV = """    # Timeout for each iteration in the engine.
    "VLLM_ENGINE_ITERATION_TIMEOUT_S": lambda: int(os.getenv("VLLM_ENGINE_ITERATION_TIMEOUT_S", "60")),"""

CACHE_CONFIG = '''
from dataclasses import field
from typing import Literal

from pydantic import Field

CacheDType = Literal["auto", "fp8"{e5m2}]


@config
class CacheConfig:
    """Configuration for the KV cache."""

    gpu_memory_utilization: float = Field(default={gmu}, gt=0, le=1)
    """The fraction of GPU memory to be used for the model executor, which can
    range from 0 to 1."""
    cache_dtype: CacheDType = "auto"
    """Data type for kv cache storage."""
    block_size: int = 16
    """Size of a contiguous cache block in number of tokens."""
'''

ARG_UTILS = """
from vllm.config.cache import CacheConfig


def get_kwargs(cls):
    return {{}}


class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        cache_kwargs = get_kwargs(CacheConfig)
        cache_group = parser.add_argument_group(title="CacheConfig")
        cache_group.add_argument("--gpu-memory-utilization", **cache_kwargs["gpu_memory_utilization"])
        cache_group.add_argument("--kv-cache-dtype", **cache_kwargs["cache_dtype"])
        cache_group.add_argument("--block-size", **cache_kwargs["block_size"])
        parser.add_argument(
            "--disable-log-stats",
            action="store_true",
            help="Disable logging statistics.",
        )
{extra_args}
        return parser
"""

NEW_ONLY_ARG = """        parser.add_argument(
            "--kv-offload-gb",
            type=float,
            default=0,
            help="Gigabytes of KV cache to offload to CPU memory.",
        )"""

CLI_ARGS = '''
@config
class BaseFrontendArgs:
    """Base arguments for the OpenAI-compatible frontend server."""

    chat_template: str | None = None
    """The file path to the chat template."""


@config
class FrontendArgs(BaseFrontendArgs):
    """Arguments for the OpenAI-compatible frontend server."""

    host: str | None = None
    """Host name."""
    port: int = 8000
    """Port number."""


def make_arg_parser(parser):
    parser.add_argument("--headless", action="store_true", default=False, help="Run in headless mode.")
    parser = FrontendArgs.add_cli_args(parser)
    parser = AsyncEngineArgs.add_cli_args(parser)
    return parser
'''

KV_PLANNING = """
import logging

logger = logging.getLogger(__name__)


def _check_enough_kv_cache_memory(available_memory, needed_memory, max_model_len):
    if available_memory <= 0:
        raise ValueError(
            "No available memory for the cache blocks. "
            "Try increasing `gpu_memory_utilization` when initializing the engine."
        )
    if needed_memory > available_memory:
        raise ValueError(
            f"To serve at least one request with the model's max seq len "
            f"({{max_model_len}}), ({{needed_memory / 2**30:.2f}} GiB KV cache is needed, which is "
            f"larger than the available KV cache memory ({{available_memory / 2**30:.2f}} GiB). "
            f"Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."
        )


class KVCacheManager:
    def allocate(self, num_blocks, free_blocks):
        if num_blocks > free_blocks:
            msg = "Cannot allocate %d blocks: only %d free" % (num_blocks, free_blocks)
            raise RuntimeError(msg)
        else:
            logger.warning("Allocating %d blocks of %d free; preemption may follow", num_blocks, free_blocks)
        try:
            import nixl  # noqa
        except ImportError:
            raise ImportError("{{}} requires the nixl package: pip install nixl".format("KV transfer"))
"""

# The same message raised in two places: the traceback's frames say which one.
SCHEDULER = """
class Scheduler:
    def schedule(self, request):
        if request.num_tokens > self.max_num_batched_tokens:
            raise ValueError(f"Request {{request.request_id}} exceeds the token budget of this step")

    def add_request(self, request):
        if not request.prompt_token_ids:
            raise ValueError(f"Request {{request.request_id}} exceeds the token budget of this step")
"""

# A worker's wrapper: its message carries another error's (the one to explain) inside its own words.
EXECUTOR = """
class MultiprocExecutor:
    def get_response(self, status, result):
        if status != "ok":
            raise RuntimeError(f"Worker failed with error '{{result}}', please check the stack trace above for the root cause")
"""

# An engine loop's catch-all: it announces a failure and logs the real error's traceback after its own line.
ENGINE_CORE = """
import logging

logger = logging.getLogger(__name__)


def run_engine_core(engine_core):
    try:
        engine_core.run_busy_loop()
    except Exception:
        if engine_core is not None:
            logger.exception("EngineCore encountered a fatal error.")
        raise


# The crash dump the engine writes once a step has failed (no guard of its own: its caller's `except` runs it).
def _dump_engine_exception(config, scheduler_output):
    logger.error("Dumping input data for V1 LLM engine (v%s) with config: %s, ", "0.99.0", config)
    logger.error("Dumping scheduler output for model execution: %s", scheduler_output)
"""

VENDORED = """
def nvml_check(ret):
    if ret != 0:
        raise RuntimeError("NVML_ERROR_UNINITIALIZED: the NVML library was not initialized first")
"""

# The names each release accepts: its model registry, quantization methods and tool parsers. The older release
# registers its one parser with a decorator (as vLLM did before 0.11), the newer one in a table.
REGISTRY = """
_TEXT_GENERATION_MODELS = {{
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),{new_arch}
}}
_PREVIOUSLY_SUPPORTED_MODELS = {{{removed}}}
_VLLM_MODELS = {{**_TEXT_GENERATION_MODELS}}
"""
QUANT = """
from typing import Literal

QuantizationMethods = Literal[
    "awq",{new_quant}
]
"""
OLD_PARSER = """
@ToolParserManager.register_module("hermes")
class Hermes2ProToolParser:
    pass
"""
NEW_PARSERS = """
_TOOL_PARSERS_TO_REGISTER = {
    "hermes": ("hermes_tool_parser", "Hermes2ProToolParser"),
    "qwen3_coder": ("qwen3coder_tool_parser", "Qwen3CoderToolParser"),
}
"""

METADATA = "Metadata-Version: 2.1\nName: vllm\nVersion: {version}\nSummary: small test wheel\n"
WHEEL = "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def release_files(version: str) -> dict[str, str]:
    """The source files of the small release `version` ("0.98.0" is the older one, "0.99.0" the newer)."""
    old = version == "0.98.0"
    return {
        "vllm/__init__.py": "",
        "vllm/envs.py": ENVS.format(
            ready_default=300 if old else 600,
            extra_typed="    VLLM_ENGINE_ITERATION_TIMEOUT_S: int = 60" if old else "",
            extra_env=OLD_ONLY_ENV if old else "",
        ),
        "vllm/config/__init__.py": "",
        "vllm/config/cache.py": CACHE_CONFIG.format(gmu=0.9 if old else 0.92, e5m2="" if old else ', "fp8_e5m2"'),
        "vllm/engine/arg_utils.py": ARG_UTILS.format(extra_args="" if old else NEW_ONLY_ARG),
        "vllm/entrypoints/common/cli_args.py": CLI_ARGS,
        "vllm/v1/core/kv_cache_planning.py": KV_PLANNING.format(),
        "vllm/v1/core/sched/scheduler.py": SCHEDULER.format(),
        "vllm/v1/executor/multiproc_executor.py": EXECUTOR.format(),
        "vllm/v1/engine/core.py": ENGINE_CORE,
        "vllm/third_party/pynvml.py": VENDORED,
        "vllm/broken.py": "def oops(:\n",  # a file that does not parse is skipped, not fatal
        "vllm/model_executor/models/registry.py": REGISTRY.format(
            new_arch="" if old else '\n    "Qwen3ForCausalLM": ("qwen3", "Qwen3ForCausalLM"),',
            removed="" if old else '"OldLMHeadModel": "0.98.0"',
        ),
        "vllm/model_executor/layers/quantization/__init__.py": QUANT.format(new_quant="" if old else '\n    "gptq",'),
        **(
            {"vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py": OLD_PARSER}
            if old
            else {"vllm/tool_parsers/__init__.py": NEW_PARSERS}
        ),
    }


def build_wheel(folder: Path, version: str) -> Path:
    """Write vllm-<version>-py3-none-any.whl into folder, laid out like the real wheel."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"vllm-{version}-py3-none-any.whl"
    dist = f"vllm-{version}.dist-info"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, text in release_files(version).items():
            zf.writestr(name, text)
        zf.writestr(f"{dist}/METADATA", METADATA.format(version=version))
        zf.writestr(f"{dist}/WHEEL", WHEEL)
        zf.writestr(f"{dist}/RECORD", "")
    return path


def build_tree(folder: Path, version: str) -> Path:
    """The same release as a source tree (vllm/ plus vllm/_version.py)."""
    for name, text in release_files(version).items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (folder / "vllm" / "_version.py").write_text(f"__version__ = version = '{version}'\n", encoding="utf-8")
    return folder
