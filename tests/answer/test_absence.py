"""An absence claim is backed only by the release's complete list of names of that kind, without the name."""

from assistant.answer.absence import (
    Absence,
    NamesList,
    absence_claim,
    backs_absence,
    edit_distance,
    parse_names_list,
)

ENV = NamesList("0.33.0", "env", frozenset({"VLLM_TARGET_DEVICE", "VLLM_USE_DEEP_GEMM", "CUDA_HOME", "VERBOSE"}))
FLAGS = NamesList("0.33.0", "flag", frozenset({"--max-model-len", "--enforce-eager", "--no-enforce-eager", "-tp"}))


def test_a_rendered_list_reads_back_and_a_partial_one_is_no_list():
    assert parse_names_list("Title\nhttps://x\n" + ENV.render() + "\nmore text") == ENV
    assert parse_names_list(FLAGS.render()) == FLAGS
    cut = ENV.render().rsplit("\n", 1)[0]  # one name short of the count the header announces
    assert parse_names_list(cut) is None
    quoted = ENV.render().replace("\nCUDA_HOME", "\nCUDA_HOME is also read")  # not a name a line
    assert parse_names_list(quoted) is None
    assert parse_names_list("vLLM uses the following environment variables: VLLM_PORT, VLLM_HOST_IP") is None


def test_the_claim_is_read_in_both_languages_one_release_each():
    assert absence_claim("- `VLLM_MAGIC` does not exist in vLLM 0.33.0 ") == Absence("VLLM_MAGIC", "0.33.0")
    assert absence_claim("- vLLM 0.33.0 中不存在 `--turbo`") == Absence("--turbo", "0.33.0")
    assert absence_claim("- `VLLM_MAGIC` (env var): does magic — vLLM 0.33.0") is None


def test_a_name_missing_from_the_cited_release_list_is_backed():
    assert backs_absence(absence_claim("`VLLM_MAGIC` does not exist in vLLM 0.33.0"), ENV.render())
    assert backs_absence(absence_claim("`--turbo-mode` does not exist in vLLM 0.33.0"), FLAGS.render())


def test_a_wrong_absence_claim_is_not_backed():
    """The name IS on the list, in any spelling vLLM's parser accepts: the claim is false."""
    assert not backs_absence(absence_claim("`VLLM_TARGET_DEVICE` does not exist in vLLM 0.33.0"), ENV.render())
    assert not backs_absence(absence_claim("`--max_model_len` does not exist in vLLM 0.33.0"), FLAGS.render())
    assert not backs_absence(absence_claim("`--no-enforce-eager` does not exist in vLLM 0.33.0"), FLAGS.render())


def test_only_the_claimed_releases_list_of_that_kind_backs_it():
    claim = absence_claim("`VLLM_MAGIC` does not exist in vLLM 0.32.0")
    assert not backs_absence(claim, ENV.render())  # another release's list
    assert not backs_absence(absence_claim("`VLLM_MAGIC` does not exist in vLLM 0.33.0"), FLAGS.render())  # flags
    page = "Environment Variables\nvLLM uses the following environment variables to configure the system: VLLM_PORT"
    assert not backs_absence(absence_claim("`VLLM_MAGIC` does not exist in vLLM 0.33.0"), page)  # silent page


TYPO_FLAGS = NamesList(
    "0.33.0",
    "flag",
    frozenset(
        {"--enable-expert-parallel", "--enable-prefix-caching", "--max-model-len", "--max-num-seqs", "--tp-size"}
    ),
)


def test_the_name_a_typo_misspells_is_the_one_within_two_edits():
    assert TYPO_FLAGS.closest("--enable-expert-paralle") == "--enable-expert-parallel"  # a letter dropped
    assert TYPO_FLAGS.closest("--max-modle-len") == "--max-model-len"  # two swapped
    assert TYPO_FLAGS.closest("--max_modle_len") == "--max-model-len"  # as vLLM's parser reads underscores


def test_no_name_is_suggested_for_a_name_that_is_there_far_from_any_or_too_short():
    assert TYPO_FLAGS.closest("--max-model-len") is None  # not a typo
    assert TYPO_FLAGS.closest("--enable-turbo-mode") is None  # nothing near
    assert TYPO_FLAGS.closest("--tp-sise") is None  # under ten characters: two edits reach too many names
    envs = NamesList("0.33.0", "env", frozenset({"VLLM_USE_DEEP_GEMM_A", "VLLM_USE_DEEP_GEMM_B"}))
    assert envs.closest("VLLM_USE_DEEP_GEMM") is None  # two names as near: no guess


def test_edit_distance():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3
    assert edit_distance("same", "same") == 0
