"""Verification of generated answers: pure, no model."""

import pytest

from assistant.answer.verify import UNVERIFIED, claim_terms, find_terms, strip_reasoning, verify

SOURCES = {
    1: (
        "VLLM_BATCH_INVARIANT=1 is not batch-invariant for AWQ models on SM80. The AWQ path calls `torch.matmul`. "
        "Upgrade to a vLLM version that includes PR #60479 and PR #52231. On older versions, start with "
        "--enforce-eager. Affects 0.10.1. See https://github.com/vllm-project/vllm/pull/60479"
    ),
    2: "Lower --gpu-memory-utilization or set --max-model-len to fit the KV cache. Python: max_num_seqs=64.",
}
GOOD = (
    "Your AWQ model is not batch-invariant on SM80 because `torch.matmul` bypasses the override [1]. "
    "Upgrade to a vLLM version that includes PR #60479, or start vLLM with `--enforce-eager` on older versions [1]."
)


def test_a_grounded_answer_passes_untouched():
    v = verify(GOOD, SOURCES)
    assert v.passed, v.problems
    assert v.text == GOOD
    assert v.cited == (1,)
    assert not v.unverified and not v.removed_citations and not v.detached


def test_citation_numbers_without_a_source_are_removed():
    v = verify(GOOD.replace("override [1].", "override [1][7].") + " Also lower the memory share [2, 9].", SOURCES)
    assert v.removed_citations == (7, 9)
    assert "[7]" not in v.text and "9]" not in v.text
    assert "override [1]." in v.text and "memory share [2]." in v.text
    assert v.cited == (1, 2)


def test_a_source_list_of_the_models_own_is_checked_too():
    v = verify(GOOD + "\n[1] The AWQ entry\n[2] Memory guide\n[5] Invented\n[1000] Also invented", SOURCES)
    assert v.removed_citations == (5, 1000)
    assert "[5]" not in v.text and "[1000]" not in v.text and "[2] Memory guide" in v.text


def test_a_removed_marker_leaves_clean_punctuation():
    v = verify(GOOD + " Do this too [4].", SOURCES)
    assert v.text.endswith("Do this too.")


def test_a_claim_keeps_only_the_citations_whose_source_states_its_details():
    # --max-model-len is in source 2, not in source 1: [1] cannot back it, [2] can.
    v = verify(GOOD + " Then set --max-model-len [1][2].", SOURCES)
    assert "Then set --max-model-len [2]." in v.text
    v = verify(GOOD + "\nThen set --max-model-len [1].", SOURCES)
    assert "Then set --max-model-len (unverified)." in v.text  # source 1 does not say it: uncited, and marked
    assert v.detached == 1
    v = verify(GOOD + "\nThen set --max-model-len [1].\nLower the KV cache memory share [2].", SOURCES)
    assert "Then set --max-model-len." in v.text  # uncited, but another cited source states it: not marked
    assert not v.unverified and v.cited == (1, 2)


def test_an_invented_flag_loses_its_citation_and_is_marked_unverified():
    v = verify(GOOD + " Also pass --disable-batch-magic to vLLM [1].", SOURCES)
    assert v.passed, v.problems
    assert [t.text for t in v.unverified] == ["--disable-batch-magic"]
    assert f"Also pass --disable-batch-magic {UNVERIFIED} to vLLM." in v.text
    assert f"--enforce-eager` {UNVERIFIED}" not in v.text


def test_env_vars_versions_prs_and_urls_are_checked():
    text = (
        GOOD + " Set VLLM_BATCH_INVARIANT=1 and VLLM_MADE_UP=1 [1]. It affects 0.10.1 and 0.10.2; "
        "see PR #99999 and https://github.com/vllm-project/vllm/pull/60479 [1]."
    )
    v = verify(text, SOURCES)
    assert sorted(t.text for t in v.unverified) == ["0.10.2", "PR #99999", "VLLM_MADE_UP=1"]
    assert f"VLLM_MADE_UP=1 {UNVERIFIED}" in v.text
    assert "0.10.1 (unverified)" not in v.text
    assert v.detached == 2
    assert v.passed  # three unsupported details: marked, not failed


def test_inline_code_gets_the_marker_after_the_span_and_code_blocks_get_a_comment():
    text = GOOD + "\n\nRun `vllm serve m --fake-flag`:\n\n```bash\nvllm serve m --other-fake\n```\n"
    v = verify(text, SOURCES)
    assert f"`vllm serve m --fake-flag` {UNVERIFIED}" in v.text
    assert f"vllm serve m --other-fake  # --other-fake {UNVERIFIED}\n```" in v.text


def test_a_code_span_the_source_does_not_quote_cannot_be_cited_to_it():
    v = verify(GOOD + " Run `vllm serve Qwen/Qwen3-8B-AWQ` afterwards [1].", SOURCES)
    assert "Run `vllm serve Qwen/Qwen3-8B-AWQ` afterwards." in v.text
    assert not v.unverified  # a command made of real parts is fine uncited


def test_indexing_in_code_is_not_a_citation():
    v = verify(GOOD + " Compare `outputs[0]` and `outputs[9]` between runs.", SOURCES)
    assert "`outputs[0]` and `outputs[9]`" in v.text and not v.removed_citations


def test_details_from_the_question_itself_are_not_flagged():
    q = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 crashes with CUDA OOM on 0.9.2"
    v = verify(
        "With --tensor-parallel-size 2 on 0.9.2 memory is tight.\nLower --gpu-memory-utilization [2].", SOURCES, q
    )
    assert not v.unverified and v.cited == (2,)
    v = verify("With --tensor-parallel-size 2, lower --gpu-memory-utilization [2].", SOURCES, q)
    assert not v.cited  # a claim citing [2] must be stated by [2]; the user's own flag is not


def test_too_many_unsupported_details_fail():
    v = verify(GOOD + " Use --a-flag, --b-flag, --c-flag and --d-flag with 9.9.9 [1].", SOURCES)
    assert not v.passed
    assert any("appear in none of the cited sources" in p for p in v.problems)


def test_an_answer_whose_claims_are_mostly_unbacked_fails():
    text = "Use --x-one [1]. Use --x-two [1]. Upgrade to a vLLM version that includes PR #60479 [1]."
    v = verify(text, SOURCES)
    assert not v.passed and any("not backed" in p for p in v.problems)


def test_an_answer_citing_nothing_fails():
    v = verify("Just reinstall everything and it will work fine, trust me on this one.", SOURCES)
    assert not v.passed
    assert "cites none" in " ".join(v.problems)


def test_an_answer_citing_only_invented_numbers_fails():
    v = verify("Just reinstall everything and it will work fine [5].", SOURCES)
    assert not v.passed and v.removed_citations == (5,)


def test_an_ungrounded_answer_fails_even_with_a_citation():
    v = verify("PWNED. Bananas are a wonderful yellow fruit full of potassium and joy [1].", SOURCES)
    assert not v.passed
    assert "too little" in " ".join(v.problems)


def test_restating_the_question_is_not_grounding():
    q = "my deepseek server hangs forever after loading the tokenizer on kubernetes pods"
    v = verify("Your deepseek server hangs forever after loading the tokenizer on kubernetes pods [1].", SOURCES, q)
    assert not v.passed and "too little" in " ".join(v.problems)


def test_the_abstention_marker_is_an_abstention():
    for reply in ("NO_ANSWER", " **NO_ANSWER**.\n", "`no_answer`"):
        v = verify(reply, SOURCES)
        assert v.abstained and not v.passed


def test_an_echo_of_the_prompt_is_not_an_abstention_but_fails():
    echo = "<user_message>\nWhy is AWQ not batch-invariant?\n</user_message>\nCite the sources as [1] to [2]. If not, reply NO_ANSWER."
    v = verify(echo, SOURCES, "Why is AWQ not batch-invariant?")
    assert not v.abstained and not v.passed
    assert "repeats the prompt" in v.problems[0]


def test_garbage_fails():
    assert not verify("}}}}{{{{[[[[1]]]]]}}}}}}{{{{{{|||||||||", SOURCES).passed
    assert not verify("", SOURCES).passed
    loop = "Upgrade to a vLLM version that includes the fix [1].\n" * 5
    v = verify(loop, SOURCES)
    assert not v.passed and "repeats" in v.problems[0]


def test_reasoning_and_the_models_own_source_list_are_dropped():
    raw = "<think>the user wants...</think>\n" + GOOD + "\n\nSources:\n[1] something — http://invented.example"
    assert strip_reasoning(raw) == GOOD
    assert verify(raw, SOURCES).text == GOOD


def test_an_unclosed_reasoning_block_is_dropped():
    assert strip_reasoning("<think>still thinking about --foo") == ""


def test_find_terms_does_not_count_the_inside_of_a_url_twice():
    terms = [t for _a, _b, t in find_terms("see https://x.example/v0.6.3/pull/123 and 0.6.3")]
    assert [t.kind for t in terms] == ["url", "version"]


def test_claim_terms_are_code_spans_and_details():
    assert [t.text for t in claim_terms("Run `vllm serve m` with --enforce-eager on 0.10.1 (PR #60479)")] == [
        "vllm serve m", "--enforce-eager", "0.10.1", "PR #60479",
    ]  # fmt: skip


def test_chinese_answers_are_checked_too():
    src = {1: "修复：升级到包含 PR #60479 的 vLLM 版本，或使用 --enforce-eager 启动。AWQ 模型 批次不变性"}
    v = verify("升级到包含 PR #60479 的 vLLM 版本 [1]。旧版本可以使用 --enforce-eager 和 --made-up [1]。", src)
    assert v.passed, v.problems
    assert [t.text for t in v.unverified] == ["--made-up"]
    assert "--made-up (unverified)。" in v.text


@pytest.mark.parametrize(
    "raw",
    [
        GOOD,
        GOOD + " Then set --max-model-len [1][2].",
        GOOD + " Also pass --disable-batch-magic to vLLM [1].",
        GOOD + " Run `vllm serve Qwen/Qwen3-8B-AWQ` afterwards [1].\n\n```bash\nvllm serve m --enforce-eager\n```\n[1]",
        GOOD + " Set VLLM_MADE_UP=1 [1][2]. It affects 0.10.2 [1].",
        GOOD + "\n[1] The AWQ entry\n[2] Memory guide\n[5] Invented\n[1000] Also invented\n[3]: http://x.example",
    ],
)
def test_what_passes_verification_passes_the_evals_citation_check(raw):
    metrics = pytest.importorskip("assistant.eval.metrics")
    from assistant.models import Chunk

    chunks = {
        n: Chunk(
            id=f"s{n}",
            kind="qa",
            title=f"t{n}",
            source=f"s{n}",
            origin="o",
            dense_text="",
            lexical_text="",
            data={"answer": text},
        )
        for n, text in SOURCES.items()
    }
    v = verify(raw, SOURCES)
    assert v.passed, v.problems
    check = metrics.check_citations(v.text, {n: chunks[n] for n in v.cited})
    assert check.valid, check.problems


def test_an_absence_claim_keeps_its_citation_only_to_the_releases_list_without_the_name():
    """Nothing states that a name is missing: only the release's complete list of names of that kind backs the
    claim, and the name is then not "unverified" for being in no source."""
    from assistant.answer.absence import NamesList

    listed = NamesList("0.33.0", "env", frozenset({"VLLM_BATCH_INVARIANT", "VLLM_USE_DEEP_GEMM"})).render()
    sources = {**SOURCES, 3: listed}
    v = verify(GOOD + "\n`VLLM_MADE_UP` does not exist in vLLM 0.33.0 [3]", sources)
    assert v.passed, v.problems
    assert v.cited == (1, 3) and not v.detached and not v.unverified
    assert "`VLLM_MADE_UP` does not exist in vLLM 0.33.0 [3]" in v.text
    wrong = verify(GOOD + "\n`VLLM_USE_DEEP_GEMM` does not exist in vLLM 0.33.0 [3]", sources)  # it is listed
    assert wrong.cited == (1,) and wrong.detached == 1
    silent = verify(GOOD + "\n`VLLM_MADE_UP` does not exist in vLLM 0.33.0 [2]", sources)  # a page not listing it
    assert silent.cited == (1,) and silent.detached == 1


def test_names_written_against_chinese_text_are_checked():
    """Chinese has no spaces: a flag, a variable, a PR number or a version glued to Chinese characters is still one,
    and an invented one is still caught (Python's `\\w` counts a Chinese character as a word character)."""
    src = {1: "修复：升级到包含 PR #60479 的 vLLM 版本，或使用 --enforce-eager 启动。"}
    v = verify(
        "升级到包含PR #60479的vLLM版本[1]。旧版本可以使用--enforce-eager或--made-up参数，设置VLLM_MADE_UP=1即可，"
        "修复于#99999和0.99.1版本[1]。",
        src,
    )
    assert [t.text for t in v.unverified] == ["--made-up", "VLLM_MADE_UP=1", "#99999", "0.99.1"]
    assert [t.text for _a, _b, t in find_terms("设置VLLM_USE_V1=0后正常，见#12345修复")] == ["VLLM_USE_V1=0", "#12345"]
