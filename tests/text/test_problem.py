"""The problem part of a message apart from its setup: the names a problem states, not those its command passes."""

import pytest

from assistant.text.problem import problem_names, problem_part, questioned_names, without_commands

COMMAND = (
    "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /models/glm \\\n    --tensor-parallel-size 4 \\\n    --max-model-len 16384"
)


def test_command_lines_and_their_continuations_are_setup():
    text = f"It hangs at NCCL init.\n{COMMAND}\nNothing after that."
    assert without_commands(text) == "It hangs at NCCL init.\nNothing after that."
    assert "--max-model-len" not in problem_part(text)


@pytest.mark.parametrize(
    "line",
    [
        "CUDA_VISIBLE_DEVICES=0,1 python3 -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2",
        "`CUDA_VISIBLE_DEVICES=0,1 python3 -m vllm.entrypoints.openai.api_server --model m`",
        "nohup python3 -m vllm.entrypoints.openai.api_server \\",
        "$ VLLM_USE_V1=0 HF_TOKEN=x vllm serve m --port 8000",
        "sudo docker run --gpus all vllm/vllm-openai:latest --model m",
        "vllm bench serve --model m --num-prompts 10",
        "DOCKER_BUILDKIT=1 docker build . --target vllm-openai --build-arg max_jobs=32",  # builds vLLM: setup too
        "pip install vllm==0.6.0",
        "uv pip install -e . --torch-backend=auto",
    ],
)
def test_command_lines_as_users_paste_them(line: str):
    assert without_commands(f"It hangs.\n{line}") == "It hangs."


@pytest.mark.parametrize(
    "line",
    [
        "# vllm serve hangs after the first request",  # a heading that names the command
        "vllm serve: error: unrecognized arguments: --turbo",  # the command's own error output
        "I run vllm serve with two GPUs",
        "python3 -m pip install vllm",
        "vllm serve takes ten minutes every start",  # a sentence that begins with the command's name
        "vllm serve 有健康检查的接口吗？",
        "docker run fails with a permission error on the socket",
        "docker build fails after the last commit",
        "pip install vllm takes an hour",
    ],
)
def test_lines_that_only_name_a_command_stay(line: str):
    assert without_commands(f"It hangs.\n{line}") == f"It hangs.\n{line}"


def test_a_command_quoted_inside_a_sentence_is_setup_too():
    text = "I built the image with `DOCKER_BUILDKIT=1 docker build . --build-arg max_jobs=32` and it dies"
    assert without_commands(text) == "I built the image with  and it dies"
    kept = "Setting `max_jobs` lower and `pip install -e .` fails with `error: subprocess-exited-with-error`"
    assert without_commands(kept) == "Setting `max_jobs` lower and  fails with `error: subprocess-exited-with-error`"


def test_a_short_question_states_the_names_it_asks_about():
    assert problem_names("what does --max-num-seqs default to?") == {"--max-num-seqs"}
    assert problem_names("vllm serve x --enable-turbo-mode fails with unrecognized arguments") == {
        "--enable-turbo-mode"
    }  # a short message is the question, its command line included


def test_a_short_message_s_pasted_command_line_is_its_setup():
    report = (
        "### Your current environment\n\n```text\n"
        "vllm serve Qwen/Qwen2.5-Omni-3B --dtype bfloat16 --swap-space 0\n```\n\n"
        "### Describe the bug\n\nThe CPU sits at 99% while it transcribes audio. Can that run on the GPU?"
    )
    assert len(report) < 600
    assert problem_names(report) == frozenset()  # what they run, not what they ask about
    assert problem_names(report + " Does --swap-space 0 matter?") == {"--swap-space"}  # asked in prose
    argparse = report.replace("The CPU sits", "vllm serve: error: unrecognized arguments. The CPU sits")
    assert "--swap-space" in problem_names(argparse)  # an error about the command line: its flags are the problem
    assert problem_names("vllm serve m --swap-space 4") == {"--swap-space"}  # the command is all there is


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


def test_the_names_a_message_asks_about_are_those_of_its_asking_sentences():
    assert questioned_names("what does --max-num-seqs default to?") == {"--max-num-seqs"}
    assert questioned_names("How do I set VLLM_HOST_IP on each node") == {"VLLM_HOST_IP"}
    assert questioned_names("VLLM_USE_MODELSCOPE 是什么意思") == {"VLLM_USE_MODELSCOPE"}
    # a report of what a name does wrong asks nothing about it
    assert questioned_names("[Bug]: --cpu-offload-gb uses twice the host memory it asks for") == frozenset()
    assert questioned_names("VLLM_SOME_FLAG=1 is silently ignored on ROCm. Any idea why?") == frozenset()
    # Chinese runs sentences on without a space: the name's own sentence decides
    assert questioned_names("export VLLM_USE_MODELSCOPE=true 就能下载了。还有别的原因呢？") == frozenset()
    assert questioned_names(f"{COMMAND}\nWhy does it hang?") == frozenset()  # the command line is setup
