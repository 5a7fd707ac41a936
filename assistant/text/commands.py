"""Which flags of a pasted command line are another program's, and how vLLM itself spells a flag (pure).

Users paste the whole command they run. In `docker run --gpus all --ipc=host -v ~/.cache:/root/.cache
vllm/vllm-openai:latest --model X --max_model_len 8192`, `--gpus` and `--ipc` are Docker's and everything
after the image is vLLM's; saying that `--gpus` "does not exist in vLLM" is a wrong answer. So are the flags of a
line that runs another program: `python web_demo.py --device cuda` (their script's), `python3 -m
sglang.launch_server --tp 8` (another engine's), `torchrun`, `pip install`, `curl`. And vLLM's
argument parser reads `--max_model_len` as `--max-model-len` (it turns underscores into dashes in the name,
up to the first `.` of a `--config.key` form), so that spelling is the same flag.
"""

from __future__ import annotations

import re

from assistant.text.vocab import COMMAND_PREFIX, FLAG, WORD_START

_RUNNER = re.compile(r"\b(?:docker|podman|nerdctl)\s+(?:container\s+)?run\b")
_CONTINUATION = re.compile(r"\\\r?\n")
# A line that runs another program than vLLM, as users paste it (after `COMMAND_PREFIX`): a Python script or module
# whose name does not hold "vllm", or a program that is not vLLM.
_OTHER_COMMAND = re.compile(
    COMMAND_PREFIX
    + r"(?:python[\d.]*\s+(?:-m\s+)?(?!-)(?![\w./-]*vllm)[\w./-]+"
    r"|(?:torchrun|accelerate|deepspeed|sglang|lmdeploy|ollama|llamafactory-cli|swift|trtllm-serve|llama-server"
    r"|text-generation-launcher|pip3?|uv|conda|git|huggingface-cli|ray|kubectl|helm|curl|wget|nvidia-smi)\s)"
)  # case kept: a sentence may start with "Ray", "Git" or "Swift", a shell command does not
_FLAG_IN_TEXT = re.compile(f"{WORD_START}{FLAG}")
_FLAG_TOKEN = re.compile(f"^({FLAG}|-[a-zA-Z])(?:=.*)?$")
# An image reference: a name with a registry/namespace part or a tag (`vllm/vllm-openai:latest`,
# `rocm/vllm`, `vllm-openai:v0.9.0`), starting with a letter; not a path, a port pair or a `K=V`.
_IMAGE = re.compile(
    r"^[a-z][a-z0-9._-]*(?::\d+)?(?:/[a-z0-9._-]+)+(?::[\w.-]+)?(?:@sha256:[0-9a-f]+)?$"  # namespace/name[:tag]
    r"|^[a-z][a-z0-9._-]*:[\w.-]+$"  # name:tag
)
# Options of `docker run` whose value can look like an image (`-v cache:/root/.cache`, `--name vllm/x`).
_VALUE_OPTIONS = frozenset(
    {"-v", "--volume", "--mount", "-e", "--env", "--env-file", "--name", "-p", "--publish", "-w", "--workdir",
     "--network", "--net", "--entrypoint", "--platform", "-u", "--user", "-l", "--label", "--hostname", "-h"}
)


def canonical_flag(name: str) -> str:
    """The flag as vLLM's parser reads it: `--max_model_len` is `--max-model-len` (a `--a_b.c_d` form keeps
    the part after its first dot)."""
    if not name.startswith("--"):
        return name
    head, dot, rest = name[2:].partition(".")
    return "--" + head.replace("_", "-") + dot + rest


def other_program_flags(text: str) -> frozenset[str]:
    """Flags the text passes to another program, not to vLLM: to a container runner before the image (Docker's,
    Podman's), or on a line that runs another program (`_OTHER_COMMAND`). A flag that the same text also passes to
    vLLM (after an image), or names anywhere else (its own vLLM command line, a sentence), is not in the set."""
    foreign: set[str] = set()
    ours: set[str] = set()
    joined = _CONTINUATION.sub(" ", text)
    other: set[str] = set()
    elsewhere: set[str] = set()
    for line in joined.split("\n"):
        if _RUNNER.search(line):
            continue  # read below, token by token
        if _OTHER_COMMAND.match(line):
            other.update(m.group(1) for m in map(_FLAG_TOKEN.match, line.split()) if m)
        else:
            elsewhere.update(_FLAG_IN_TEXT.findall(line))
    for match in _RUNNER.finditer(joined):
        line_end = joined.find("\n", match.end())
        tokens = joined[match.end() : line_end if line_end >= 0 else len(joined)].split()
        after_image = False
        previous = ""
        for token in tokens:
            flag = _FLAG_TOKEN.match(token)
            if flag:
                (ours if after_image else foreign).add(flag.group(1))
            elif not after_image and previous not in _VALUE_OPTIONS and _IMAGE.match(token):
                after_image = True
            previous = token.split("=", 1)[0]
    return frozenset((foreign - ours) | (other - ours - elsewhere))
