"""Whether the user's release has a known problem, in words (scope.release_line), and in the entry's answer."""

from __future__ import annotations

import pytest

from assistant.answer.extractive import compose
from assistant.answer.scope import release_line
from assistant.entry import Conditions, Entry
from assistant.ingest.entries import entry_chunk
from assistant.models import Hit
from assistant.retrieval.query import analyze


@pytest.mark.parametrize(
    "cond, version, lang, expected",
    [
        ({"fixed_in": ">=0.8.0"}, "0.7.3", "en", "you run 0.7.3; fixed in 0.8.0: upgrade to 0.8.0 or later."),
        ({"fixed_in": ">=0.8.0"}, "0.7.3", "zh", "您使用的是 0.7.3；该问题已在 0.8.0 修复：请升级到 0.8.0 或更高版本。"),
        ({"fixed_in": ">=0.8.0"}, "0.9.1", "en", "fixed in 0.8.0; you run 0.9.1, so this is behind you"),
        ({"fixed_in": ">=0.8.0"}, "nightly", "en", "so this is behind you"),
        ({"fixed_in": ">0.8.0,!=0.8.2"}, "0.8.0", "en", "fixed in releases >0.8.0,!=0.8.2: upgrade."),
        ({"affected_versions": "==0.31.0"}, "0.31.0", "en", "which is affected (==0.31.0); no release with the fix"),
        ({"affected_versions": "==0.31.0"}, "0.30.0", "en", "the releases reported affected are ==0.31.0"),
        ({"introduced_in": "0.10.0"}, "0.11.0", "en", "this began in vLLM 0.10.0; you run 0.11.0, so it applies"),
        ({"introduced_in": "0.10.0"}, "0.9.2", "en", "this began in vLLM 0.10.0; you run 0.9.2, which predates it."),
        ({"introduced_in": "0.10.0"}, "0.9.2", "zh", "这一行为从 vLLM 0.10.0 开始；您使用的是 0.9.2，早于该版本。"),
        ({"introduced_in": "0.10.0", "fixed_in": ">=0.10.2"}, "0.10.1", "en", "fixed in 0.10.2: upgrade"),
        ({"fixed_in_nightly": True}, "0.30.0", "en", "the fix is on main / nightly builds"),
    ],
)
def test_release_line(cond, version, lang, expected):
    assert expected in release_line(Conditions(**cond), version, lang)


def test_no_release_line_without_a_stated_release_or_versions():
    assert release_line(Conditions(fixed_in=">=0.8.0"), None, "en") == ""
    assert release_line(Conditions(hardware=["SM80"]), "0.8.0", "en") == ""


def _hit(**kw) -> Hit:
    entry = Entry.model_validate(
        {"id": "prefix-cache-crash", "title": {"en": "Prefix caching crashes with AssertionError", "zh": "前缀缓存崩溃"},
         "root_cause": {"en": "A bug in the block manager.", "zh": "块管理器的 bug。"},
         "fix": {"en": "Upgrade to 0.8.0.", "zh": "升级到 0.8.0。"},
         "error_strings": ["AssertionError: prefix cache block mismatch"],
         "source": "https://github.com/vllm-project/vllm/issues/1", "conditions": {"symptoms": ["crash"]}} | kw
    )  # fmt: skip
    chunk = entry_chunk(entry, "corpus/entries/prefix-cache-crash.yaml", "corpus/entries/prefix-cache-crash.yaml")
    return Hit(chunk=chunk, score=1.0, confidence=0.9)


def test_the_answer_says_whether_the_users_release_is_affected():
    q = "vllm 0.7.3 crashes: AssertionError: prefix cache block mismatch"
    answer = compose(analyze(q), [_hit(fixed_in="0.8.0")], 0.5)
    assert "you run 0.7.3; fixed in 0.8.0: upgrade to 0.8.0 or later." in answer.lead
    zh = compose(analyze("vllm 0.7.3 报错 AssertionError: prefix cache block mismatch"), [_hit(fixed_in="0.8.0")], 0.5)
    assert "您使用的是 0.7.3；该问题已在 0.8.0 修复" in zh.lead


def test_a_release_with_the_fix_is_told_the_problem_is_behind_it():
    q = "vllm 0.9.0 crashes: AssertionError: prefix cache block mismatch"
    answer = compose(analyze(q), [_hit(fixed_in="0.8.0")], 0.5)
    assert answer.abstained
    assert "was fixed in 0.8.0 [1]; you run 0.9.0, so it is behind you." in answer.body


def test_an_unstated_release_is_asked_for():
    q = "crashes: AssertionError: prefix cache block mismatch"
    answer = compose(analyze(q), [_hit(fixed_in="0.8.0")], 0.5)
    assert "Which vLLM version do you run" in answer.body and "**Your release**" not in answer.body


def test_a_behaviour_that_began_later_is_not_offered_to_an_older_release():
    q = "vllm 0.9.0 crashes: AssertionError: prefix cache block mismatch"
    answer = compose(analyze(q), [_hit(introduced_in="0.10.0")], 0.5)
    assert answer.abstained and "Upgrade to 0.8.0" not in answer.body
    assert "began in vLLM 0.10.0 [1]; you run 0.9.0, which predates it" in answer.body
    newer = compose(analyze(q.replace("0.9.0", "0.10.1")), [_hit(introduced_in="0.10.0")], 0.5)
    assert "this began in vLLM 0.10.0; you run 0.10.1" in newer.lead and "**Began in:** 0.10.0" in newer.lead


def test_a_renamed_flag_is_stated():
    renamed = [{"name": "--guided-decoding-backend", "removed_in": "0.12.0",
                "replaced_by": "--structured-outputs-config"}]  # fmt: skip
    answer = compose(analyze("crashes: AssertionError: prefix cache block mismatch"), [_hit(renamed=renamed)], 0.5)
    assert "`--guided-decoding-backend` was removed in 0.12.0 (use `--structured-outputs-config`)" in answer.lead
