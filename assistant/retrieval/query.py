"""From raw user text to the inputs of each retrieval channel (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.models import Query, Signals, Turn
from assistant.text.glossary import english_view, translate_terms
from assistant.text.gpus import gpu_terms
from assistant.text.lang import detect_lang
from assistant.text.platforms import user_platforms
from assistant.text.problem import problem_scope, without_commands
from assistant.text.report import problem_text
from assistant.text.signals import extract_signals, salient_text, without_log_chrome
from assistant.text.software import names_vllm
from assistant.text.tokenize import tokenize

_NUMERIC = re.compile(r"^[\d.,:%_-]+[a-z]{0,3}$")  # 896.00, 23.55, 70b, 1.2%, 8000:8000
# What identifies one run rather than a problem: memory addresses and hashes, a setting's value (its name is a token
# of its own), file paths and URLs (their parts are tokens of their own), IP addresses.
# Each test is a scan of the token (a regex with `[0-9a-f]*\d[0-9a-f]*[a-f]` backtracked cubically on a long run of
# letters: a pasted "aaaa…" of 10,000 characters took 0.9 s).
_HEX = frozenset("0123456789abcdef")
_IPV4 = re.compile(r"\d+\.\d+\.\d+\.\d+")  # 10.0.3.17 (matched at the start)


def _run_specific_shape(token: str) -> bool:
    """0x7f9b.. and a3f9c2e1.. (hex with a digit and a letter); a setting's value (port=443,
    modelscope==1.22.3, max_position_embeddings=32768); a path or URL with two slashes; an IPv4 address."""
    if token.startswith("0x") and len(token) > 2 and set(token[2:]) <= _HEX:
        return True
    chars = set(token)
    if chars <= _HEX and chars & set("0123456789") and chars & set("abcdef"):
        return True
    eq = token.find("=")
    if eq >= 0 and any(c.isdigit() for c in token[eq + 1 :]):
        return True
    return token.count("/") >= 2 or bool(_IPV4.match(token))


def problem_setup_free(tokens: list[str], signals: Signals) -> list[str]:
    """The tokens that describe the problem, not the user's setup: evidence is measured on these.

    The model name, the GPU, the versions and the numbers in a report vary from user to user; a known
    problem is recognized by what went wrong, so a chunk is not less relevant for lacking them.
    """
    setup = {t for s in signals.models + signals.gpus + signals.versions for t in tokenize(s)}
    return [t for t in tokens if t not in setup and not _NUMERIC.match(t) and not _is_run_specific(t)]


def _is_run_specific(token: str) -> bool:
    return (len(token) >= 8 or "=" in token or "/" in token) and _run_specific_shape(token)


# Fewer words than this left once the command lines are out: the command is the question ("vllm serve x --turbo fails").
_MIN_PROBLEM_TOKENS = 4


def lexical_source(problem: str, part: str) -> str:
    """What the lexical channel reads of a message's problem (`problem_text`): `part`, the problem without the command
    lines it pastes (`without_commands`).

    The flags, env vars and model a user's own command passes are their setup, not their problem; counted as query
    words they rank the sections and entries about those flags (the CUDA_VISIBLE_DEVICES entry for any problem of a
    server started with `CUDA_VISIBLE_DEVICES=0,1 vllm serve …`) above the one about what went wrong. A message that
    is little more than its command keeps it.
    """
    return part if len(tokenize(part)) >= _MIN_PROBLEM_TOKENS else problem


def analyze(
    text: str, earlier: Sequence[str] = (), signals: Signals | None = None, chinese_words: bool = False
) -> Query:
    """`earlier`: the user's previous turns, where the platform they run may have been said ("we are on MI300X").
    `signals`: `extract_signals(text)` when the caller has them already (each pass over a 20 KB paste costs).
    `chinese_words`: `Settings.chinese_prose_words`, passed to `salient_text`."""
    lang = detect_lang(text)
    if signals is None:
        signals = extract_signals(text)  # the setup (versions, GPUs, models) is read from everything pasted
    problem = problem_text(text)  # retrieval reads the problem: no environment dump, no issue-template chrome
    focus = salient_text(problem, chinese_words=chinese_words)
    part = without_commands(problem)
    lexical_problem = lexical_source(problem, part)
    # Every line but its log chrome: any line may be the one that matters.
    tokens = tokenize(without_log_chrome(lexical_problem))
    # Signals found anywhere in the problem count again: they are what identifies a known problem.
    problem_signals = signals if lexical_problem == text else extract_signals(lexical_problem)
    for term in problem_signals.messages + problem_signals.strong_terms():
        tokens.extend(tokenize(term))
    focus_tokens = problem_setup_free(tokenize(focus), signals)
    # What went wrong, not what the user runs: no command line, traceback frame nor setup term.
    own_problem = problem_setup_free(tokenize(without_log_chrome(problem_scope(text, part))), signals)
    hardware = list(dict.fromkeys(t for gpu in signals.gpus for t in gpu_terms(gpu)))
    if hardware:  # "A100" also means Ampere / SM80, as entries and docs often say
        tokens.extend(tokenize(" ".join(hardware)))
        focus_tokens.extend(tokenize(" ".join(hardware)))
        focus = f"{focus}\n({', '.join(hardware)})"
    if lang == "zh":
        dense_text = english_view(focus) or focus
        for phrase in translate_terms(problem):
            tokens.extend(tokenize(phrase))
            focus_tokens.extend(tokenize(phrase))
    else:
        dense_text = focus
    return Query(
        text=text,
        lang=lang,
        signals=signals,
        dense_text=dense_text,
        lexical_tokens=tuple(tokens),
        focus_tokens=tuple(focus_tokens),
        english_tokens=tuple(problem_setup_free(tokenize(dense_text), signals)) if lang == "zh" else (),
        platforms=_platforms(text, signals, earlier),
        vllm_unnamed=not any(names_vllm(t) for t in (text, *earlier)),
        focus_text=focus,
        problem_tokens=tuple(own_problem),
    )


def _platforms(text: str, signals: Signals, earlier: Sequence[str]) -> frozenset[str]:
    """The platforms the user names in this message or an earlier one: a platform said once still holds."""
    if not earlier:
        return user_platforms(text, signals.gpus)
    said = "\n".join([*earlier, text])
    return user_platforms(said, extract_signals(said).gpus)


def contextualize(question: str, history: list[Turn] | None, own: Signals | None = None) -> str:
    """The text to retrieve with: a follow-up that names no problem of its own borrows the last user turn.

    "and on H100?" or "what about the workaround" say nothing retrievable; a new pasted error does.
    `own`: the question's signals, when the caller has them.
    """
    if not history:
        return question
    own = own or extract_signals(question)
    if own.messages or len(own.strong_terms()) >= 2 or len(question) > 300:
        return question
    previous = [t.content for t in history if t.role == "user" and t.content.strip()]
    return f"{previous[-1]}\n{question}" if previous else question
