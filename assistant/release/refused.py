"""The names a pasted error says the user's vLLM does not accept (pure): a model architecture it does not support, a
quantization method, a tool-call or reasoning parser it does not know.

When the newest indexed release accepts such a name, the user's vLLM predates the release that added it, and the
answer is to upgrade; when the registry lists it as removed, the answer is the last release that had it. Only the
messages that refuse a name are read, and only the name they refuse: not the list of accepted names that follows
("Must be one of ['awq', 'squeezellm']", "choose from 'hermes', 'mistral'"), and not a model named in some other
complaint ("Qwen2ForCausalLM does not support BitsAndBytes quantization yet" is about the model, not its
architecture being unknown).
"""

from __future__ import annotations

import re

_QUOTED = re.compile(r"""['"`]([A-Za-z0-9_.\-]{2,80})['"`]""")
_NAME = r"""['"`]?([A-Za-z0-9_.\-]{2,80})['"`]?"""
_NOT_THERE = r"\s+(?:is\s+)?not\s+(?:found|registered|supported)"
# Each message shape, the kind of name it refuses, and the group holding that name (or a list of quoted names).
_REFUSALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "Model architectures ['Qwen3ForCausalLM'] are not supported for now." (a list of one or more)
    ("architecture", re.compile(r"architectures?\s*(\[[^\]\n]{1,400}\])\s*(?:are|is)\s+not\s+supported", re.I)),
    # "Model architecture Foo is not supported", "Unsupported model architecture: Foo"
    ("architecture", re.compile(r"model architecture\s+" + _NAME + r"\s+is\s+not\s+supported", re.I)),
    ("architecture", re.compile(r"unsupported (?:model )?architecture:?\s+" + _NAME, re.I)),
    # "Unknown quantization method: gptq.", "Unsupported quantization method: x"
    ("quantization", re.compile(r"(?:unknown|unsupported|invalid) quantization method:?\s+" + _NAME, re.I)),
    ("quantization", re.compile(r"argument --quantization(?:/-q)?: invalid choice: " + _NAME, re.I)),
    # argparse of `vllm serve`; older releases: "KeyError: 'invalid tool call parser: x (chose from {...})'"
    ("tool_parser", re.compile(r"argument --tool-call-parser: invalid choice: " + _NAME, re.I)),
    ("tool_parser", re.compile(r"(?:invalid|unknown|unsupported) tool[ _-]?(?:call[ _-]?)?parser:?\s+" + _NAME, re.I)),
    ("tool_parser", re.compile(r"tool[ _-]?(?:call[ _-]?)?parser\s+" + _NAME + _NOT_THERE, re.I)),
    ("reasoning_parser", re.compile(r"argument --reasoning-parser: invalid choice: " + _NAME, re.I)),
    ("reasoning_parser", re.compile(r"(?:invalid|unknown|unsupported) reasoning[ _-]?parser:?\s+" + _NAME, re.I)),
    ("reasoning_parser", re.compile(r"reasoning[ _-]?parser\s+" + _NAME + _NOT_THERE, re.I)),
    # any other flag's value: "argument --tokenizer-mode: invalid choice: 'mistral' (choose from 'auto', 'slow')"
    ("flag_choice", re.compile(
        r"argument (--(?!quantization\b|tool-call-parser\b|reasoning-parser\b)[\w-]+)(?:/-\w+)?: invalid choice: "
        + _NAME, re.I,
    )),
)  # fmt: skip


def refused_names(text: str) -> tuple[tuple[str, str], ...]:
    """(kind, name) for each name the text's error messages refuse, in order, once each. Kinds: architecture,
    quantization, tool_parser, reasoning_parser, and flag_choice (name `--flag=value`)."""
    found: list[tuple[str, str]] = []
    for kind, pattern in _REFUSALS:
        for m in pattern.finditer(text):
            if kind == "flag_choice":  # the flag and its value, as `--flag=value`
                found.append((kind, f"{m.group(1)}={m.group(2)}"))
                continue
            value = m.group(1)
            names = _QUOTED.findall(value) if value.startswith("[") else [value.rstrip(".")]
            found += [(kind, n) for n in names]
    return tuple(dict.fromkeys(found))
