"""Flags and env vars checked against the user's release: in the verifier (LLM path), the extractive
answer and over HTTP; a curated `fixed_in` at or before the user's version is pointed out."""

from __future__ import annotations

import httpx

from assistant.answer.code_facts import fixed_in_line
from assistant.answer.verify import verify
from assistant.api import create_api
from tests.helpers.server import ServerThread

OLD, NEW = "0.98.0", "0.99.0"
SOURCE = "Lower the memory the engine takes with --gpu-memory-utilization."


def test_verifier_checks_flags_and_env_vars_against_the_release(release_assistant):
    check = release_assistant.releases.check(NEW)
    text = (
        "Set `--gpu-memory-utilization 0.8` [1] and `--kv-offload-gb 4`, or VLLM_ENGINE_ITERATION_TIMEOUT_S=120 "
        "and --turbo [1].\nInstall with `pip install vllm --no-deps`."
    )
    got = verify(text, {1: SOURCE}, "kv cache is too small", release_check=check)
    absent = {t.text for t in got.absent}
    assert absent == {"VLLM_ENGINE_ITERATION_TIMEOUT_S=120", "--turbo"}  # 0.99.0 removed one and never had the other
    assert "VLLM_ENGINE_ITERATION_TIMEOUT_S=120 (does not exist in vLLM 0.99.0)" in got.text
    assert "--turbo (does not exist in vLLM 0.99.0)" in got.text
    # --kv-offload-gb is in no cited source but in the release: verified, not marked; pip's flag is not vLLM's.
    assert "--kv-offload-gb" not in {t.text for t in got.unverified}
    assert "`--no-deps` (" not in got.text
    old = verify(text, {1: SOURCE}, "", release_check=release_assistant.releases.check(OLD))
    assert {t.text for t in old.absent} == {"--kv-offload-gb", "--turbo"}


def test_extractive_answer_checks_what_the_curated_entry_states(release_assistant):
    answer = release_assistant.ask("RuntimeError: not home_path.empty()", vllm_version=NEW)
    assert not answer.abstained and answer.citations[0].source.startswith("corpus/entries/")
    line = next(ln for ln in answer.body.splitlines() if ln.startswith("**Checked against vLLM 0.99.0's source:**"))
    assert "`VLLM_USE_DEEP_GEMM` does not exist in vLLM 0.99.0" in line  # the small release has no DeepGEMM switch


def test_fixed_in():
    assert fixed_in_line("0.30.0", "0.31.0", "en") == (
        "**Fixed in 0.30.0; you are on 0.31.0: this may be a different problem.**"
    )
    assert fixed_in_line("0.30.0", "0.30.0", "en") is not None
    assert fixed_in_line("0.32.0", "0.31.0", "en") is None  # the user is before the fix: the entry applies
    assert fixed_in_line("builds that include PR #44401", "0.31.0", "en") is None  # not a version: nothing claimed
    assert fixed_in_line("0.30.0", None, "en") is None


def test_api_vllm_version_field(release_assistant, tmp_path):
    settings = release_assistant.settings.with_overrides(feedback_db=tmp_path / "fb.sqlite3")
    kv = "ValueError: No available memory for the cache blocks. Try increasing gpu_memory_utilization"
    with ServerThread(create_api(release_assistant, settings)) as server:
        server.wait_ready()
        r = httpx.post(server.url + "/v1/ask", json={"question": kv, "vllm_version": OLD}, timeout=60)
        assert r.status_code == 200
        assert r.json()["citations"][0]["source"].startswith(f"https://github.com/vllm-project/vllm/blob/v{OLD}/")
        bad = httpx.post(server.url + "/v1/ask", json={"question": kv, "vllm_version": "latest"}, timeout=60)
        assert bad.status_code == 422
