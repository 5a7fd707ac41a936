"""Extraction from a small wheel zipped like the real one: env vars, flags, raise and log sites."""

from __future__ import annotations

import pytest

from assistant.release.fetch import parse_spec
from assistant.release.models import ReleaseSpec

NEW = "0.99.0"


def _site(facts, needle: str):
    found = [s for s in facts.sites if needle in s.template.render()]
    assert found, f"no site with {needle!r}"
    return found


def test_env_vars_have_type_default_and_comment(synced):
    facts = synced.load(NEW)
    env = {e.name: e for e in facts.env_vars}
    host = env["VLLM_HOST_IP"]
    assert host.type == "str" and host.default == "''"
    assert host.doc == (
        "used in distributed environment to determine the ip address of the current node, "
        "when the node has multiple network interfaces."
    )  # the two comment lines above it, and not the "=== Runtime Env Vars ===" banner
    assert env["VLLM_ENGINE_READY_TIMEOUT_S"].default == "600"
    assert env["VLLM_ATTN_KIND"].choices == ("auto", "flash", "triton")
    assert host.url == f"https://github.com/vllm-project/vllm/blob/v{NEW}/vllm/envs.py#L{host.line}"


def test_flags_read_help_and_default_from_the_config_dataclass(synced):
    flags = {f.flag: f for f in synced.load(NEW).flags}
    gmu = flags["--gpu-memory-utilization"]
    assert (gmu.type, gmu.default, gmu.field) == ("float", "0.92", "CacheConfig.gpu_memory_utilization")
    assert gmu.help.startswith("The fraction of GPU memory to be used for the model executor")
    assert gmu.path == "vllm/config/cache.py"
    assert flags["--kv-cache-dtype"].choices == ("auto", "fp8", "fp8_e5m2")  # through the Literal alias
    assert flags["--kv-offload-gb"].type == "float" and flags["--kv-offload-gb"].default == "0"
    assert flags["--disable-log-stats"].type == "bool"
    # Frontend flags: every field of FrontendArgs and its base, as make_arg_parser registers them.
    assert {"--host", "--port", "--chat-template", "--headless"} <= set(flags)
    assert flags["--port"].default == "8000"


def test_raise_sites_keep_placeholders_condition_and_scope(synced):
    facts = synced.load(NEW)
    (site,) = _site(facts, "No available memory for the cache blocks")
    assert (site.kind, site.exception, site.function) == ("raise", "ValueError", "_check_enough_kv_cache_memory")
    assert site.condition == "available_memory <= 0"
    assert site.path == "vllm/v1/core/kv_cache_planning.py"
    assert site.url.startswith(f"https://github.com/vllm-project/vllm/blob/v{NEW}/vllm/v1/core/kv_cache_planning.py#L")

    (fstring,) = _site(facts, "To serve at least one request")
    assert "({max_model_len})" in fstring.template.render()
    assert fstring.condition == "needed_memory > available_memory"


def test_message_variables_percent_format_logs_and_except_guards(synced):
    facts = synced.load(NEW)
    (alloc,) = _site(facts, "Cannot allocate")
    assert (
        alloc.template.render() == "Cannot allocate {num_blocks} blocks: only {free_blocks} free"
    )  # msg = "..." % (...)
    assert alloc.function == "KVCacheManager.allocate"
    (warn,) = _site(facts, "preemption may follow")
    assert (warn.kind, warn.exception) == ("log", "warning")
    assert warn.condition == "not (num_blocks > free_blocks)"  # the else branch
    (imp,) = _site(facts, "requires the nixl package")
    assert imp.template.render() == "KV transfer requires the nixl package: pip install nixl"  # constant filled in
    assert imp.condition == "except ImportError"


def test_vendored_code_and_unparsable_files_are_left_out(synced):
    facts = synced.load(NEW)
    assert not [s for s in facts.sites if s.path.startswith("vllm/third_party/")]
    assert facts.files == 14  # the vendored file is not read; broken.py is read and contributes nothing


def test_specs():
    assert parse_spec("vllm==0.33.0") == ReleaseSpec("pypi", "0.33.0", "0.33.0")
    assert parse_spec("0.31.0") == ReleaseSpec("pypi", "0.31.0", "0.31.0")
    assert parse_spec("installed").kind == "installed"


ARG_UTILS = '''
import argparse


class AsyncEngineArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument(
            "--enable-log-requests",
            action=argparse.BooleanOptionalAction,
            default=False,
            help="Enable logging request information.",
        )
        parser.add_argument(
            "--disable-log-stats",
            action="store_true",
            help="Disable logging statistics.",
        )
        return parser
'''
CLI_MAIN_SOURCE = '''
import argparse
import importlib.metadata


def _build_parser():
    parser = argparse.ArgumentParser(description="vLLM CLI")
    parser.add_argument("-v", "--version", action="version", version=importlib.metadata.version("vllm"))
    return parser
'''


def test_boolean_optional_flags_and_the_vllm_commands_own_options():
    """`action=argparse.BooleanOptionalAction` is a boolean with a `--no-` form (0.33.0's `--enable-log-requests`);
    `vllm --version` is an option of the command itself (vllm/entrypoints/cli/main.py), not of the engine."""
    from assistant.release.extract import ARG_FILE, CLI_MAIN, assemble, extract_file
    from assistant.release.knowledge import _Release

    files = [extract_file(ARG_FILE, ARG_UTILS, NEW), extract_file(CLI_MAIN, CLI_MAIN_SOURCE, NEW)]
    facts = assemble(NEW, "test", files, len(files))
    flags = {f.flag: f for f in facts.flags}
    assert flags["--enable-log-requests"].type == "bool"
    assert flags["--version"].aliases == ("-v",)
    release = _Release(facts)
    assert release.flag("--no-enable-log-requests") is flags["--enable-log-requests"]
    assert release.flag("--version") is not None
    assert release.flag("--no-version") is None  # not a boolean
    # store_true: a boolean with no negative form (argparse rejects `--no-disable-log-stats`)
    assert flags["--disable-log-stats"].type == "bool" and not flags["--disable-log-stats"].negatable
    assert release.flag("--disable-log-stats") is not None and release.flag("--no-disable-log-stats") is None
    names = release.names_list("flag").names
    assert "--no-enable-log-requests" in names and "--no-disable-log-stats" not in names


@pytest.mark.parametrize(
    "annotation, negatable",
    [
        ("bool", True),
        ("bool | None", True),
        ("Optional[bool]", True),
        ("bool | str | None", False),  # vLLM's optional-valued flag: bare -> True, else the string
        ("Optional[bool | str]", False),
        ("int", False),
        ("Literal['auto', 'fp8']", False),
        (None, False),
    ],
)
def test_which_config_field_types_get_a_no_form(annotation, negatable):
    """vLLM's get_kwargs gives a config field whose type holds `bool` argparse.BooleanOptionalAction, except
    `bool | str | None` (vllm/engine/arg_utils.py, 0.33.0)."""
    from assistant.release.extract import negatable_type

    assert negatable_type(annotation) is negatable


def test_the_names_a_release_accepts_are_read_from_its_registry_quantization_list_and_parsers(synced):
    """Architectures (and those removed, with the last release that had them), quantization methods, and tool parsers
    registered in a table (newer releases) or by a decorator in their own file (older ones), each at its line."""
    old, new = synced.load("0.98.0"), synced.load("0.99.0")
    names = {(k.kind, k.name): k for k in new.known}
    assert set(names) == {
        ("architecture", "LlamaForCausalLM"), ("architecture", "Qwen3ForCausalLM"),
        ("removed_architecture", "OldLMHeadModel"), ("quantization", "awq"), ("quantization", "gptq"),
        ("tool_parser", "hermes"), ("tool_parser", "qwen3_coder"),
    }  # fmt: skip
    assert names[("removed_architecture", "OldLMHeadModel")].note == "0.98.0"
    gptq = names[("quantization", "gptq")]
    quant_file = "vllm/model_executor/layers/quantization/__init__.py"
    assert (gptq.flag, gptq.path, gptq.line) == ("--quantization", quant_file, 6)
    assert gptq.url.endswith("/v0.99.0/vllm/model_executor/layers/quantization/__init__.py#L6")
    assert {(k.kind, k.name) for k in old.known} == {
        ("architecture", "LlamaForCausalLM"), ("quantization", "awq"), ("tool_parser", "hermes"),
    }  # fmt: skip
    hermes = next(k for k in old.known if k.kind == "tool_parser")
    assert hermes.path == "vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py"
    assert hermes.flag == "--tool-call-parser"
