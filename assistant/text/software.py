"""Which software a message *runs*, as opposed to names (pure).

A user's message names vLLM for many reasons: "SGLang and vLLM support this", "in vLLM you can pass…", a title
that asks whether another engine has vLLM's flag. What runs is told by what they paste: the command they
started (`python3 -m sglang.launch_server …`, `llama-server …`, `vllm serve …`), the packages of a traceback's
frames (`…/site-packages/trl/trainer/grpo_trainer.py` calling `…/site-packages/vllm/entrypoints/llm.py`) and the
imports of their code. This module reads those; `setup.py` decides from them what the message is about.
"""

from __future__ import annotations

import re
import sys

from assistant.text.signals import is_command

# A traceback frame's file (Python's `File "…", line N` and the `  /path/x.py(583): fn` of C++ extensions'
# traces, e.g. Triton's), and the top-level package of an installed file.
_FRAME_FILE = re.compile(r'^[ \t]*File "([^"\n]{1,400})", line \d+|^[ \t]*(/[^\s()]{1,400}\.py)\(\d+\)', re.MULTILINE)
_INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)")
# `from trl import X`, `import llamafactory.chat`: the top-level package a user's code imports.
_IMPORT = re.compile(
    r"^[ \t>]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([A-Za-z_]\w*))", re.MULTILINE
)
# vLLM named as a setting inside that code: `use_vllm=True`, `vllm_mode="colocate"`, `infer_backend='vllm'`.
_VLLM_SETTING = re.compile(r"\b\w{0,30}vllm\w{0,30}[\"']?\s*[=:]|[=:]\s*[\"']vllm[\"']", re.IGNORECASE)
# A command line's program: after `$ `, environment assignments and `python3 -m`, its first word.
_PROGRAM = re.compile(
    r"^\s*(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+){0,4}(?:(?:python3?|uv run|python3?\.\d+)\s+-m\s+)?([A-Za-z][\w.-]{0,60})"
)
# The vLLM runtime's own dependencies (vLLM 0.33.0's requirements/common.txt and cuda.txt, by import name) and the
# process machinery around it: their frames above vLLM's are vLLM running, not another framework driving it.
VLLM_RUNTIME = frozenset((
    "vllm", "torch", "torchvision", "torchaudio", "triton", "transformers", "tokenizers", "huggingface_hub",
    "safetensors", "xgrammar", "flashinfer", "outlines_core", "lm_format_enforcer", "llguidance", "openai",
    "anthropic", "fastapi", "starlette", "uvicorn", "uvloop", "anyio", "pydantic", "aiohttp", "requests", "ray",
    "numba", "numpy", "zmq", "msgspec", "prometheus_client", "mistral_common", "compressed_tensors", "einops",
    "cloudpickle", "setproctitle", "tqdm", "psutil", "regex", "sentencepiece", "tiktoken", "cv2", "pil", "cbor2",
    "blake3", "depyf", "watchfiles", "mcp", "opentelemetry", "quack", "cutlass", "tilelang", "tvm_ffi",
    "fastsafetensors", "instanttensor", "partial_json_parser", "jsonschema", "lark", "pybase64", "ijson",
    "cachetools", "filelock", "yaml", "protobuf", "google", "six", "typing_extensions", "click", "typer", "gunicorn",
    "concurrent", "multiprocessing", "asyncio", "threading", "runpy", "importlib",
))  # fmt: skip


def frame_packages(text: str) -> list[str]:
    """The top-level packages of a traceback's installed frames, in the order printed (user files left out)."""
    out = []
    for m in _FRAME_FILE.finditer(text):
        pkg = _INSTALLED.search(m.group(1) or m.group(2))
        if pkg:
            out.append(pkg.group(1).lower())
    return out


def imported(text: str) -> list[str]:
    """The top-level packages a pasted piece of code imports, in order."""
    return [(m.group(1) or m.group(2)).lower() for m in _IMPORT.finditer(text)]


def programs(text: str) -> list[str]:
    """The programs the pasted command lines start (`sglang.launch_server`, `llama-server`, `vllm`), in order.

    A command line is a line of its own that starts a program with arguments; a line of prose that begins with a
    program's name ("sglang launch_server fails, and …") is not one.
    """
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if is_command(stripped):  # `vllm serve`, `python -m vllm…`, or a `docker run` of some image
            if "vllm" in stripped.lower():
                out.append("vllm")
            continue
        m = _PROGRAM.match(stripped)
        if not m or not _looks_like_arguments(stripped[m.end() :], m.group(1)):
            continue
        out.append(m.group(1).lower())
    return out


def _looks_like_arguments(rest: str, program: str = "") -> bool:
    """What follows a program's name on a command line: options or a path/file, not a sentence.

    Also a subcommand: one or two lowercase words before an option or a path (`llamafactory-cli api
    --model_name_or_path x`, `cargo run --bin x`), or, after a program whose name no English word has (`open-webui`, `llama-server`: a
    hyphen, dot or underscore in it), a bare subcommand line (`open-webui serve`).
    """
    words = rest.split()
    # `vllm==0.10.0`, `applications:`, `LiteLLM version: 1.70`: a pin or a key and its value, not a command
    if not words or not rest[:1].isspace() or words[0].endswith(":"):
        return False
    if words[0].startswith("-") or bool(re.search(r"[/.:]", words[0])) or rest.rstrip().endswith("\\"):
        return True
    if _SUBCOMMAND.match(rest):
        return True
    return bool(re.search(r"[-_.]", program)) and len(words) <= 2 and all(_WORD.fullmatch(w) for w in words)


# `api --model_name_or_path x`, `run --bin gguf-tokenizer`, `serve api_server /models/x`: subcommand words, then
# an option or a path.
_SUBCOMMAND = re.compile(r"^\s*(?:[a-z][a-z0-9_-]{0,30}\s+){1,2}(?:--?[A-Za-z]|[^\s,;]*[/.:])")
_WORD = re.compile(r"[a-z][a-z0-9_-]{0,30}")


# A Rust program's log line: a timestamp, a level, then its target, the crate and module that wrote it
# (`2025-07-22T15:25:53.936712Z  INFO mistralrs_core::paged_attention: …`, tracing's and env_logger's format).
_RUST_TARGET = re.compile(
    r"^[ \t]*\[?\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?\]?[ \t]+(?:TRACE|DEBUG|INFO|WARN|ERROR)[ \t]+([a-z][a-z0-9_]*)::",
    re.MULTILINE,
)


def log_crates(text: str) -> list[str]:
    """The Rust crates whose log lines a message pastes (`mistralrs_core`, and its name before a `_core`-style part:
    `mistralrs`), in order. vLLM is a Python program: no log line of its own has a Rust target."""
    out = []
    for m in _RUST_TARGET.finditer(text):
        crate = m.group(1)
        out += [crate, crate.split("_", 1)[0]] if "_" in crate else [crate]
    return list(dict.fromkeys(out))


# The word vLLM, ASCII boundaries: "使用VLLM运行" names vLLM too (a CJK character is a word character to `\b`).
VLLM_WORD = re.compile(r"(?<![A-Za-z0-9_])vllm(?![A-Za-z0-9_])", re.IGNORECASE)
# vLLM by name: the word, a path or image with it (`site-packages/vllm/…`, `vllm/vllm-openai`), or one of its
# environment variables (`VLLM_USE_V1`).
_NAMES_VLLM = re.compile(rf"{VLLM_WORD.pattern}|(?<![A-Za-z0-9_])VLLM_[A-Z0-9_]+", re.IGNORECASE)


# vLLM named as the yardstick of a question about something else: "like vLLM", "like in vLLM", "than vllm", "compared
# to vLLM", "比如vllm中有一个参数", "像vllm那种". Not "than vLLM 0.6.3": a comparison of vLLM's own releases is about vLLM.
_YARDSTICK_BEFORE = re.compile(
    r"(?:\blike(?:\s+in)?|\bas\s+in|\bthan|\bunlike|\bcompared\s+(?:to|with)|\bvs\.?|\bversus|"
    r"像|比如|例如|类似于?|如同|不像)\s*$",
    re.IGNORECASE,
)
_RELEASE_AFTER = re.compile(r"\s*(?:v|version\s*|==\s*)?\d", re.IGNORECASE)
# "like" as a verb: "I'd like vLLM to support …", "it looks like vllm hangs", "seems like vLLM ignores it".
_LIKE_AS_VERB = re.compile(
    r"(?:\b(?:would|i|we|you|they|do|don't|dont|really|also|just|looks?|looked|seems?|seemed|feels?|sounds?)|'d)"
    r"\s+like\s*$",
    re.IGNORECASE,
)


def _as_yardstick(text: str, m: re.Match[str]) -> bool:
    before = text[max(0, m.start() - 30) : m.start()]
    return (
        bool(_YARDSTICK_BEFORE.search(before))
        and not _LIKE_AS_VERB.search(before)
        and not _RELEASE_AFTER.match(text, m.end())
    )


def vllm_mentions(text: str) -> list[re.Match[str]]:
    """The mentions of vLLM's name that are not a comparison with it (`_YARDSTICK_BEFORE`): what a message that
    names vLLM only as the yardstick of another product's question ("does lmdeploy have a parameter like vLLM's
    gpu-memory-utilization?") is about is that product, or nothing said."""
    return [m for m in VLLM_WORD.finditer(text) if not _as_yardstick(text, m)]


def names_vllm(text: str) -> bool:
    """Whether the message shows vLLM anywhere: its name (not as a yardstick: `vllm_mentions`), a path or image that
    holds it, or a VLLM_ variable."""
    return any(not (VLLM_WORD.fullmatch(m.group()) and _as_yardstick(text, m)) for m in _NAMES_VLLM.finditer(text))


def runs_vllm(text: str) -> bool:
    """Whether what the message pastes runs vLLM: a vLLM command, a vLLM frame, or code that imports vllm."""
    return (
        "vllm" in frame_packages(text)
        or "vllm" in imported(text)
        or any(p == "vllm" or p.startswith("vllm.") for p in programs(text))
    )


# Libraries that turn a command line into a call of the user's own function (python-fire, Hydra, Abseil, tyro,
# jsonargparse): their frames sit above the user's code, and what that code calls is what runs.
_CLI_DISPATCH = frozenset(("fire", "hydra", "absl", "tyro", "jsonargparse"))


def driver(text: str) -> str | None:
    """The framework that runs vLLM inside its own process, when the user's code goes through one (or None).

    TRL's trainer or LLaMA-Factory's chat model builds vLLM's engine with the arguments *it* chooses, so the setting
    to change is that framework's. Read from a traceback whose outermost installed frame is another package calling
    into vLLM, or from code that imports another package (and not vllm) and names vLLM as one of its settings.
    """
    frames = [f for f in frame_packages(text) if f not in _CLI_DISPATCH]
    if "vllm" in frames:
        first = frames[0]
        if first not in VLLM_RUNTIME and first not in sys.stdlib_module_names:
            return first
    imports = [p for p in imported(text) if p not in VLLM_RUNTIME and p not in sys.stdlib_module_names]
    if imports and "vllm" not in imported(text) and _VLLM_SETTING.search(text):
        return imports[0]
    return None


def code_without_vllm(text: str) -> str | None:
    """The package that pasted code runs when the message neither imports nor names vLLM anywhere (or None).

    `import torch` and a tensor moved between GPUs, in a message that never says vLLM, is not run by vLLM: what
    vLLM's sources say about the symptom is not about this code. A standard-library import alone says nothing.
    """
    if re.search(r"vllm", text, re.IGNORECASE):
        return None
    imports = [p for p in imported(text) if p not in sys.stdlib_module_names]
    return imports[0] if imports else None


# `### Open WebUI Version`, `LiteLLM version: 1.55`, `Ollama version is 0.6.8`: the product an issue template or an
# environment report gives a version of. vLLM's own report names vLLM and its dependencies this way too (`vLLM
# Version : 0.23.0`, `PyTorch version`); which of these names is another product is `setup`'s to say.
_VERSION_FIELD = re.compile(
    r"^[ \t]*(?:#{1,4}[ \t]*)?(?:\*\*)?([A-Za-z][\w .+-]{1,40}?)[ \t]+version\b(?:\*\*)?[ \t]*(?:[:：=]|is\b|$)",
    re.IGNORECASE | re.MULTILINE,
)


def versioned_products(text: str) -> list[str]:
    """The names a report gives a version of ("Open WebUI", "vLLM", "PyTorch"), in order."""
    return [m.group(1).strip() for m in _VERSION_FIELD.finditer(text)]


# A heading of an issue template that asks for a product's version: `### FreeToken version`, `## Ollama Version`.
_VERSION_HEADING = re.compile(
    r"^[ \t]*#{1,4}[ \t]*(?:\*\*)?([A-Za-z][\w .+-]{1,40}?)[ \t]+version\b", re.IGNORECASE | re.MULTILINE
)
# What templates and environment reports ask the version of besides the product itself: the language, the OS, the
# GPU stack, vLLM's own dependencies, and words that name no product ("Package version", "Model version").
_ENVIRONMENT_NAMES = re.compile(
    r"(?:your |the )?(?:python|pytorch|torch|cuda(?: runtime| driver| toolkit)?|cudnn|nccl|"
    r"(?:nvidia |gpu |cuda )?driver|os|operating system|kernel|linux|ubuntu|windows|macos|wsl2?|gpu|transformers|"
    r"tokenizers|accelerate|peft|triton|xformers|flashinfer|flash[- ]?attn|flash[- ]?attention|docker|ray|numpy|gcc|"
    r"clang|cmake|libc|glibc|rocm|hip(?: runtime)?|miopen(?: runtime)?|neuron sdk|node(?:\.js)?|npm|browser|client|"
    r"server|package|library|software|app|model|checkpoint|api|sdk|firmware|bios|current|latest)",
    re.IGNORECASE,
)


def template_products(text: str) -> list[str]:
    """The products an issue template gives a version of under a heading of its own (`### FreeToken version`), its
    environment questions left out (`### OS version`, `### CUDA Version`): the project the report was filed to."""
    names = [m.group(1).strip() for m in _VERSION_HEADING.finditer(text)]
    return [n for n in names if not _ENVIRONMENT_NAMES.fullmatch(n)]


# An issue title's tags: `[Bug]:`, `[Serve]`, `issue:`, `bug:`, `[BUG]`.
_TITLE_TAGS = re.compile(r"^(?:\s*(?:\[[^\]\n]{1,30}\]|(?:issue|bug|question|feature)\b)\s*:?)+\s*", re.IGNORECASE)


def title_subject(text: str) -> str:
    """The start of a message's first line without its tags: "Ray Serve LLM ignores VLLM_API_KEY" for
    "[Serve] Ray Serve LLM ignores VLLM_API_KEY". What a title opens with is what the report is about."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    return _TITLE_TAGS.sub("", first, count=1).strip()


# Build tools of other languages: vLLM is a Python program, so a message that runs one of these (`cargo run --bin
# gguf-tokenizer …`) and never names vLLM runs someone else's program.
OTHER_TOOLCHAINS = frozenset(("cargo", "rustc", "go", "npm", "npx", "node", "java", "mvn", "gradle", "dotnet"))


def toolchain_without_vllm(text: str) -> str | None:
    """The other language's build tool a pasted command line runs, when the message never names vLLM (or None)."""
    if re.search(r"vllm", text, re.IGNORECASE):
        return None
    return next((p for p in programs(text) if p in OTHER_TOOLCHAINS), None)


# A command line's option that picks vLLM as the engine another program runs: `--infer_backend vllm`,
# `--backend=vllm`, `--engine vllm`, `--inference-engine 'vllm'`.
_VLLM_BACKEND_OPTION = re.compile(r"(?:^|\s)--?[\w-]*(?:backend|engine)[\w-]*(?:=|\s+)['\"]?vllm\b", re.IGNORECASE)


def programs_choosing_vllm(text: str) -> list[str]:
    """The programs of command lines that pass vLLM as the engine they should run (`llamafactory-cli api …
    --infer_backend vllm`), in order: such a program builds vLLM's engine itself, with the arguments it chooses."""
    out = []
    for line in text.splitlines():
        if _VLLM_BACKEND_OPTION.search(line):
            out += [p for p in programs(line) if p != "vllm" and not p.startswith("vllm.")]
    return out
