"""What to ask for when no source answers: the details the user's message does not already give (pure).

An abstention that asks for the `collect-env` output, the traceback and the command after the user pasted all
three reads as if the message went unread. The checklist keeps only what is missing and says what was read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import quote_plus

from assistant.models import Signals
from assistant.text.report import has_environment_report
from assistant.text.setup import UserSetup
from assistant.text.signals import EXCEPTION_PREFIX, is_command, is_log_line

# Asked for in this order; each is a key of `answer.text.COLLECT`.
DETAILS = ("environment", "log", "versions", "command", "model")

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\[rank\d+\]:")
# The command as code (`LLM(...)`) or as the server logs it on start-up ("non-default args: {...}", "args: Namespace(").
_STARTED_WITH = re.compile(r"\bLLM\(|non-default args:|\bargs: Namespace\(")


_ISSUES = "https://github.com/vllm-project/vllm/issues?q="
# A word of an error message that differs from run to run: a path, a number, an address, a quoted value.
_RUN_SPECIFIC = re.compile(r"[/\\]|\d|^0x|[=(){}\[\]<>]")
_SEARCH_WORDS = 8


def issue_search(signals: Signals) -> str | None:
    """A search of vLLM's GitHub issues for the first error message's words ("No module named cohere_melody"), so that
    an open bug behind an error no source explains is one click away; None when the message has no error message.
    Paths, numbers, addresses and quoted values are left out: they differ from one user's run to the next."""
    for message in signals.messages:
        words = []
        for word in EXCEPTION_PREFIX.sub("", message.strip()).split():
            word = word.strip("'\"`.,:;!?")
            if word and not _RUN_SPECIFIC.search(word):
                words.append(word)
            if len(words) == _SEARCH_WORDS:
                break
        if len(words) >= 3:
            return _ISSUES + quote_plus("is:issue " + " ".join(words))
    return None


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
