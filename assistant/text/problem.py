"""The problem part of a message, apart from its setup (pure).

A message is two things: the problem (error lines, the exception, the symptom, what changed, the question asked)
and the setup (the command line the user runs, the flags they already pass, the model, versions, GPUs). A flag
that only the user's own command line holds is what they run, not what they ask about: the facts the release's
source states about it (its help text, its default) do not answer their problem.
"""

from __future__ import annotations

import re

from assistant.retrieval.evidence import is_paste
from assistant.text.commands import canonical_flag
from assistant.text.report import problem_text
from assistant.text.signals import extract_signals, is_command

_ERROR = re.compile(r"\berror\b|Error:|Exception\b", re.IGNORECASE)
_PROBLEM_LINE = re.compile(r"\berror\b|Error:|Exception\b|\bfail|\bwarn", re.IGNORECASE)  # a paste's problem lines
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n")
_SPAN = re.compile(r"`([^`\n]+)`")  # a code span inside a line
# An error about the command line itself (argparse's, a config's): its flags are then the problem, not the setup.
_ARGUMENT_ERROR = re.compile(
    r"unrecognized argument|unknown (?:argument|option|flag)|invalid choice|error: argument|no such option"
    r"|unexpected keyword argument|(?:argument|option|flag)s? (?:is |are )?not (?:recognized|supported|valid)"
    r"|无法识别|(?:参数|选项)(?:无效|错误|不存在)",
    re.IGNORECASE,
)


def _setup_command(line: str) -> bool:
    """A command line the user runs, starts or builds vLLM with (`is_command`), not its own error output."""
    stripped = line.strip()
    return is_command(stripped, builds=True) and not _ERROR.search(stripped)


def without_commands(text: str) -> str:
    """`text` without the command lines it pastes (`vllm serve …`, `python -m vllm…`, `docker run …`, `docker
    build …`, `pip install …`) and the lines a trailing backslash continues them on, nor such a command quoted inside
    a sentence as code (`` `docker build . --build-arg max_jobs=32` ``)."""
    out, continued = [], False
    for line in text.split("\n"):
        stripped = line.strip()
        if continued or _setup_command(stripped):  # `vllm serve: error: …` is output
            continued = stripped.endswith("\\")
            continue
        out.append(_SPAN.sub(lambda m: "" if _setup_command(m.group(1)) else m.group(0), line))
    return "\n".join(out)


def problem_part(text: str) -> str:
    """The problem: the message without its environment report, template chrome and command lines."""
    return without_commands(problem_text(text))


def problem_scope(text: str, part: str | None = None) -> str:
    """What went wrong, in the user's words: a question's problem part whole; a paste's first line (a report's title),
    its error lines and messages and the sentences that ask, not its traceback frames nor the lines around.
    `part`: `problem_part(text)`, when the caller has it."""
    if part is None:
        part = problem_part(text)
    if not is_paste(text):
        return part
    lines = [ln for ln in part.split("\n") if ln.strip()]
    asked = [s for s in _SENTENCE_END.split(part) if s.rstrip().endswith(("?", "？"))]
    errors = [ln for ln in lines if _PROBLEM_LINE.search(ln)]
    return "\n".join(dict.fromkeys([*lines[:1], *extract_signals(part).messages, *errors, *asked]))


def problem_names(text: str, paste: bool | None = None) -> frozenset[str]:
    """The flags and env vars the problem states (names only, `--x` / `VLLM_X`, flags as vLLM's parser spells them),
    not those of the user's setup.

    A short message is the question itself: the names of its problem part count (`problem_part`: not its
    environment report nor the command lines it pastes), and every name when its error is about the command line
    ("vllm serve x --turbo fails with unrecognized arguments") or the command is all there is. In a pasted report or
    log (`paste`; by default: longer than a question), only the names in an error message or in a sentence that asks
    something count; the command line and "we run it with `--tensor-parallel-size 4`" describe the setup.
    """
    if paste is None:
        paste = is_paste(text)
    if paste:
        part = problem_part(text)
        asked = [s for s in _SENTENCE_END.split(part) if s.rstrip().endswith(("?", "？"))]
        errors = [ln for ln in part.split("\n") if _ERROR.search(ln)]  # `vllm serve: error: …`, `ERROR 12-01 …`
        scope = "\n".join([*extract_signals(part).messages, *errors, *asked])
    else:
        part = problem_part(text)
        scope = text if _ARGUMENT_ERROR.search(text) or not part.strip() else part
    found = extract_signals(scope)
    return frozenset(canonical_flag(n.split("=", 1)[0]) for n in (*found.flags, *found.env_vars))


# A sentence ends at . ! ? followed by a space, at a Chinese full stop, exclamation or question mark (Chinese runs
# sentences on without a space), or at a line break.
_CLAUSE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")
_ASKS_EN = re.compile(
    r"^\W*(what|what's|how|which|why|where|when|does|do|did|is|are|can|could|should|would|will|shall|any)\b",
    re.IGNORECASE,
)
_ASKS_ZH = re.compile(r"什么|怎么|怎样|如何|为什么|为何|哪|是否|能否|可否|吗|呢")


def questioned_names(text: str) -> frozenset[str]:
    """The flags and env vars the message asks about: named in a sentence that asks ("what does --x default to?",
    "how do I set VLLM_X", "VLLM_X 是什么"), not in one that reports ("--x uses twice the memory it asks for",
    "VLLM_X=1 is silently ignored") nor in a command line. Flags as vLLM's parser spells them."""
    asking = []
    for sentence in _CLAUSE_END.split(without_commands(text)):
        s = sentence.strip()
        if s and (s.endswith(("?", "？")) or _ASKS_EN.search(s) or _ASKS_ZH.search(s)):
            asking.append(s)
    found = extract_signals("\n".join(asking))
    return frozenset(canonical_flag(n.split("=", 1)[0]) for n in (*found.flags, *found.env_vars))
