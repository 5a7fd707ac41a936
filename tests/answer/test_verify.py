"""Verification of generated answers: pure, no model."""

from assistant.answer.verify import UNVERIFIED, find_terms, remove_bad_citations, strip_reasoning, verify

SOURCES = {
    1: (
        "VLLM_BATCH_INVARIANT=1 is not batch-invariant for AWQ models on SM80. Upgrade to a vLLM version that "
        "includes PR #60479 and PR #52231. On older versions, start with --enforce-eager. Affects 0.10.1. "
        "See https://github.com/vllm-project/vllm/pull/60479"
    ),
    2: "Lower --gpu-memory-utilization or set --max-model-len to fit the KV cache. Python: max_num_seqs=64.",
}
GOOD = (
    "Your AWQ model is not batch-invariant on SM80 because the matmul bypasses the override [1]. "
    "Upgrade to a vLLM version that includes PR #60479, or start vLLM with `--enforce-eager` on older versions [1]."
)


def test_a_grounded_answer_passes_untouched():
    v = verify(GOOD, SOURCES)
    assert v.passed, v.problems
    assert v.text == GOOD
    assert v.cited == (1,)
    assert not v.unverified and not v.removed_citations
    assert {t.key for t in v.verified} == {"60479", "--enforce-eager"}


def test_citation_numbers_without_a_source_are_removed():
    v = verify(GOOD.replace("override [1].", "override [1][7].") + " Also lower memory [2, 9].", SOURCES)
    assert v.removed_citations == (7, 9)
    assert "[7]" not in v.text and "9]" not in v.text
    assert "[1]" in v.text and "[2]" in v.text
    assert v.cited == (1, 2)


def test_an_unsupported_citation_leaves_clean_punctuation():
    text, cited, removed = remove_bad_citations("Do this [4]. And that [1].", {1})
    assert text == "Do this. And that [1]."
    assert cited == (1,) and removed == (4,)


def test_an_invented_flag_is_marked_unverified():
    v = verify(GOOD + " Also pass --disable-batch-magic to vLLM [1].", SOURCES)
    assert v.passed
    assert [t.text for t in v.unverified] == ["--disable-batch-magic"]
    assert f"--disable-batch-magic {UNVERIFIED}" in v.text
    assert f"--enforce-eager` {UNVERIFIED}" not in v.text


def test_details_are_checked_only_against_the_sources_the_answer_cites():
    # --max-model-len is in source 2, but the answer cites only source 1.
    v = verify(GOOD + " Set --max-model-len too [1].", SOURCES)
    assert [t.text for t in v.unverified] == ["--max-model-len"]
    v = verify(GOOD + " Set --max-model-len too [2].", SOURCES)
    assert not v.unverified


def test_env_vars_versions_prs_and_urls_are_checked():
    text = (
        GOOD + " Set VLLM_BATCH_INVARIANT=1 and VLLM_MADE_UP=1 [1]. It affects 0.10.1 and 0.10.2; "
        "see PR #99999 and https://github.com/vllm-project/vllm/pull/60479 [1]."
    )
    v = verify(text, SOURCES)
    assert sorted(t.text for t in v.unverified) == ["0.10.2", "PR #99999", "VLLM_MADE_UP"]
    assert f"VLLM_MADE_UP {UNVERIFIED}=1" in v.text or f"VLLM_MADE_UP=1 {UNVERIFIED}" in v.text
    assert "0.10.1 (unverified)" not in v.text
    assert v.passed  # three unsupported details: marked, not failed


def test_inline_code_gets_the_marker_after_the_span_and_code_blocks_get_a_comment():
    text = GOOD + "\n\nRun `vllm serve m --fake-flag` [1]:\n\n```bash\nvllm serve m --other-fake\n```\n"
    v = verify(text, SOURCES)
    assert f"`vllm serve m --fake-flag` {UNVERIFIED}" in v.text
    assert f"vllm serve m --other-fake  # --other-fake {UNVERIFIED}\n```" in v.text


def test_the_python_spelling_of_a_flag_counts_as_support():
    assert not verify(GOOD + " Lower --max-num-seqs [2].", SOURCES).unverified


def test_details_from_the_question_itself_are_not_flagged():
    q = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 crashes with CUDA OOM on 0.9.2"
    v = verify("With --tensor-parallel-size 2 on 0.9.2, lower --gpu-memory-utilization [2].", SOURCES, q)
    assert not v.unverified


def test_too_many_unsupported_details_fail():
    v = verify(GOOD + " Use --a-flag, --b-flag, --c-flag and --d-flag with 9.9.9 [1].", SOURCES)
    assert not v.passed
    assert "appear in none of the cited sources" in v.problems[0]


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


def test_the_abstention_marker_is_an_abstention():
    for reply in ("NO_ANSWER", " **NO_ANSWER**.\n", "`no_answer`"):
        v = verify(reply, SOURCES)
        assert v.abstained and not v.passed


def test_an_echo_of_the_prompt_is_not_an_abstention_but_fails():
    echo = "<user_message>\nWhy is AWQ not batch-invariant?\n</user_message>\nCite the sources as [1] to [2]. If not, reply NO_ANSWER."
    v = verify(echo, SOURCES, "Why is AWQ not batch-invariant?")
    assert not v.abstained and not v.passed
    assert "repeats the prompt" in v.problems[0]


def test_restating_the_question_is_not_grounding():
    q = "my deepseek server hangs forever after loading the tokenizer on kubernetes pods"
    v = verify("Your deepseek server hangs forever after loading the tokenizer on kubernetes pods [1].", SOURCES, q)
    assert not v.passed and "too little" in v.problems[0]


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


def test_chinese_answers_are_checked_too():
    src = {1: "修复：升级到包含 PR #60479 的 vLLM 版本，或使用 --enforce-eager 启动。AWQ 模型 批次不变性"}
    v = verify("升级到包含 PR #60479 的 vLLM 版本 [1]。旧版本可以使用 --enforce-eager 和 --made-up [1]。", src)
    assert v.passed, v.problems
    assert [t.text for t in v.unverified] == ["--made-up"]
