"""Pasted errors matched to their raise sites by template; dependencies' errors are not attributed."""

from __future__ import annotations

from assistant.release.match import SiteMatcher
from assistant.release.models import CodeSite, Template


def site(parts: tuple[str, ...], path: str = "vllm/x.py", function: str = "f", line: int = 10, exc: str = "ValueError"):
    return CodeSite("0.99.0", "raise", exc, Template(parts), path, line, function, None)


MAX_LEN = site(
    (
        "The model's max seq len (",
        "max_model_len",
        ") is larger than the maximum number of tokens that can be stored in KV cache (",
        "max_tokens",
        "). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    ),
    path="vllm/v1/core/kv_cache_utils.py",
    function="check_enough_kv_cache_memory",
)
OTHER = site(
    ("Cannot allocate ", "n", " blocks: only ", "m", " free"), path="vllm/v1/core/block_pool.py", exc="RuntimeError"
)
DUP_A = site(
    ("Request ", "rid", " exceeds the token budget of this step"), "vllm/v1/core/sched/scheduler.py", "schedule", 5
)
DUP_B = site(
    ("Request ", "rid", " exceeds the token budget of this step"), "vllm/v1/core/sched/scheduler.py", "add_request", 9
)
OOM_WARMUP = site(
    (
        "CUDA out of memory occurred when warming up sampler with ",
        "n",
        " dummy requests. Please try lowering `max_num_seqs`.",
    ),
    path="vllm/v1/worker/gpu_model_runner.py",
    exc="RuntimeError",
)
MATCHER = SiteMatcher([MAX_LEN, OTHER, DUP_A, DUP_B, OOM_WARMUP])


def best(text: str):
    found = [m for m in MATCHER.match(text) if m.attributed]
    return found[0] if found else None


def test_placeholders_match_whatever_numbers_the_user_has():
    m = best(
        "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be "
        "stored in KV cache (3664). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine."
    )
    assert m is not None and m.site is MAX_LEN and m.exact


def test_log_prefix_quotes_dropped_and_cut_line_still_match():
    m = best(
        "(EngineCore_DP0 pid=812) ERROR 11-29 10:01:02 [core.py:720] ValueError: The model's max seq len (8192) is "
        "larger than the maximum number of tokens that can be stored in KV cache (2048). Try increasing gpu_memory_util"
    )
    assert m is not None and m.site is MAX_LEN and not m.exact


def test_chinese_around_the_english_error():
    m = best("启动时报错：\nRuntimeError: Cannot allocate 12 blocks: only 3 free\n请问怎么解决？")
    assert m is not None and m.site is OTHER


def test_traceback_frames_pick_among_identical_messages():
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 400, in step\n'
        '  File "/usr/lib/python3.12/site-packages/vllm/v1/core/sched/scheduler.py", line 9, in add_request\n'
        "ValueError: Request cmpl-42 exceeds the token budget of this step"
    )
    assert best(paste).site is DUP_B
    assert best(paste.replace("in add_request", "in schedule")).site is DUP_A


def test_dependency_errors_are_not_attributed():
    torch_oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 77.9 GiB memory in use."
    )
    nccl = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error"
    pip = "ERROR: Could not find a version that satisfies the requirement vllm==9.9 (from versions: none)"
    for text in (torch_oom, nccl, pip):
        assert best(text) is None, text


def test_another_exception_type_in_front_of_the_message_is_another_error():
    assert best("RuntimeError: Cannot allocate 12 blocks: only 3 free").site is OTHER
    assert best("torch.cuda.CudaError: Cannot allocate 12 blocks: only 3 free") is None


def test_words_alone_do_not_match():
    assert best("my model is larger than the KV cache, what should I increase?") is None


WRAPPER = site(
    ("Worker failed with error '", "e", "', please check the stack trace above for the root cause"),
    path="vllm/v1/executor/multiproc_executor.py",
    function="get_response",
    exc="RuntimeError",
)


def test_a_site_whose_placeholder_carries_another_message_relays_it():
    matcher = SiteMatcher([WRAPPER])
    inner = "MLA kv_data_type torch.uint8 is not supported. Supported dtypes: [torch.float16, torch.bfloat16]."
    relayed = matcher.match(f"RuntimeError: Worker failed with error '{inner}', please check the stack trace above")
    assert relayed and relayed[0].attributed and relayed[0].relays
    short = matcher.match("RuntimeError: Worker failed with error 'timeout', please check the stack trace above")
    assert short and short[0].attributed and not short[0].relays
    framed = matcher.match(  # the site's own frame: it raised the message, however long its values
        '  File "/x/vllm/v1/executor/multiproc_executor.py", line 9, in get_response\n'
        f"RuntimeError: Worker failed with error '{inner}', please check the stack trace above"
    )
    assert framed and not framed[0].relays


GETATTR = site(
    ("", "type(self).__name__", " object has no attribute ", "name", ""),
    path="vllm/lora/layers/base.py",
    function="BaseLayerWithLoRA.__getattr__",
    exc="AttributeError",
)
QUANT = site(
    ("Unknown quantization method: ", "method", ". Must be one of ", "methods"),
    path="vllm/config/model.py",
    function="ModelConfig._verify_quantization",
)


def test_python_own_wording_relayed_by_a_site_is_not_attributed():
    """A site that re-raises CPython's own message with its values in the holes does not explain a paste of it: the
    informative words are counted on the site's literal text, not on the values the user's paste filled in."""
    matcher = SiteMatcher([GETATTR, QUANT])
    for paste in (
        "'list' object has no attribute 'zero_'",  # the whole line: the message alone
        "AttributeError: 'list' object has no attribute 'zero_'",
        "/wake_up fails with `AttributeError: 'list' object has no attribute 'zero_'` on four architectures",
        "AttributeError: 'Qwen2VLForConditionalGeneration' object has no attribute 'packed_modules_mapping'",
    ):
        assert not [m for m in matcher.match(paste) if m.attributed], paste
    # a message in vLLM's own words still is, whatever its holes carry
    found = [m for m in matcher.match("ValueError: Unknown quantization method: fp3. Must be one of ['awq', 'gptq']")]
    assert found and found[0].attributed and found[0].site is QUANT


def test_the_values_in_a_sites_holes_do_not_make_its_message_specific():
    """Only the site's own words count: identifiers the paste filled into its holes are the user's."""
    generic = site(("Expected ", "name", " to be ", "want", " but it was ", "got", " instead"), function="check")
    paste = (
        "at start-up ValueError: Expected max_num_batched_tokens to be greater_or_equal but it was smaller_value "
        "instead, then it exits"
    )
    assert not [m for m in SiteMatcher([generic]).match(paste) if m.attributed]


MAMBA = site(
    ("--mamba-block-size can only be set with --enable-prefix-caching",), path="vllm/config/vllm.py", function="check"
)
AUTO_TOOL = site(
    ("Error: --enable-auto-tool-choice requires --tool-call-parser",),
    path="vllm/entrypoints/common/cli_args.py",
    function="validate_parsed_serve_args",
    exc="TypeError",
)


def test_a_cut_match_made_of_a_flag_is_the_users_command_line():
    """The paste's own command line ends in the flag a message ends in: a cut match of flags alone is not that
    message. A message that is mostly flags, pasted whole, still is."""
    matcher = SiteMatcher([MAMBA, AUTO_TOOL])
    command = "vllm serve deepseek-ai/DeepSeek-R1 --enable-chunked-prefill false \\\n    --enable-prefix-caching"
    assert not [m for m in matcher.match(command) if m.attributed]
    whole = [m for m in matcher.match("TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser")]
    assert whole and whole[0].attributed and whole[0].site is AUTO_TOOL
