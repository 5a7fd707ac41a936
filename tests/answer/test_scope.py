"""Applicability in words (`assistant/answer/scope.py`): the entry's side, the user's side, what to ask. Pure:
checks built by hand, in English and Chinese."""

from __future__ import annotations

from assistant.answer import scope
from assistant.answer.applicability import Applicability, Check

GPU_OFF = Check("gpu", "contradicts", ("SM80", "SM86", "SM89"), ("V100 (SM70)",))
GPU_UNKNOWN = Check("gpu", "unknown", ("SM90",))
AWQ = Check("quantization", "applies", ("awq",), ("awq",))
UNQUANTIZED_OR_FP8 = Check("quantization", "unknown", ("none", "fp8"))
FIXED_IN = Check("version", "unknown", ("0.31.0",), fixed=True)
SPECULATIVE = Check("feature", "unknown", ("on",), feature="speculative")
DEEP_GEMM = Check("feature", "unknown", ("off",), feature="deep_gemm")  # a default users seldom know: not asked
CRASH_OR_OOM = Check("symptom", "applies", ("crash", "oom"), ("crash",))
ERROR = Check("error", "applies", ("RuntimeError: x", "ValueError: y"), ("RuntimeError: x",))
MODEL = Check("model", "unknown", ("Qwen3",))


def test_the_entrys_side_of_each_kind_of_condition() -> None:
    assert scope.needs(GPU_OFF, "en") == "GPU SM80, SM86, SM89"
    assert scope.needs(AWQ, "en") == "quantization AWQ"
    assert scope.needs(UNQUANTIZED_OR_FP8, "en") == "quantization unquantized, FP8"
    assert scope.needs(FIXED_IN, "en") == "vLLM version without the fix (fixed in 0.31.0)"
    assert scope.needs(SPECULATIVE, "en") == "speculative decoding on"
    assert scope.needs(DEEP_GEMM, "en") == "DeepGEMM kernels off"
    assert scope.needs(CRASH_OR_OOM, "en") == "symptom a crash with an error / running out of memory"
    assert scope.needs(ERROR, "en") == "error message `RuntimeError: x` | `ValueError: y`"
    assert scope.needs(MODEL, "en") == "model Qwen3"


def test_in_chinese_the_label_and_value_join_with_wei() -> None:
    assert scope.needs(GPU_OFF, "zh") == "GPU为SM80, SM86, SM89"
    assert scope.needs(UNQUANTIZED_OR_FP8, "zh") == "量化方式为未量化, FP8"
    assert scope.needs(FIXED_IN, "zh") == "vLLM 版本为不含修复（修复于 0.31.0）"
    assert scope.needs(SPECULATIVE, "zh") == "投机解码为开启"
    assert scope.has(GPU_OFF, "zh") == "GPU为V100 (SM70)"


def test_the_users_side_is_what_they_said_or_a_question_mark() -> None:
    assert scope.has(GPU_OFF, "en") == "GPU V100 (SM70)"
    assert scope.has(CRASH_OR_OOM, "en") == "symptom a crash with an error"
    assert scope.has(ERROR, "en") == "`RuntimeError: x`"  # the error they pasted, without a label
    assert scope.has(MODEL, "en") == scope.has(MODEL, "zh") == "?"


def test_the_scope_line_lists_every_condition_but_the_error_strings() -> None:
    app = Applicability((GPU_OFF, AWQ, ERROR, CRASH_OR_OOM))
    assert scope.scope_line(app, "en") == (
        "GPU SM80, SM86, SM89 · quantization AWQ · symptom a crash with an error / running out of memory"
    )
    assert scope.scope_line(Applicability(), "en") == ""


def test_a_contradiction_pairs_what_the_entry_needs_with_what_the_user_has() -> None:
    off = Check("quantization", "contradicts", ("awq",), ("fp8",))
    app = Applicability((GPU_OFF, AWQ, off))
    assert scope.contradiction(app, "en") == ("GPU SM80, SM86, SM89; quantization AWQ", "GPU V100 (SM70); quantization FP8")
    assert scope.contradiction(app, "zh") == ("GPU为SM80, SM86, SM89；量化方式为AWQ", "GPU为V100 (SM70)；量化方式为FP8")
    assert scope.contradiction(Applicability((AWQ,)), "en") == ("", "")


def test_questions_ask_about_the_most_decisive_unknowns_only() -> None:
    app = Applicability((AWQ, SPECULATIVE, DEEP_GEMM, FIXED_IN, MODEL, GPU_UNKNOWN))
    assert scope.questions(app, "en") == ["Which GPU do you run on?", "Which vLLM version do you run (vllm --version)?"]
    assert scope.questions(app, "zh") == ["您使用的是哪款 GPU？", "您的 vLLM 版本是多少（vllm --version）？"]
    assert len(scope.questions(app, "en", limit=4)) == 4
    assert scope.questions(Applicability((DEEP_GEMM, CRASH_OR_OOM)), "en") == []  # a default, and a symptom


def test_the_depends_line_names_the_conditions_then_asks() -> None:
    app = Applicability((AWQ, FIXED_IN, GPU_UNKNOWN))
    assert scope.depends_line(app, "en") == (
        "**Whether this applies depends on**: GPU SM90; vLLM version without the fix (fixed in 0.31.0). "
        "To confirm, tell me: Which GPU do you run on? Which vLLM version do you run (vllm --version)?"
    )
    zh = scope.depends_line(app, "zh")
    assert zh.startswith("**是否适用取决于**：GPU为SM90；vLLM 版本为不含修复（修复于 0.31.0）")
    assert zh.endswith("请告诉我：您使用的是哪款 GPU？ 您的 vLLM 版本是多少（vllm --version）？")
    assert scope.depends_line(Applicability((AWQ, DEEP_GEMM)), "en") == ""  # nothing worth asking
