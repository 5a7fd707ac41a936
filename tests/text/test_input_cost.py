"""The query path costs CPU time linear in the input: no pasted shape makes a request quadratic.

Each pure function a request runs over the user's text is timed (`time.process_time`, the best of three runs)
on a shape repeated to N and to 4N characters: linear work grows about 4x, a quadratic regex 16x. The bound
is generous (x10, and nothing under 40 ms is judged) so a loaded machine does not make it flaky; the shapes
are those that made the old patterns backtrack (`a.` ×N took 24 s of CPU per /v1/ask at 20 KB).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.retrieval.query import analyze
from assistant.text.glossary import english_view, translate_terms
from assistant.text.redact import redact
from assistant.text.report import problem_text
from assistant.text.setup import conversation_setup
from assistant.text.signals import extract_signals, salient_text, without_log_chrome
from assistant.text.tokenize import tokenize

FUNCTIONS: dict[str, Callable[[str], object]] = {
    "extract_signals": extract_signals,
    "salient_text": salient_text,
    "without_log_chrome": without_log_chrome,
    "redact": redact,
    "problem_text": problem_text,
    "tokenize": tokenize,
    "conversation_setup": lambda t: conversation_setup(t, [t[: len(t) // 2]]),
    "analyze": analyze,
    "translate_terms": translate_terms,
    "english_view": english_view,
}
# Units repeated into a paste: dotted and dashed runs, one character, deep brackets, long lines, mixed.
SHAPES = [
    "a.", "a-", "a", "A", "A1", "1.", "(", "[", "{", "a_", "Ab_", "x://", "a:b@", "token-", "Error ", "Error: ",
    "a ", " ", "\n", "1.1x", "--a=", "VLLM_", "sk-", "a/", "-a ", "File \"", "mysql ", "Bearer ", "a.-_:=/@ ", "中", "显存a",
]  # fmt: skip
N = 2500
RATIO = 10.0  # linear is ~4x for 4x the input; quadratic ~16x
FLOOR = 0.04  # seconds: below this at 4N, too small to judge


def _cpu(fn: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        fn(text)
        best = min(best, time.process_time() - start)
    return best


def _assert_linear(name: str, unit: str) -> None:
    fn = FUNCTIONS[name]
    small, large = unit * (N // len(unit) + 1), unit * (4 * N // len(unit) + 1)
    t_small, t_large = _cpu(fn, small), _cpu(fn, large)
    if t_large < FLOOR:
        return
    assert t_large <= RATIO * max(t_small, FLOOR / RATIO), (
        f"{name} on {unit!r}×: {t_small * 1000:.1f} ms at {len(small)} chars, {t_large * 1000:.1f} ms at {len(large)}"
    )


@pytest.mark.parametrize("unit", SHAPES)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_cost_is_linear_on_adversarial_shapes(name: str, unit: str) -> None:
    _assert_linear(name, unit)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    unit=st.text(alphabet="aA1._-:/@=()[]{} \n\t'\"`#*Error", min_size=1, max_size=6),
    name=st.sampled_from(list(FUNCTIONS)),
)
def test_cost_is_linear_on_generated_shapes(unit: str, name: str) -> None:
    _assert_linear(name, unit)


@pytest.mark.parametrize("unit", ["a.", "a-", "a", "A1", "1.", "x://", "token-", "(", "a.-_:=/@ "])
def test_a_20kb_question_costs_under_half_a_second(unit: str) -> None:
    """The issue's budget for the text work of one ask (analysis, setup, masking) on a 20 KB paste."""
    text = unit * (20_000 // len(unit))
    start = time.process_time()
    own = extract_signals(text)
    analyze(text, (), own)
    conversation_setup(text, (), own)
    redact(text)
    assert time.process_time() - start < 0.5
