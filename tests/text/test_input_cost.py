"""The query path costs CPU time linear in the input: no pasted shape makes a request quadratic.

Each pure function a request runs over the user's text is timed (`time.process_time`, the best of three runs)
on a shape repeated to N and to 4N characters: linear work grows about 4x, a quadratic regex 16x. The bound
(tests/helpers/cost.py) is generous (x10, and nothing under 40 ms is judged) so a loaded machine does not make
it flaky; the shapes are those that made the old patterns backtrack (`a.` ×N took 24 s of CPU per /v1/ask at 20 KB).
"""

from __future__ import annotations

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
from tests.helpers.cost import assert_linear_cpu

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


def _assert_linear(name: str, unit: str) -> None:
    assert_linear_cpu(FUNCTIONS[name], unit, N, name)


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


def _text_work(text: str) -> None:
    """The text work of one ask (analysis, setup, masking), the question's signals read once."""
    own = extract_signals(text)
    analyze(text, (), own)
    conversation_setup(text, (), own)
    redact(text)


@pytest.mark.parametrize("unit", ["a.", "a-", "a", "A1", "1.", "x://", "token-", "(", "a.-_:=/@ "])
def test_the_text_work_of_a_20kb_question_grows_linearly(unit: str) -> None:
    """All of one ask's text work together, at 5 KB and at 20 KB. The issue's 0.5 s budget for it is a speed
    goal: benchmarks/bench_input_cost.py prints it, so a slow CI machine does not fail here."""
    assert_linear_cpu(_text_work, unit, 5_000, "the text work of one ask")
