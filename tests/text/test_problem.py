"""The problem part of a message apart from its setup: the names a problem states, not those its command passes."""

from assistant.text.problem import problem_names, problem_part, without_commands

COMMAND = (
    "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /models/glm \\\n    --tensor-parallel-size 4 \\\n    --max-model-len 16384"
)


def test_command_lines_and_their_continuations_are_setup():
    text = f"It hangs at NCCL init.\n{COMMAND}\nNothing after that."
    assert without_commands(text) == "It hangs at NCCL init.\nNothing after that."
    assert "--max-model-len" not in problem_part(text)


def test_a_short_question_states_the_names_it_asks_about():
    assert problem_names("what does --max-num-seqs default to?") == {"--max-num-seqs"}
    assert problem_names("vllm serve x --enable-turbo-mode fails with unrecognized arguments") == {
        "--enable-turbo-mode"
    }  # a short message is the question, its command line included


def test_a_paste_states_the_names_of_its_error_lines_and_questions_only():
    body = "We run it on four RTX 5090 cards with `--tensor-parallel-size 4` and it hangs during NCCL init. " * 7
    assert len(body) > 600
    assert problem_names(body) == frozenset()  # the setup described, nothing asked about it
    asked = body + "\nShould VLLM_HOST_IP be set on each node?"
    assert problem_names(asked) == {"VLLM_HOST_IP"}
    error = body + "\nValueError: --max-num-batched-tokens (2048) is smaller than --max-model-len (8192)"
    assert {"--max-num-batched-tokens", "--max-model-len"} <= problem_names(error)


def test_a_command_s_own_error_output_is_the_problem():
    log = "INFO 12-01 10:00:00 [api_server.py:1] starting\n" * 14
    assert problem_names(f"{log}vllm serve: error: unrecognized arguments: --kv-offload-gb 4") == {"--kv-offload-gb"}


def test_names_are_spelled_as_vllms_parser_reads_them():
    assert problem_names("what does --max_model_len default to?") == {"--max-model-len"}


def test_problem_scope_of_a_paste_is_its_title_errors_and_questions_not_its_frames():
    from assistant.text.problem import problem_scope

    frames = "\n".join(f'  File "/opt/app/worker_{i}.py", line {i}, in step_{i}\n    run_step_{i}()' for i in range(30))
    paste = (
        "[Bug]: engine dies after warmup\n\nvllm serve Qwen/Qwen3-8B --enable-prefix-caching\n\n"
        f"Traceback (most recent call last):\n{frames}\nRuntimeError: CUDA error: an illegal memory access\n\n"
        "Is there a workaround?"
    )
    scope = problem_scope(paste)
    assert "engine dies after warmup" in scope and "illegal memory access" in scope and "workaround?" in scope
    assert "worker_3" not in scope and "--enable-prefix-caching" not in scope


from assistant.text.problem import defect_without_evidence, only_title, setting_names, tried_already  # noqa: E402

ENVIRONMENT = (
    "PyTorch version              : 2.9.1+cu128\nPython version               : 3.12.3\n"
    "GPU models and configuration : GPU 0: NVIDIA H100 80GB HBM3\nvLLM Version                 : 0.30.0"
)


def test_a_report_that_is_only_a_title_over_an_environment_states_a_defect_without_evidence():
    report = f"[Bug]: prefix caching returns stale logits after a LoRA adapter is swapped\n\n{ENVIRONMENT}"
    assert only_title(report) == "[Bug]: prefix caching returns stale logits after a LoRA adapter is swapped"
    assert defect_without_evidence(report)
    fenced = f"[Bug]: speculative decoding is slower than plain decoding when the batch grows\n\n```text\n{ENVIRONMENT}\n```"
    assert defect_without_evidence(fenced)  # the fence is not evidence either


def test_a_title_that_asks_or_quotes_an_error_or_a_report_with_more_is_not_a_defect_without_evidence():
    asks = [
        "[Bug]: how do I keep prefix caching on after a LoRA swap",
        "[Usage]: prefix caching with LoRA adapters",  # a usage question, filed as one
        "[Bug]: prefix caching after a LoRA swap, expected?",
        "Why does prefix caching return stale logits after a LoRA swap",
        "[Bug]: 切换 LoRA 之后前缀缓存如何刷新",
    ]
    for title in asks:
        assert not defect_without_evidence(f"{title}\n\n{ENVIRONMENT}"), title
    error = "[Bug]: RuntimeError: CUDA error: an illegal memory access was encountered"
    assert not defect_without_evidence(f"{error}\n\n{ENVIRONMENT}")  # the title is the error line itself
    more = f"[Bug]: prefix caching returns stale logits\n\n{ENVIRONMENT}\nValueError: block 12 was freed twice"
    assert only_title(more) is None and not defect_without_evidence(more)
    said = f"[Bug]: prefix caching returns stale logits\n\nIt happens after the second adapter is loaded.\n{ENVIRONMENT}"
    assert not defect_without_evidence(said)
    assert not defect_without_evidence("[Bug]: prefix caching returns stale logits\n\nvLLM Version : 0.30.0")


def test_setting_names_are_the_flags_and_env_vars_as_vllms_parser_spells_them():
    assert setting_names("set VLLM_WORKER_MULTIPROC_METHOD=spawn and pass --max_model_len 4096") == {
        "VLLM_WORKER_MULTIPROC_METHOD",
        "--max-model-len",
    }


def test_a_source_that_recommends_what_the_user_says_had_no_effect_is_tried_already():
    source = "Set `VLLM_WORKER_MULTIPROC_METHOD=spawn` before the engine starts."
    tried = "I export VLLM_WORKER_MULTIPROC_METHOD=spawn in the shell, but it has no effect: the workers still fork."
    assert tried_already(source, tried)
    assert tried_already(source, "VLLM_WORKER_MULTIPROC_METHOD=spawn 设置了也无效")
    assert not tried_already(source, "I export VLLM_WORKER_MULTIPROC_METHOD=spawn and the workers fork.")  # no "no effect"
    assert not tried_already(source, "The workers fork although I asked for threads.")  # the setting is not theirs
    both = source + " Or pass `--distributed-executor-backend mp`."
    assert not tried_already(both, tried)  # the source also recommends something they have not tried
    assert not tried_already("Restart the server.", tried)  # a source that names no setting
