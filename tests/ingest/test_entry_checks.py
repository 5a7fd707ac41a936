"""The pure entry checks (assistant/ingest/entry_checks.py) on small entries: each problem is found and named."""

from __future__ import annotations

from assistant.entry import Entry
from assistant.ingest.entry_checks import (
    applies_to_release,
    distinguishable,
    error_named_problems,
    named_env_vars,
    named_flags,
    release_problems,
    removal_version_problems,
    shared_error_problems,
    source_problems,
)
from assistant.release.names import ReleaseNames

RELEASE = ReleaseNames(
    version="0.33.0",
    env_vars=frozenset({"VLLM_USE_DEEP_GEMM", "CUDA_HOME"}),
    flags=frozenset({"--enforce-eager", "--structured-outputs-config", "--enable-prefix-caching", "-tp",
                     "--tensor-parallel-size"}),
    bool_flags=frozenset({"--enforce-eager", "--enable-prefix-caching"}),
)  # fmt: skip


def _entry(entry_id: str = "an-entry", **kw) -> Entry:
    base = {"id": entry_id, "title": {"en": "t", "zh": "t"}, "root_cause": {"en": "r"}, "fix": {"en": "f"},
            "source": "https://github.com/vllm-project/vllm/issues/1"}  # fmt: skip
    return Entry.model_validate(base | kw)


def test_flags_and_env_vars_are_read_from_the_fields_and_the_text_other_tools_left_out():
    e = _entry(
        fix={"en": "Run `docker run --shm-size 16g` and pass --enforce-eager; set VLLM_USE_DEEP_GEMM=0 and "
             "NCCL_P2P_DISABLE=1."},
        flags=["--tensor-parallel-size 2"], env_vars=["CUDA_HOME"], external_names=["--shm-size"],
    )  # fmt: skip
    assert named_flags(e) == ["--tensor-parallel-size", "--enforce-eager"]
    assert named_env_vars(e) == ["VLLM_USE_DEEP_GEMM"]  # NCCL_* and CUDA_HOME are not vLLM's to define
    enum = _entry(fix={"en": "Set `mode` to `CompilationMode.VLLM_COMPILE`, or VLLM_USE_DEEP_GEMM=0."})
    assert named_env_vars(enum) == ["VLLM_USE_DEEP_GEMM"]  # an attribute of a class is not an env var


def test_a_name_the_release_lacks_fails_naming_the_entry_and_the_name():
    e = _entry("uses-old-flag", fix={"en": "Pass --guided-decoding-backend xgrammar and VLLM_USE_V1=0."})
    problems = release_problems(e, RELEASE)
    assert len(problems) == 2
    assert all(p.startswith("uses-old-flag: ") for p in problems)
    assert "--guided-decoding-backend" in problems[0] and "VLLM_USE_V1" in problems[1]


def test_renamed_explains_a_missing_name_only_with_a_release_and_an_existing_replacement():
    renamed = [{"name": "--guided-decoding-backend", "removed_in": "0.12.0",
                "replaced_by": "--structured-outputs-config"}]  # fmt: skip
    e = _entry(fix={"en": "Older releases took --guided-decoding-backend."}, renamed=renamed)
    assert release_problems(e, RELEASE) == []
    later = _entry(fix={"en": "--guided-decoding-backend"}, renamed=[renamed[0] | {"removed_in": "0.40.0"}])
    assert "said removed in 0.40.0" in release_problems(later, RELEASE)[0]
    bad_new = _entry(fix={"en": "--guided-decoding-backend"}, renamed=[renamed[0] | {"replaced_by": "--nope"}])
    assert "--nope" in release_problems(bad_new, RELEASE)[0]
    still_there = _entry(fix={"en": "x"}, renamed=[{"name": "--enforce-eager", "removed_in": "0.20.0"}])
    assert "has it" in release_problems(still_there, RELEASE)[0]


def test_the_negative_form_of_a_boolean_flag_exists():
    assert release_problems(_entry(fix={"en": "--no-enable-prefix-caching"}), RELEASE) == []
    assert release_problems(_entry(fix={"en": "--no-tensor-parallel-size"}), RELEASE)


def test_an_entry_that_does_not_apply_to_the_release_is_not_held_to_its_names():
    fixed = _entry(fixed_in="0.30.0", fix={"en": "--guided-decoding-backend"})
    assert not applies_to_release(fixed, "0.33.0") and release_problems(fixed, RELEASE) == []
    later = _entry(introduced_in="0.40.0")
    assert not applies_to_release(later, "0.33.0")
    assert applies_to_release(_entry(affected_versions=">=0.30.0"), "0.33.0")
    assert not applies_to_release(_entry(affected_versions="<0.33.0"), "0.33.0")


def test_a_source_is_a_url_or_a_file_that_exists():
    assert source_problems(_entry(), lambda _p: False) == []
    assert source_problems(_entry(source="docs/a.md#x (https://docs.vllm.ai/a)"), lambda p: p == "docs/a.md") == []
    assert "nor a file" in source_problems(_entry(source="docs/missing.md"), lambda _p: False)[0]
    assert "nor a file" in source_problems(_entry(source="see the forum"), lambda _p: False)[0]


def test_a_shared_error_string_needs_a_condition_that_tells_the_entries_apart():
    oom = "torch.OutOfMemoryError: CUDA out of memory"
    a = _entry("general-oom", error_strings=[oom], conditions={"symptoms": ["oom"]})
    b = _entry("kv-oom", error_strings=["torch.OutOfMemoryError:  CUDA out of memory"], conditions={"symptoms": ["oom"]})
    (problem,) = shared_error_problems([a, b])
    assert "general-oom and kv-oom" in problem
    apart = [
        {"hardware": ["SM70"]},  # against SM80
        {"platforms": ["rocm"]},  # against cuda
        {"models": ["Llama-3.1-8B"]},  # against Qwen
        {"affected_versions": "<0.8.0"},  # against >=0.9.0
        {"features": {"eager": True}},  # against eager off
    ]
    other = [{"hardware": ["SM80"]}, {"platforms": ["cuda"]}, {"models": ["Qwen2.5-7B"]},
             {"affected_versions": ">=0.9.0"}, {"features": {"eager": False}}]  # fmt: skip
    for x, y in zip(apart, other, strict=True):
        left = _entry("a-one", error_strings=[oom], conditions=x)
        right = _entry("b-two", error_strings=[oom], conditions=y)
        assert distinguishable(left, right) and shared_error_problems([left, right]) == [], x
    assert not distinguishable(_entry(conditions={"hardware": ["SM80"]}), _entry(conditions={"hardware": ["SM80"]}))
    # A fix in 0.8.0 and a regression from 0.9.0: the affected releases do not meet.
    fixed = _entry("fixed-early", fixed_in="0.8.0")
    regressed = _entry("regressed-later", introduced_in="0.9.0")
    assert distinguishable(fixed, regressed)
    assert not distinguishable(_entry(fixed_in="0.9.0"), _entry(introduced_in="0.8.0"))


def test_an_error_naming_a_removed_flag_needs_the_release_it_began_in():
    removed = {"renamed": [{"name": "--disable-log-requests", "removed_in": "0.17.0"}],
               "error_strings": ["unrecognized arguments: --disable-log-requests"]}  # fmt: skip
    (problem,) = removal_version_problems(_entry("gone", **removed))
    assert "gone" in problem and "introduced_in: '0.17.0'" in problem
    assert removal_version_problems(_entry("gone", introduced_in="0.17.0", **removed)) == []
    assert removal_version_problems(_entry("gone", fixed_in="0.10.0 (the check went with the flag)", **removed)) == []
    # The name only mentioned in passing (no error string prints it): nothing to say.
    assert removal_version_problems(_entry("aside", renamed=removed["renamed"], error_strings=["KeyError: x"])) == []
    # `--disable-log-requests-x` is another name.
    other = removed | {"error_strings": ["unrecognized arguments: --disable-log-requests-x"]}
    assert removal_version_problems(_entry("other", **other)) == []


def test_an_entry_known_by_its_message_needs_a_full_message_not_a_code_fragment():
    fragment = _entry(error_strings=["self.buf[k].copy_("], conditions={"symptoms": ["crash"], "error_named": True})
    assert error_named_problems(fragment) == [
        "an-entry: error_named, but no error string is a full message (with a space): ['self.buf[k].copy_(']"
    ]
    full = _entry(error_strings=["self.buf[k].copy_(", "RuntimeError: buffer too small"],
                  conditions={"symptoms": ["crash"], "error_named": True})  # fmt: skip
    assert error_named_problems(full) == []
    assert error_named_problems(_entry(error_strings=["copy_("], conditions={"symptoms": ["crash"]})) == []
