"""What to ask for when no source answers: the details the user's message does not already give (pure).

An abstention that asks for the `collect-env` output, the traceback and the command after the user pasted all
three reads as if the message went unread. The checklist keeps only what is missing and says what was read.
"""

from __future__ import annotations

import re
from dataclasses import replace

from assistant.text.report import has_environment_report
from assistant.text.setup import UserSetup
from assistant.text.signals import is_command, is_log_line

# Asked for in this order; each is a key of `answer.text.COLLECT`.
DETAILS = ("environment", "log", "versions", "command", "model")

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\[rank\d+\]:")
# The command as code (`LLM(...)`) or as the server logs it on start-up ("non-default args: {...}", "args: Namespace(").
_STARTED_WITH = re.compile(r"\bLLM\(|non-default args:|\bargs: Namespace\(")


def missing_details(text: str, setup: UserSetup) -> list[str]:
    """The `DETAILS` the message does not give, in asking order."""
    environment = has_environment_report(text)  # it also states the versions and the GPUs
    lines = text.splitlines()
    given = {
        "environment": environment,
        "log": bool(setup.errors or _TRACEBACK.search(text)) or any(is_log_line(ln) for ln in lines),
        "versions": environment or bool(setup.vllm_version and setup.gpus),
        "command": bool(_STARTED_WITH.search(text)) or any(is_command(ln) for ln in lines),
        "model": bool(setup.models),
    }
    return [d for d in DETAILS if not given[d]]


def read_as(setup: UserSetup) -> list[str]:
    """What the message was read as, for the user to check: the version, the GPUs and at most two model names.

    A paste names a model several ways (`Qwen/Qwen2.5-7B`, a local path, a URL fragment `models/Qwen`): one name per
    final path segment, and none that is a bare family name.
    """
    models: dict[str, str] = {}
    for m in setup.models:
        last = m.rsplit("/", 1)[-1]
        if any(c.isdigit() for c in last):
            models.setdefault(last.lower(), m)
    return [*replace(setup, models=()).describe(), *list(models.values())[:2]]
