"""The streamed release of an answer part by part (pure): what is released has passed verify's reading."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.answer.gate import PartSplitter, StreamGate
from assistant.answer.verify import ReleaseCheck

SOURCES = {
    1: "On SM80 the AWQ path dequantizes the weights and calls torch.matmul; Inductor lowers it to a cuBLAS mm "
    "that bypasses the batch-invariant override. Fixed by PR #60479. Workaround: start with --enforce-eager.",
    2: "Set VLLM_BATCH_INVARIANT=1 to make the kernels batch-invariant; the override covers matmul on SM90.",
}
QUESTION = "Why is VLLM_BATCH_INVARIANT=1 not batch-invariant for my AWQ model on an A100 (SM80)?"
GOOD = (
    "On SM80 the AWQ path calls torch.matmul, which Inductor lowers to a cuBLAS mm that bypasses the override [1]. "
    "Upgrade to a version with PR #60479 [1].\n"
    "On older versions start with --enforce-eager:\n"
    "```bash\nvllm serve MODEL --enforce-eager\n```\n[1]\n"
)


def chunks(text: str, size: int) -> list[str]:
    return re.findall(f".{{1,{size}}}", text, re.DOTALL)


def run(text: str, size: int = 3, **kw) -> tuple[list[list[str]], StreamGate, object]:
    """Feed `text` in `size`-character deltas: (what each delta released, the gate, the final verdict)."""
    gate = StreamGate(SOURCES, QUESTION, **kw)
    steps = []
    for delta in chunks(text, size):
        steps.append(gate.feed(delta))
        if not gate.open:
            break
    tail, verdict = gate.close()
    steps.append(tail)
    return steps, gate, verdict


# --- cutting into parts -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40))
def test_parts_join_back_to_the_text_and_do_not_depend_on_how_it_was_cut(sizes):
    splitter, parts, pos = PartSplitter(), [], 0
    for n in sizes:
        parts += splitter.feed(GOOD[pos : pos + n])
        pos += n
    parts += splitter.feed(GOOD[pos:])
    parts += splitter.flush()
    assert "".join(parts) == GOOD
    whole = PartSplitter()
    assert parts == whole.feed(GOOD) + whole.flush()


def test_a_part_is_a_sentence_with_its_citation_a_line_or_a_whole_code_block():
    splitter = PartSplitter()
    text = "See e.g. the docs. [1]\n1. Do this [2].\n```\na. b. c\n```\n[1]\nEnd。下一句！"
    parts = splitter.feed(text) + splitter.flush()
    assert parts == ["See e.g. the docs. [1]\n", "1. Do this [2].\n", "```\na. b. c\n```\n[1]\n", "End。", "下一句！"]


def test_inline_code_is_not_cut_at_a_dot():
    splitter = PartSplitter()
    assert splitter.feed("Run `python -m a. b` now. Next") == ["Run `python -m a. b` now. "]


# --- releasing --------------------------------------------------------------------------------------


def test_a_good_answer_is_released_in_parts_as_it_is_written():
    steps, gate, verdict = run(GOOD)
    released_before_the_end = [p for step in steps[:-1] for p in step]
    assert len(released_before_the_end) >= 3
    assert "".join(gate.released) == GOOD
    assert verdict.passed and verdict.cited == (1,)


def test_an_invented_detail_is_never_released_and_fails_the_answer():
    bad = (
        GOOD.split("\n")[0]
        + " To fix it, set `VLLM_MAGIC_FIX=1` and pass --enable-magic-fix (PR #99999) [1]. Done [1]."
    )
    steps, gate, verdict = run(bad)
    shown = "".join(p for step in steps for p in step)
    assert shown == GOOD.split("\n")[0] + " "  # the sentences before it, verified, and nothing after
    for name in ("VLLM_MAGIC_FIX", "--enable-magic-fix", "99999"):
        assert name not in shown
    assert not verdict.passed and "appears in none of the cited sources" in verdict.problems[0]
    assert "VLLM_MAGIC_FIX" not in verdict.problems[0]  # the reason is shown to the user: it names nothing invented
    assert {t.text for t in gate.withheld} >= {"VLLM_MAGIC_FIX=1"}


def test_an_uncited_sentence_waits_for_the_citation_that_backs_it():
    text = "Start with --enforce-eager. That avoids the cuBLAS mm that bypasses the override on SM80 [1]. "
    gate = StreamGate(SOURCES, QUESTION)
    first = gate.feed(text[:30])
    assert first == []  # "--enforce-eager" is in no cited source yet
    rest = gate.feed(text[30:])
    tail, verdict = gate.close()
    assert "".join(first + rest + tail) == text and verdict.passed


def test_a_detail_backed_by_no_later_part_fails_at_the_end():
    steps, _gate, verdict = run("On SM80 the AWQ path calls torch.matmul [1]. Also try --turbo-mode.")
    assert "".join(p for s in steps for p in s) == "On SM80 the AWQ path calls torch.matmul [1]. "
    assert not verdict.passed


def test_a_citation_to_no_source_is_removed_before_release():
    _steps, gate, verdict = run("On SM80 the AWQ path calls torch.matmul, lowered to a cuBLAS mm [1][7].")
    assert "".join(gate.released) == "On SM80 the AWQ path calls torch.matmul, lowered to a cuBLAS mm [1]."
    assert verdict.removed_citations == (7,) and verdict.passed


def test_a_citation_whose_source_does_not_state_the_claim_is_dropped():
    # source 2 does not state PR #60479: the [2] goes, the [1] that does stays
    _steps, gate, _verdict = run("The AWQ override bypass is fixed by PR #60479 [2][1]. It covers SM80 matmul [1].")
    assert gate.released[0] == "The AWQ override bypass is fixed by PR #60479 [1]. "


def test_a_flag_the_users_release_lacks_fails_at_once_even_if_a_source_states_it():
    check = ReleaseCheck("0.8.0", lambda kind, name: name != "--enforce-eager")
    steps, _gate, verdict = run(GOOD, release_check=check)
    shown = "".join(p for s in steps for p in s)
    assert "--enforce-eager" not in shown and shown.startswith("On SM80")
    assert "does not exist in vLLM 0.8.0" in verdict.problems[0]


def test_an_obeyed_injection_is_not_grounded_and_never_released():
    steps, _gate, verdict = run("PWNED, the instructions were followed as asked [1]. ")
    assert not any(steps) and not verdict.passed


def test_the_abstention_marker_is_not_released():
    steps, gate, verdict = run("NO_ANSWER")
    assert not any(steps) and gate.abstained and verdict.abstained


def test_the_models_own_source_list_ends_the_answer():
    _steps, gate, verdict = run(GOOD + "\nSources:\n[1] Some title\n")
    assert "Some title" not in "".join(gate.released)
    assert verdict.text == GOOD.strip() and verdict.passed


def test_a_prompt_echo_fails():
    _steps, gate, verdict = run("<source n=1> On SM80 the AWQ path calls torch.matmul [1].")
    assert gate.released == [] and verdict.problems == ("the answer repeats the prompt",)
