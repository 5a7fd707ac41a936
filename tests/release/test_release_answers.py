"""Answers with two small releases synced: cited raise sites, conditions, advice, versions, env vars and flags."""

from __future__ import annotations

OLD, NEW = "0.98.0", "0.99.0"
KV = "ValueError: No available memory for the cache blocks. Try increasing gpu_memory_utilization"


def test_pasted_error_cites_its_raise_site_condition_advice_and_release(release_assistant):
    answer = release_assistant.ask(KV)
    assert not answer.abstained
    url = answer.citations[0].source
    assert url.startswith(f"https://github.com/vllm-project/vllm/blob/v{NEW}/vllm/v1/core/kv_cache_planning.py#L")
    assert "`available_memory <= 0`" in answer.body  # the guarding condition
    assert "Try increasing `gpu_memory_utilization`" in answer.body  # what the code advises
    assert f"vLLM {NEW} source" in answer.body
    assert "version is not stated" in answer.body


def test_the_users_release_is_read_from_the_paste_or_given_explicitly(release_assistant):
    banner = f"INFO 11-29 10:00:00 [api_server.py:1] vLLM API server version {OLD}\n{KV}"
    answer = release_assistant.ask(banner)
    assert answer.citations[0].source.startswith(f"https://github.com/vllm-project/vllm/blob/v{OLD}/")
    assert f"same message is in vLLM {NEW}" in answer.body
    explicit = release_assistant.ask(KV, vllm_version=OLD)
    assert explicit.citations[0].source.startswith(f"https://github.com/vllm-project/vllm/blob/v{OLD}/")


def test_the_code_facts_come_from_the_release_the_setup_holds(release_assistant):
    # One reading of the user's release for the whole answer: what the paste states beats the field beside it
    # (the setup's rule), and of two releases in prose the one that fails now is the user's.
    pasted = release_assistant.ask(f"vLLM API server version {OLD}\n{KV}", vllm_version=NEW)
    assert pasted.citations[0].source.startswith(f"https://github.com/vllm-project/vllm/blob/v{OLD}/")
    upgraded = release_assistant.ask(f"vllm {OLD} worked, vllm {NEW} fails:\n{KV}")
    assert upgraded.citations[0].source.startswith(f"https://github.com/vllm-project/vllm/blob/v{NEW}/")


def test_a_version_that_is_not_indexed_is_said(release_assistant):
    answer = release_assistant.ask(f"on vllm 0.97.1 I get {KV}")
    assert f"You are on vLLM 0.97.1; this is from vLLM {NEW}" in answer.body
    assert "0.97.1 is not indexed" in answer.body


def test_env_var_in_only_one_release_says_which(release_assistant):
    answer = release_assistant.ask("VLLM_ENGINE_ITERATION_TIMEOUT_S has no effect any more")
    assert not answer.abstained
    line = next(ln for ln in answer.body.splitlines() if "VLLM_ENGINE_ITERATION_TIMEOUT_S" in ln)
    assert f"vLLM {OLD}" in line and f"not in vLLM {NEW} (removed after {OLD})" in line
    assert "Timeout for each iteration in the engine." in line  # the comment documenting it


def test_flag_added_and_default_changed_are_stated(release_assistant):
    added = release_assistant.ask("vllm serve: error: unrecognized arguments: --kv-offload-gb 4", vllm_version=OLD)
    line = next(ln for ln in added.body.splitlines() if "`--kv-offload-gb`" in ln)
    assert f"not in vLLM {OLD} (added after {OLD})" in line
    changed = release_assistant.ask("what does --gpu-memory-utilization default to?")
    line = next(ln for ln in changed.body.splitlines() if "`--gpu-memory-utilization`" in ln)
    assert f"default changed: `0.9` in {OLD}, `0.92` in {NEW}" in line


def _absent(name: str, answer) -> str:
    """The answer's absence line for `name`, which cites each release's list of flags."""
    n = {c.id: c.n for c in answer.citations}
    old, new = n[f"vllm-{OLD}:flags"], n[f"vllm-{NEW}:flags"]
    return f"`{name}` does not exist in vLLM {OLD} [{old}]; `{name}` does not exist in vLLM {NEW} [{new}]"


def test_a_flag_no_release_has_is_flagged_citing_each_releases_list_of_flags(release_assistant):
    answer = release_assistant.ask("vllm serve Qwen/Qwen3-8B --enable-turbo-mode fails with unrecognized arguments")
    assert _absent("--enable-turbo-mode", answer) in answer.body
    listed = {c.id: c for c in answer.citations}[f"vllm-{NEW}:flags"]
    assert listed.source == f"https://github.com/vllm-project/vllm/blob/v{NEW}/vllm/engine/arg_utils.py"


def test_an_answer_from_code_facts_alone_cites_and_its_citations_check(release_assistant):
    """A name no release has, asked about: the answer is the code facts' absence line, cited to the releases'
    lists of env vars, which the eval's citation check reads from the same release store."""
    from assistant.eval.code_citations import code_fact_lookup
    from assistant.eval.metrics import check_citations

    answer = release_assistant.ask("What does VLLM_ZEBRA_CACHE do? Setting it to 1 changes nothing.")
    assert not answer.abstained and "`VLLM_ZEBRA_CACHE` does not exist in vLLM" in answer.body
    ids = [c.id for c in answer.citations]
    assert f"vllm-{OLD}:env-vars" in ids and f"vllm-{NEW}:env-vars" in ids
    lookup = code_fact_lookup(release_assistant.releases)
    cited = {c.n: lookup(c.id) or release_assistant.retriever.lexical.by_id.get(c.id) for c in answer.citations}
    check = check_citations(answer.body, cited)
    assert check.valid, check.problems
    # the same line about a name the release has is a wrong absence claim, and the check says so
    present = next(e.name for e in release_assistant.releases.get(NEW).facts.env_vars)
    wrong = answer.body.replace("VLLM_ZEBRA_CACHE", present)
    assert not check_citations(wrong, cited).valid


def test_docker_flags_and_underscore_spellings_are_not_called_missing_vllm_flags(release_assistant):
    """`docker run --gpus all --ipc=host IMAGE ...`: the flags before the image are Docker's; and vLLM's parser
    reads `--gpu_memory_utilization` as `--gpu-memory-utilization`. Neither is "does not exist in vLLM"."""
    answer = release_assistant.ask(
        "docker run --gpus all --ipc=host -v ~/.cache/huggingface:/root/.cache/huggingface -p 8000:8000 "
        "vllm/vllm-openai:latest --model Qwen/Qwen3-8B --gpu_memory_utilization 0.95 --enable-turbo-mode\n"
        "fails with unrecognized arguments"
    )
    body = answer.body
    for docker_flag in ("--gpus", "--ipc", "-v", "-p"):
        assert f"`{docker_flag}` does not exist" not in body
    assert "`--gpu_memory_utilization` does not exist" not in body
    line = next(ln for ln in body.splitlines() if "`--gpu-memory-utilization`" in ln)
    assert "default changed" in line  # stated under the name the release defines, and cited by it
    assert any(c.id.endswith(":--gpu-memory-utilization") for c in answer.citations)
    assert not any("--gpu_memory_utilization" in c.id for c in answer.citations)
    assert _absent("--enable-turbo-mode", answer) in body  # vLLM's part is still checked


def test_another_programs_flags_are_not_called_missing_vllm_flags(release_assistant):
    """`python web_demo.py --device cuda` passes their script's flags, `python -m sglang.launch_server --tp 8` another
    engine's: neither is a vLLM flag that "does not exist", while the vLLM command's own flags are still checked."""
    answer = release_assistant.ask(
        "web_demo.py needs 10G, vllm needs 23G, why?\n"
        "python web_demo.py --device cuda --dtype bf16\n"
        "python3 -m sglang.launch_server --model-path m --tp 8\n"
        "python -m vllm.entrypoints.openai.api_server --model m --enable-turbo-mode\n"
        "fails with unrecognized arguments"
    )
    for other in ("--device", "--model-path", "--tp"):
        assert f"`{other}` does not exist" not in answer.body, answer.body
    assert _absent("--enable-turbo-mode", answer) in answer.body


def test_a_misspelt_flag_is_said_missing_with_the_flag_it_misspells(release_assistant):
    answer = release_assistant.ask("vllm serve m --gpu-memory-utilisation 0.9 fails with unrecognized arguments")
    line = next(ln for ln in answer.body.splitlines() if "`--gpu-memory-utilisation` does not exist" in ln)
    assert f"did you mean `--gpu-memory-utilization`? vLLM {NEW} has it" in line, answer.body
    assert "did you mean" not in release_assistant.ask("vllm serve m --enable-turbo-mode: unrecognized arguments").body


def test_a_warning_a_log_carries_is_not_an_answer_alone(release_assistant):
    """A warning is the engine's remark on its way, there whatever went wrong: its site is not the answer to the
    problem, while the site of a raised error is."""
    warning = "WARNING 12-01 10:00:00 [kv_cache_manager.py:140] Allocating 900 blocks of 1000 free; preemption may"
    warning += " follow"
    answer = release_assistant.ask(f"{warning}\nthe server answers slowly after an hour")
    assert not [c for c in answer.citations[:1] if c.id.endswith(":log")], answer.body
    raised = release_assistant.ask("RuntimeError: Cannot allocate 900 blocks: only 100 free")
    assert raised.citations[0].id.endswith(":raise"), raised.body


def test_dependency_error_is_not_attributed(release_assistant):
    answer = release_assistant.ask("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error")
    assert "github.com/vllm-project/vllm/blob" not in answer.body
    assert not [c for c in answer.citations if "github.com/vllm-project/vllm/blob" in c.source]


def test_a_flag_only_the_users_command_line_passes_does_not_answer_a_paste(release_assistant):
    """The flag facts describe what the user runs (their setup); alone they are not an answer to the problem."""
    command = "vllm serve /models/x \\\n    --gpu-memory-utilization 0.7 \\\n    --kv-offload-gb 4"
    story = "After the weights load the process sits there: no log line, no error, and the port never opens. " * 6
    answer = release_assistant.ask(f"## Server never becomes ready\n\n```bash\n{command}\n```\n\n{story}")
    assert not [c for c in answer.citations[:1] if c.id.startswith("vllm-")], answer.body  # no flag fact leads
    asked = release_assistant.ask(f"{story}\nWhat does --gpu-memory-utilization default to?")
    assert not asked.abstained and "`--gpu-memory-utilization`" in asked.body  # asked about: the facts answer


def test_a_wrapper_that_relays_another_error_is_not_where_it_was_raised(release_assistant):
    """A worker's "failed with error '<the real error>'" names the wrapper, not the error: its site does not answer."""
    inner = "MLA kv_data_type torch.uint8 is not supported. Supported dtypes: [torch.float16, torch.bfloat16]."
    relayed = f"RuntimeError: Worker failed with error '{inner}', please check the stack trace above for the root cause"
    answer = release_assistant.ask(relayed)
    assert not [c for c in answer.citations if "multiproc_executor.py" in c.source], answer.body
    # the wrapper's own words around a short value are its message: that site is cited
    short = release_assistant.ask(
        "RuntimeError: Worker failed with error 'timeout', please check the stack trace above for the root cause"
    )
    assert [c for c in short.citations if "multiproc_executor.py" in c.source], short.body


def _announcement_is_not_cited(release_assistant, paste: str) -> None:
    """`paste` (engine-loop lines over a last error line of another package) cites no site of the engine loop's file;
    with a vLLM error as its last line instead, that error's site is cited."""
    answer = release_assistant.ask(paste)
    assert not [c for c in answer.citations if "v1/engine/core.py" in c.source], answer.body
    own_error = "ValueError: Request cmpl-42 exceeds the token budget of this step"
    blocks = release_assistant.ask(paste.replace(paste.splitlines()[-1], own_error))
    assert [c for c in blocks.citations if "sched/scheduler.py" in c.source], blocks.body


def test_a_log_line_that_announces_a_caught_failure_is_not_where_it_was_raised(release_assistant):
    """"EngineCore encountered a fatal error." is logged by the engine loop's catch-all before the real error's
    traceback: it says that the engine died, not why, so its site does not answer. The real error's site does."""
    crash = (
        "ERROR 11-29 10:01:02 [core.py:12] EngineCore encountered a fatal error.\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 9, in run_engine_core\n'
        "    engine_core.run_busy_loop()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    )
    _announcement_is_not_cited(release_assistant, crash)


def test_the_engines_crash_dump_is_not_where_the_error_was_raised(release_assistant):
    """The engine's crash dump ("Dumping input data for V1 LLM engine ...") is logged by a function named for the
    exception it dumps, after a step failed: its lines say what ran, not why it failed, so its site does not answer a
    paste whose own error is a dependency's. A vLLM error pasted under it is still cited."""
    dump = (
        "(EngineCore_DP0 pid=45029) ERROR 01-07 15:12:55 [dump_input.py:72] Dumping input data for V1 LLM engine "
        "(v0.99.0) with config: model='Qwen/Qwen3-0.6B', speculative_config=None, tokenizer='Qwen/Qwen3-0.6B', \n"
        "(EngineCore_DP0 pid=45029) ERROR 01-07 15:12:55 [dump_input.py:79] Dumping scheduler output for model "
        "execution: SchedulerOutput(scheduled_new_reqs=[], num_scheduled_tokens={})\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.12/site-packages/xgrammar/matcher.py", line 40, in apply_token_bitmask\n'
        "RuntimeError: logits must be float32 on CPU, got bfloat16"
    )
    _announcement_is_not_cited(release_assistant, dump)


def test_a_name_the_users_vllm_refuses_and_the_release_accepts_says_upgrade(release_assistant):
    """The error lists what the user's vLLM knows; the newest release knows more: their vLLM is older. The line cites
    the registry's line, and the citation checks against the release store."""
    from assistant.eval.code_citations import code_fact_lookup
    from assistant.eval.metrics import check_citations

    answer = release_assistant.ask("ValueError: Unknown quantization method: gptq. Must be one of ['awq'].")
    assert not answer.abstained
    line = next(ln for ln in answer.body.splitlines() if ln.startswith("- `gptq`"))
    assert f"a quantization method vLLM {NEW} supports" in line and "upgrade vLLM" in line
    assert "--quantization gptq" in line
    cited = {c.id: c for c in answer.citations}[f"vllm-{NEW}:quantization:gptq"]
    assert cited.source.endswith(f"/v{NEW}/vllm/model_executor/layers/quantization/__init__.py#L6")
    lookup = code_fact_lookup(release_assistant.releases)
    check = check_citations(answer.body, {c.n: lookup(c.id) for c in answer.citations})
    assert check.valid, check.problems
    # a user on the newest release has another cause: nothing is said about upgrading
    same = release_assistant.ask(
        "ValueError: Unknown quantization method: gptq. Must be one of ['awq'].", vllm_version=NEW
    )
    assert "- `gptq`" not in same.body
    # an architecture the registry lists as removed: the last release that served it
    removed = release_assistant.ask("ValueError: Model architectures ['OldLMHeadModel'] are not supported for now.")
    assert f"vLLM served until v{OLD} and no longer does" in removed.body
    # a refused name no release knows (a typo) gets no such line
    typo = release_assistant.ask(
        "vllm: error: argument --tool-call-parser: invalid choice: 'hermez' (choose from 'hermes')"
    )
    assert "- `hermez`" not in typo.body


def test_a_flag_value_the_users_vllm_refuses_and_the_release_accepts_says_upgrade(release_assistant):
    """argparse's "invalid choice" for any flag: the newer release lists the value among the flag's choices."""
    from assistant.eval.code_citations import code_fact_lookup
    from assistant.eval.metrics import check_citations

    paste = "vllm: error: argument --kv-cache-dtype: invalid choice: 'fp8_e5m2' (choose from 'auto', 'fp8')"
    answer = release_assistant.ask(paste)
    line = next(ln for ln in answer.body.splitlines() if ln.startswith("- `fp8_e5m2`"))
    assert f"a `--kv-cache-dtype` value vLLM {NEW} supports" in line and "`--kv-cache-dtype fp8_e5m2`" in line
    cited = next(c for c in answer.citations if c.id == f"vllm-{NEW}:flag_choice:--kv-cache-dtype=fp8_e5m2")
    check = check_citations(line, {cited.n: code_fact_lookup(release_assistant.releases)(cited.id)})
    assert check.valid, check.problems  # the line's claim checks against the release's record of the flag
    # a value no release accepts is a typo, not an old release
    typo = release_assistant.ask(paste.replace("fp8_e5m2", "fp8_e9m9"))
    assert "- `fp8_e9m9`" not in typo.body
