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
from assistant.text.report import is_environment_line, is_template_line, problem_text
from assistant.text.signals import extract_signals, is_command
from assistant.text.software import title_subject

_ERROR = re.compile(r"\berror\b|Error:|Exception\b", re.IGNORECASE)
_PROBLEM_LINE = re.compile(r"\berror\b|Error:|Exception\b|\bfail|\bwarn", re.IGNORECASE)  # a paste's problem lines
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n")


def without_commands(text: str) -> str:
    """`text` without the command lines it pastes (`vllm serve …`, `python -m vllm…`, `docker run …`) and the
    lines a trailing backslash continues them on."""
    out, continued = [], False
    for line in text.split("\n"):
        stripped = line.strip()
        if continued or (is_command(stripped) and not _ERROR.search(stripped)):  # `vllm serve: error: …` is output
            continued = stripped.endswith("\\")
            continue
        out.append(line)
    return "\n".join(out)


def problem_part(text: str) -> str:
    """The problem: the message without its environment report, template chrome and command lines."""
    return without_commands(problem_text(text))


def problem_scope(text: str, problem: str | None = None) -> str:
    """What went wrong, in the user's words: a question's problem part whole; a paste's first line (a report's title),
    its error lines and messages and the sentences that ask, not its traceback frames nor the lines around.
    `problem`: `problem_text(text)`, when the caller has it."""
    part = without_commands(problem if problem is not None else problem_text(text))
    if not is_paste(text):
        return part
    lines = [ln for ln in part.split("\n") if ln.strip()]
    asked = [s for s in _SENTENCE_END.split(part) if s.rstrip().endswith(("?", "？"))]
    errors = [ln for ln in lines if _PROBLEM_LINE.search(ln)]
    return "\n".join(dict.fromkeys([*lines[:1], *extract_signals(part).messages, *errors, *asked]))


def problem_names(text: str, paste: bool | None = None) -> frozenset[str]:
    """The flags and env vars the problem states (names only, `--x` / `VLLM_X`, flags as vLLM's parser spells them),
    not those of the user's setup.

    A short message is the question itself, command line included ("vllm serve x --turbo fails with unrecognized
    arguments"): every name counts. In a pasted report or log (`paste`; by default: longer than a question), only
    the names in an error message or in a sentence that asks something count; the command line and "we run it
    with `--tensor-parallel-size 4`" describe the setup.
    """
    if paste is None:
        paste = is_paste(text)
    if paste:
        part = problem_part(text)
        asked = [s for s in _SENTENCE_END.split(part) if s.rstrip().endswith(("?", "？"))]
        errors = [ln for ln in part.split("\n") if _ERROR.search(ln)]  # `vllm serve: error: …`, `ERROR 12-01 …`
        scope = "\n".join([*extract_signals(part).messages, *errors, *asked])
    else:
        scope = text
    found = extract_signals(scope)
    return frozenset(canonical_flag(n.split("=", 1)[0]) for n in (*found.flags, *found.env_vars))


# A title that asks: a question mark, an issue tag of a question (`[Usage]`, `[Question]`, `[Feature]`, `[Doc]`,
# `[RFC]`, `[Help]`), the words an English question opens with, or a Chinese question's words.
_ASKS = re.compile(
    r"[?？]|\[\s*(?:usage|question|feature|doc|docs|documentation|rfc|help|installation|misc)\b|"
    r"如何|怎么|怎样|请问|能否|能不能|可以|是否|吗|为什么|为何",
    re.IGNORECASE,
)
_ASKS_OPENING = re.compile(
    r"(?:how|why|what|which|where|when|can|could|is there|are there|does|do|should|is it|any way)\b", re.IGNORECASE
)
_FENCE_LINE = re.compile(r"(?:```|~~~)\S*$")


def only_title(text: str) -> str | None:
    """The title of a report that says nothing else: every other line an environment report's (`collect_env.py`'s
    `Key : value` lines, its library list, its banners) or template chrome. None for any other message.

    Such a report states its problem in one line and gives no error line, log, command or steps."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    rest = [ln for ln in lines[1:] if not _FENCE_LINE.match(ln) and not is_template_line(ln)]
    if len(rest) < 2 or not all(is_environment_line(ln) for ln in rest):
        return None
    return lines[0]


def defect_without_evidence(text: str) -> bool:
    """A report whose whole content is a title that states a defect, over an environment report: it asks nothing
    (no question mark, no "how", "如何"…) and holds no error message (`ValueError: …`), so there is nothing to tell
    one known problem from another by. A source that shares the title's words is a guess at which bug it is, and an
    open bug is reported this way as often as a known one: the answer abstains and asks for the error and the log.
    """
    title = only_title(text)
    if title is None or _ASKS.search(title) or _ASKS_OPENING.match(title_subject(title)) or _ERROR.search(title):
        return False
    return not extract_signals(title).messages


# The user says a setting they made does not take effect: "is ignored", "has no effect", "silently drops",
# "although passing X", "even when …", "无效", "不生效". ("still" is left out: "still OOM" after a change of
# something else says nothing about the setting.)
_INEFFECTIVE = re.compile(
    r"\b(?:ignored|ineffective|(?:has|had|have|with) no effect|no effect|not (?:take|taking|taken) effect|"
    r"(?:doesn'?t|does not|didn'?t|did not|don'?t|do not) (?:work|help|change|take effect|seem to work|apply)|"
    r"not work(?:ing)?|silently|even (?:when|with|after|though|if)|although|despite|regardless)\b|"
    r"无效|不生效|没有效果|没有用|不起作用|没起作用|仍然|依然|照样",
    re.IGNORECASE,
)


def setting_names(text: str) -> frozenset[str]:
    """The flags and env vars a text names, as vLLM's parser spells them (`--x`, `VLLM_X`)."""
    found = extract_signals(text)
    return frozenset(canonical_flag(n.split("=", 1)[0]) for n in (*found.flags, *found.env_vars))


def tried_already(source: str, text: str) -> bool:
    """Whether what a source recommends is what the user says they already did, to no effect: every flag and env var
    the source's text names is in the user's message, and the message says a setting did not take effect ("is
    ignored", "although passing VLLM_HOST_IP", "无效"). Telling them to set it again is not a fix."""
    recommended = setting_names(source)
    if not recommended or not recommended <= setting_names(text):
        return False
    return bool(_INEFFECTIVE.search(problem_part(text)))
