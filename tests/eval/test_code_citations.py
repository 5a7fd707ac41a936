"""An answer on `make run`'s corpus cites the release's code facts; the citation check reads them from the release
store (a real ReleaseStore file), so a claim is checked against the fact it cites and an unknown id stays invalid."""

from __future__ import annotations

from assistant.eval.code_citations import code_fact_lookup
from assistant.eval.metrics import check_citations
from assistant.release.knowledge import ReleaseKnowledge
from assistant.release.models import CodeSite, EnvVar, Flag, ReleaseFacts, Template
from assistant.release.store import ReleaseStore

SITE = CodeSite("9.9.0", "log", "exception", Template(("EngineCore encountered a fatal error.",)), "vllm/core.py", 12, "run")
ENV = EnvVar("9.9.0", "VLLM_TEST_FLAG", "bool", "False", "Turns the test on.", "vllm/envs.py", 3)
FLAG = Flag("9.9.0", "--max-num-seqs", ("-n",), "int", "256", (), "Maximum number of sequences.", "vllm/config.py", 7)


def _lookup(tmp_path):
    store = ReleaseStore(tmp_path)
    store.save(ReleaseFacts("9.9.0", "test", env_vars=[ENV], flags=[FLAG], sites=[SITE], files=3))
    return code_fact_lookup(ReleaseKnowledge(store))


def test_code_fact_citations_are_checked_against_the_fact_they_cite(tmp_path):
    lookup = _lookup(tmp_path)
    site, env, flag = lookup(SITE.id), lookup("vllm-9.9.0:VLLM_TEST_FLAG"), lookup("vllm-9.9.0:-n")
    assert site and env and flag and flag.source == FLAG.url
    text = (
        "Where vLLM logs it: `logger.exception` in `run`, no `if` guards it [1]\n"
        "- `VLLM_TEST_FLAG` (env var, `bool`, default `False`): Turns the test on. — vLLM 9.9.0 [2]\n"
        "- `--max-num-seqs` (flag, `int`, default `256`) — vLLM 9.9.0 [3]"
    )
    assert check_citations(text, {1: site, 2: env, 3: flag}).valid
    wrong = check_citations("`VLLM_OTHER=1` fixes it [1]", {1: env})  # a term the cited fact does not have
    assert not wrong.valid and "VLLM_OTHER" in wrong.problems[0]
    assert lookup("vllm-9.9.0:VLLM_NOT_THERE") is None and lookup("docs/usage/faq.md#a") is None
    assert not check_citations("`VLLM_NOT_THERE` [1]", {1: lookup("vllm-9.9.0:VLLM_NOT_THERE")}).valid


def test_a_help_text_quoting_json_is_found_as_written(tmp_path):
    """`--lora-modules`' help carries a JSON example; the record's JSON form escapes its quotes, the claim does not."""
    lora = Flag("9.9.0", "--lora-modules", (), "str", "None", (), 'JSON format: `{"name": "name", "path": "lora_path"}`',
                "vllm/cli_args.py", 9)  # fmt: skip
    store = ReleaseStore(tmp_path)
    store.save(ReleaseFacts("9.9.0", "test", flags=[lora], files=1))
    fact = code_fact_lookup(ReleaseKnowledge(store))("vllm-9.9.0:--lora-modules")
    claim = '- `--lora-modules` (flag, `str`): JSON format: `{"name": "name", "path": "lora_path"}` — vLLM 9.9.0 [1]'
    assert check_citations(claim, {1: fact}).valid


def test_an_absence_claim_is_valid_only_against_the_releases_list_without_the_name(tmp_path):
    """`vllm-9.9.0:env-vars` / `:flags` are the release's complete lists (from the store): "`X` does not exist in
    vLLM 9.9.0" citing one is valid when X is not on it, and invalid when it is, or when the source is another."""
    lookup = _lookup(tmp_path)
    envs, flags = lookup("vllm-9.9.0:env-vars"), lookup("vllm-9.9.0:flags")
    assert envs.source == "https://github.com/vllm-project/vllm/blob/v9.9.0/vllm/envs.py"
    assert envs.data["names"] == ["VLLM_TEST_FLAG"] and flags.data["names"] == ["--max-num-seqs", "-n"]
    assert check_citations("- `VLLM_MAGIC` does not exist in vLLM 9.9.0 [1]", {1: envs}).valid
    assert check_citations("- vLLM 9.9.0 中不存在 `--turbo` [1]", {1: flags}).valid
    wrong = check_citations("- `VLLM_TEST_FLAG` does not exist in vLLM 9.9.0 [1]", {1: envs})  # it exists
    assert not wrong.valid and "the absence claim is wrong" in wrong.problems[0]
    assert not check_citations("- `--max_num_seqs` does not exist in vLLM 9.9.0 [1]", {1: flags}).valid  # its spelling
    assert not check_citations("- `VLLM_MAGIC` does not exist in vLLM 9.8.0 [1]", {1: envs}).valid  # another release
    assert not check_citations("- `VLLM_MAGIC` does not exist in vLLM 9.9.0 [1]", {1: flags}).valid  # the flags
    # a fact that merely does not mention the name backs no absence
    assert not check_citations("- `VLLM_MAGIC` does not exist in vLLM 9.9.0 [1]", {1: lookup(SITE.id)}).valid
    assert lookup("vllm-9.8.0:env-vars") is None
