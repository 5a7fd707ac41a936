"""Whether a docs section speaks of a pasted error (pure).

A pasted report or log is about one failure. A docs section is written about a feature, a setting or a page of
the manual. When it is about the user's failure it says so in the failure's words (the error message, or the name
of an exception that only this problem raises), or it names in code what the paste shows failing (the package an
import error lacks, `cohere_melody`; the call a traceback ends in, `self.graph.replay()`). Over the fresh batches of
real threads (eval/README.md, "A docs section alone does not answer a pasted error"), a paste whose only support was
a docs section that did neither was an open bug or another product's problem far more often than a problem the
section fixes.
"""

from __future__ import annotations

import builtins
import re

from assistant.models import Signals
from assistant.text.signals import EXCEPTION_PREFIX

# A message's words are compared from its start for this many characters: enough to be the error and not a
# phrase any page says ("CUDA out of memory. Tried to allocate" ends far after it), short enough that the section
# need not quote the sizes and paths that follow.
QUOTE_CHARS = 40
# `ValueError`, `RuntimeError`, `KeyError`: Python's own exceptions say what kind of failure, not which one.
_BUILTIN_EXCEPTIONS = frozenset(
    name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)
)
_QUOTES = re.compile(r"[`'\"“”‘’]")
_SPACE = re.compile(r"\s+")
# A section's code span that names one thing in code: a snake_case name, a dotted name or call, a path
# (`cohere_melody`, `self.graph.replay()`, `vllm/worker/model_runner.py`); not a flag, a setting's value, a command.
_SPAN = re.compile(r"`([^`\n]{6,80})`")
_CODE_NAME = re.compile(r"[a-z_][a-z0-9_]*(?:_[a-z0-9_]+|(?:[./][a-z0-9_]+)+)(?:\(\))?")


def _plain(text: str) -> str:
    """Lower case, no quotes or backticks, one space between words: how a page and a log differ in print."""
    return _SPACE.sub(" ", _QUOTES.sub("", text.replace("\\n", " "))).strip().lower()


def error_quotes(signals: Signals) -> tuple[str, ...]:
    """What a section would say if it spoke of the pasted error: each message without its exception's name
    (`ImportError: The Cohere reasoning parser requires…` -> `the cohere reasoning parser requires…`), and the
    names of exceptions that are not Python's own (`OutOfMemoryError`, `TemplateError`)."""
    said = []
    for message in signals.messages:
        words = _plain(EXCEPTION_PREFIX.sub("", message.strip()))[:QUOTE_CHARS].strip()
        if len(words) >= 12:  # "Error: 1" says nothing
            said.append(words)
    said += [e.lower() for e in signals.exceptions if e not in _BUILTIN_EXCEPTIONS]
    return tuple(dict.fromkeys(said))


def code_names(section_text: str) -> frozenset[str]:
    """The code names a section writes as code spans (see `_CODE_NAME`), lower case."""
    spans = (m.group(1).strip() for m in _SPAN.finditer(section_text))
    return frozenset(s for s in spans if _CODE_NAME.fullmatch(s))


def speaks_of(section_text: str, quotes: tuple[str, ...], problem: str) -> bool:
    """True when the section says one of `quotes` (from `error_quotes`), or one of its code names is in `problem`
    (the paste's problem part: no command line, no environment report, so not what the user runs)."""
    text = _plain(section_text)
    if any(q in text for q in quotes):
        return True
    problem = problem.lower()
    return any(name in problem for name in code_names(section_text))
