"""Each entry condition against a setup: applies, contradicts or unknown; the curated entries' conditions load."""

from pathlib import Path

import pytest

from assistant.answer.applicability import Applicability, assess, assess_all
from assistant.entry import Conditions, Entry
from assistant.errors import LoadError
from assistant.ingest.entries import parse_entry
from assistant.settings import REPO_ROOT
from assistant.text.setup import extract_setup

ENTRIES = {
    p.stem: parse_entry(p.read_text(encoding="utf-8"), str(p)) for p in (REPO_ROOT / "corpus/entries").glob("*.yaml")
}


def _entry(**conditions) -> Entry:
    return Entry(
        id="x-entry", title={"en": "t"}, root_cause={"en": "r"}, fix={"en": "f"}, source="s",
        error_strings=conditions.pop("error_strings", []), conditions=Conditions(**conditions),
    )  # fmt: skip


def _verdicts(entry: Entry, text: str) -> dict[str, str]:
    return {c.feature or c.detail: c.verdict for c in assess(entry, extract_setup(text), text).checks}


def test_every_curated_entry_states_typed_conditions():
    for entry_id, entry in ENTRIES.items():
        assert entry.conditions.symptoms, f"{entry_id}: no symptom class"


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("on an A100", "applies"),
        ("RTX 3090", "applies"),
        ("on a V100", "contradicts"),
        ("H100", "contradicts"),
        ("Ampere card", "applies"),  # SM80 or SM86: both covered
        ("", "unknown"),
    ],
)
def test_hardware(text, verdict):
    assert _verdicts(_entry(hardware=["SM80", "SM86", "SM89"]), text)["gpu"] == verdict


def test_a_family_that_may_be_in_or_out_is_unknown():
    assert _verdicts(_entry(hardware=["SM120"]), "a Blackwell GPU")["gpu"] == "unknown"


@pytest.mark.parametrize(
    "text, verdict",
    [("vllm 0.20.1", "applies"), ("vllm==0.21.0", "applies"), ("vLLM 0.25.0", "contradicts"), ("", "unknown")],
)
def test_affected_versions(text, verdict):
    assert _verdicts(_entry(affected_versions=">=0.20.0,<=0.21.0"), text)["version"] == verdict


def test_a_release_with_the_fix_contradicts_and_nightly_counts_as_newest():
    entry = _entry(affected_versions=">=0.20.0", fixed_in=">=0.22.0")
    assert _verdicts(entry, "vllm 0.22.1")["version"] == "contradicts"
    assert _verdicts(entry, "vllm 0.21.0")["version"] == "applies"
    assert _verdicts(_entry(affected_versions=">=0.32.0"), "on the nightly build")["version"] == "applies"
    assert _verdicts(_entry(affected_versions="==0.31.0"), "nightly")["version"] == "contradicts"


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("deepseek-ai/DeepSeek-V4.1-Flash-1017", "applies"),
        ("DeepSeek-V4.1", "unknown"),  # less precise than the entry's checkpoint
        ("Llama-3.1-8B-Instruct", "contradicts"),
        ("", "unknown"),
    ],
)
def test_models(text, verdict):
    assert _verdicts(_entry(models=["DeepSeek-V4.1-Flash-1017"]), text)["model"] == verdict


@pytest.mark.parametrize(
    "text, verdict", [("Qwen3-8B-AWQ", "applies"), ("a GPTQ model", "contradicts"), ("the bf16 model", "contradicts")]
)
def test_quantization(text, verdict):
    assert _verdicts(_entry(quantization=["awq"]), text)["quantization"] == verdict


def test_features_on_off_method_and_a_feature_switched_off():
    entry = _entry(features={"speculative": True, "speculative_method": ["dspark"]})
    assert _verdicts(entry, "--speculative-config '{\"method\":\"dspark\"}'") == {
        "speculative": "applies", "speculative_method": "applies"}  # fmt: skip
    assert _verdicts(entry, "EAGLE speculative decoding")["speculative_method"] == "contradicts"
    assert _verdicts(entry, "no speculative decoding")["speculative"] == "contradicts"
    assert _verdicts(entry, "it crashes")["speculative"] == "unknown"


@pytest.mark.parametrize(
    "symptoms, text, verdict",
    [
        (["nondeterministic"], "outputs differ between runs", "applies"),
        (["nondeterministic"], "throughput is very low", "contradicts"),
        (["illegal_memory_access"], "it crashed", "unknown"),  # a crash may be that crash
        (["illegal_memory_access"], "CUDA out of memory", "contradicts"),
        (["crash"], "", "unknown"),
        # a request the server refused is an error, whatever else the user shouts ("Error!!!!" reads as "!!!!" output)
        (["crash"], "Error!!!! Error code: 400 - {'message': 'At most 1 image(s) may be provided in one request.'}",
         "applies"),
    ],
)
def test_symptoms(symptoms, text, verdict):
    assert _verdicts(_entry(symptoms=symptoms), text)["symptom"] == verdict


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("torch.OutOfMemoryError: CUDA out of memory while loading", "applies"),
        ("启动时显存不足", "applies"),
        ("loading the weights from NFS takes forever", "contradicts"),  # no symptom of its own named: not this one
        ("outputs differ between runs", "contradicts"),
    ],
)
def test_a_problem_known_by_its_symptom_alone_needs_the_symptom_named(text, verdict):
    assert _verdicts(_entry(symptoms=["oom"], symptom_named=True), text)["symptom"] == verdict


def test_an_error_message_decides_a_bare_exception_name_does_not():
    entry = _entry(error_strings=["RuntimeError: not home_path.empty()"])
    assert _verdicts(entry, "RuntimeError: not home_path.empty()")["error"] == "applies"
    assert (
        _verdicts(entry, "CUDA error: no kernel image is available for execution on the device")["error"]
        == "contradicts"
    )
    assert _verdicts(entry, "FP8 model crashes on startup")["error"] == "unknown"
    assert "error" not in _verdicts(_entry(error_strings=["EngineDeadError"]), "HTTP 500 from the server")


def test_a_message_is_also_read_without_its_head_only_when_the_rest_is_a_message():
    cuda = _entry(error_strings=["CUDA error: an illegal memory access was encountered"])
    assert _verdicts(cuda, "torch.AcceleratorError: an illegal memory access was encountered")["error"] == "applies"
    # the tail of these is one word: a user's "Too many open files" or own `--task generate` is not the message
    part = _entry(error_strings=["Unknown part type: file"], error_named=True)
    assert _verdicts(part, "OSError: [Errno 24] Too many open files")["error"] == "contradicts"
    assert _verdicts(part, "NotImplementedError: Unknown part type: file")["error"] == "applies"
    task = _entry(error_strings=["unrecognized arguments: --task"])
    assert _verdicts(task, "vllm serve m --task generate\nValueError: bad config here")["error"] == "contradicts"


def test_an_error_message_matches_with_or_without_its_markdown_backticks():
    # transformers raises "`rope_scaling` must be ..."; a paste from a rendered page has lost the backticks
    entry = _entry(error_strings=["`rope_scaling` must be a dictionary with two fields, `type` and `factor`"])
    pasted = 'File "arg_utils.py", line 9\nValueError: rope_scaling must be a dictionary with two fields, type and factor'
    assert _verdicts(entry, pasted)["error"] == "applies"
    assert _verdicts(entry, "ValueError: rope_scaling must be a dictionary with three fields")["error"] == "contradicts"
    # an exception raised with several string arguments prints as their tuple; its pieces make the message
    scheme = _entry(error_strings=["Quantization scheme is not supported for the current GPU"])
    tuple_paste = "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ')"
    assert _verdicts(scheme, tuple_paste)["error"] == "applies"
    dict_paste = "NotFoundError: 404 - {'message': 'The model `x` does not exist.', 'type': 'NotFoundError', 'code': 404}"
    assert _verdicts(_entry(error_strings=["'type': 'NotFoundError'"]), dict_paste)["error"] == "applies"
    # quote marks stay part of the message: a bare class name in a client's line is not the server's error body
    named = _entry(error_strings=["'type': 'NotFoundError'"])
    assert _verdicts(named, "openai.NotFoundError: Error code: 404 - {'detail': 'Not Found'}")["error"] == "contradicts"
    assert _verdicts(named, "{'message': 'x', 'type': 'NotFoundError'}")["error"] == "applies"


def test_seed_entry_against_the_issue_examples():
    awq = ENTRIES["awq-batch-invariance-sm80"]
    v100 = "VLLM_BATCH_INVARIANT=1 on a V100, outputs still differ"
    app = assess(awq, extract_setup(v100), v100)
    assert [(c.detail, c.needs, c.have) for c in app.contradicted] == [
        ("gpu", ("SM80", "SM86", "SM89"), ("V100 (SM70)",))
    ]
    slow = "A100 上 AWQ 模型吞吐很低"
    assert [c.detail for c in assess(awq, extract_setup(slow), slow).contradicted] == ["symptom"]
    fits = "VLLM_BATCH_INVARIANT=1 with Qwen3-8B-AWQ on an RTX 3090: logprobs differ with the batch size"
    app = assess(awq, extract_setup(fits), fits)
    assert not app.contradicted and not app.asks()  # eager mode unsaid: vLLM's default, not asked about


def test_unknown_deciding_conditions_are_asked_most_decisive_first_not_defaults():
    app = assess(
        ENTRIES["deepgemm-fp8-home-path-empty"], extract_setup("not home_path.empty()"), "not home_path.empty()"
    )
    assert [c.detail for c in app.asks()] == ["gpu", "quantization"]
    assert all(c.feature != "deep_gemm" for c in app.asks(10))  # vLLM picks DeepGEMM itself: users cannot say


@pytest.mark.parametrize(
    "conditions, reason",
    [
        ("conditions: {affected_versions: 'around 0.20'}", "version specifier"),
        ("conditions: {hardware: [A100]}", "SM codes"),
        ("conditions: {quantization: [awq4]}", "unknown quantization"),
        ("conditions: {symptoms: [sad]}", "symptoms"),
        ("conditions: {features: {speculative_method: [magic]}}", "speculative_method"),
        ("conditions: {gpu: [SM80]}", "gpu"),
    ],
)
def test_bad_conditions_say_what_is_accepted(conditions, reason):
    text = "id: bad-entry\ntitle: {en: t}\nroot_cause: {en: r}\nfix: {en: f}\nsource: s\n" + conditions
    with pytest.raises(LoadError, match=reason):
        parse_entry(text, str(Path("bad-entry.yaml")))


def test_an_unnamed_symptom_rules_an_entry_out_without_the_user_having_said_otherwise():
    entry = _entry(symptoms=["oom"], symptom_named=True)
    unnamed = assess(entry, extract_setup("loading from NFS takes forever"), "loading from NFS takes forever")
    other = assess(entry, extract_setup("outputs differ between runs"), "outputs differ between runs")
    assert unnamed.contradicted and not unnamed.said_otherwise  # not listed as "not the fix here"
    assert other.contradicted and other.said_otherwise


def test_assess_all_assesses_each_entry_and_never_rules_out_a_non_entry_source():
    text = "VLLM_BATCH_INVARIANT=1 with my AWQ model on a V100, outputs still differ"
    setup = extract_setup(text)
    awq, deepgemm = ENTRIES["awq-batch-invariance-sm80"], ENTRIES["deepgemm-fp8-home-path-empty"]
    results = assess_all([awq, None, deepgemm, None], setup, text)
    assert len(results) == 4
    assert results[0] == assess(awq, setup, text) and results[0].verdict == "contradicts"
    assert [c.detail for c in results[0].contradicted] == ["gpu"] and results[0].said_otherwise
    assert results[1] == results[3] == Applicability() and results[1].verdict == "applies"  # docs, Q&A: no conditions
    assert results[2] == assess(deepgemm, setup, text)
    assert assess_all([], setup, text) == []


def test_a_behaviour_that_began_in_a_release_does_not_apply_before_it():
    entry = Entry(id="x-entry", title={"en": "t"}, root_cause={"en": "r"}, fix={"en": "f"}, source="s",
                  introduced_in="0.10.0")  # fmt: skip
    assert entry.conditions.introduced_in == "0.10.0"
    assert _verdicts(entry, "vllm 0.9.2")["version"] == "contradicts"
    assert _verdicts(entry, "vllm 0.10.0")["version"] == "applies"
    assert _verdicts(entry, "on nightly")["version"] == "applies"
    assert _verdicts(entry, "")["version"] == "unknown"
    app = assess(entry, extract_setup("vllm 0.9.2"), "vllm 0.9.2")
    assert app.said_otherwise and app.contradicted[0].introduced


@pytest.mark.parametrize(
    "field, text, condition",
    [
        ("fixed_in", "0.8.0", ">=0.8.0"),
        ("fixed_in", "v0.8.0", ">=0.8.0"),
        ("fixed_in", ">=0.8.1", ">=0.8.1"),
        ("fixed_in", "builds that include PR #44401", None),
        ("affected_versions", "0.7.3", "==0.7.3"),
        ("affected_versions", ">=0.7.0,<0.8.0", ">=0.7.0,<0.8.0"),
        ("affected_versions", "vLLM v0.20.0–v0.21.0", None),
        ("affected_versions", "unknown", None),
    ],
)
def test_a_top_level_version_written_as_a_specifier_is_also_the_condition(field, text, condition):
    entry = Entry(id="x-entry", title={"en": "t"}, root_cause={"en": "r"}, fix={"en": "f"}, source="s", **{field: text})
    assert getattr(entry.conditions, field) == condition
    assert getattr(entry, field) == text  # shown as written


def test_the_condition_wins_over_the_top_level_text():
    entry = Entry(id="x-entry", title={"en": "t"}, root_cause={"en": "r"}, fix={"en": "f"}, source="s",
                  fixed_in="0.8.0", conditions=Conditions(fixed_in=">=0.8.2"))  # fmt: skip
    assert entry.conditions.fixed_in == ">=0.8.2"


def test_a_fixed_release_applies_before_it_and_contradicts_from_it():
    entry = Entry(id="x-entry", title={"en": "t"}, root_cause={"en": "r"}, fix={"en": "f"}, source="s",
                  fixed_in="0.8.0")  # fmt: skip
    assert _verdicts(entry, "vllm 0.7.3")["version"] == "applies"
    assert _verdicts(entry, "vllm 0.8.0")["version"] == "contradicts"
    assert _verdicts(entry, "")["version"] == "unknown"


@pytest.mark.parametrize(
    "text, verdict",
    [("ROCm 6.2 on an MI300X", "applies"), ("on an A100", "contradicts"), ("CPU-only server", "contradicts"),
     ("", "unknown")],
)  # fmt: skip
def test_platforms(text, verdict):
    assert _verdicts(_entry(platforms=["rocm"]), text)["platform"] == verdict


def test_an_unknown_platform_is_asked_and_a_bad_one_is_refused():
    app = assess(_entry(platforms=["cpu"]), extract_setup("vllm serve fails"), "vllm serve fails")
    assert [c.detail for c in app.asks()] == ["platform"]
    with pytest.raises(ValueError, match="platform"):
        Conditions(platforms=["gpu"])


def test_one_question_per_detail():
    entry = Entry(id="x-entry", title={"en": "t"}, root_cause={"en": "r"}, fix={"en": "f"}, source="s",
                  introduced_in="0.10.0", affected_versions="<0.12.0")  # fmt: skip
    app = assess(entry, extract_setup("it fails"), "it fails")
    assert [c.detail for c in app.asks()] == ["version"]


def test_a_problem_known_by_its_message_needs_the_message_quoted():
    entry = _entry(error_strings=["unrecognized arguments: --task"], error_named=True, symptoms=["crash"])
    assert _verdicts(entry, "vllm serve fails: vllm: error: unrecognized arguments: --task embed")["error"] == "applies"
    app = assess(entry, extract_setup("how do I serve bge-m3 for embeddings?"), "how do I serve bge-m3 for embeddings?")
    assert app.verdict == "contradicts" and not app.said_otherwise  # ruled out, but not named as "not the fix"
    plain = _entry(error_strings=["unrecognized arguments: --task"], symptoms=["crash"])
    assert _verdicts(plain, "how do I serve bge-m3 for embeddings?")["error"] == "unknown"
