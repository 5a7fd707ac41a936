from assistant.text.signals import extract_signals, salient_text

LOG = """My server on an RTX 5090 (SM120) dies while loading the model, vllm 0.11.0:
INFO 06-10 21:32:17 [gpu_model_runner.py:1234] Loading model weights took 0.5 GB
(EngineCore_DP0 pid=123) ERROR 06-10 21:32:19 [core.py:700] EngineCore failed to start.
Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core
    engine_core = EngineCoreProc(*args, **kwargs)
RuntimeError: not home_path.empty()
command: VLLM_USE_DEEP_GEMM=1 vllm serve Qwen/Qwen3-0.6B-FP8 --enforce-eager
"""


def test_signals_from_pasted_log():
    s = extract_signals(LOG)
    assert "RuntimeError" in s.exceptions
    assert "RuntimeError: not home_path.empty()" in s.messages
    assert "VLLM_USE_DEEP_GEMM=1" in s.env_vars
    assert "--enforce-eager" in s.flags
    assert "0.11.0" in s.versions
    assert {"RTX 5090", "SM120"} <= set(s.gpus)
    assert "Qwen/Qwen3-0.6B-FP8" in s.models
    assert "home_path.empty()" in s.identifiers


def test_salient_text_keeps_description_and_error_drops_frames():
    focus = salient_text(LOG)
    assert focus.startswith("My server on an RTX 5090")
    assert "RuntimeError: not home_path.empty()" in focus
    assert 'File "/usr/lib' not in focus
    assert "Loading model weights" not in focus


def test_short_text_is_kept_as_is():
    assert salient_text("CUDA error: an illegal memory access was encountered") == (
        "CUDA error: an illegal memory access was encountered"
    )


def test_a_warning_line_counts_by_its_level_and_access_logs_do_not():
    log = (
        "serving an 8B model for a batch job, after a few minutes latency explodes, what should I change?\n"
        'INFO:     10.0.0.9:48312 - "POST /v1/completions HTTP/1.1" 200 OK\n'
        "INFO 11-20 03:14:02 metrics.py:449] Avg prompt throughput: 2210.4 tokens/s, Running: 62 reqs\n"
        "WARNING 11-20 03:14:07 scheduler.py:1560] Sequence group cmpl-8c-0 is preempted by PreemptionMode.RECOMPUTE "
        "mode because there is not enough KV cache space.\n"
    )
    focus = salient_text(log)
    assert "Sequence group cmpl-8c-0 is preempted" in focus and "scheduler.py" not in focus
    assert "POST /v1/completions" not in focus and "throughput" not in focus


def test_code_in_a_fence_is_not_prose_and_a_multiline_message_is_read_whole():
    paste = (
        "My batch script dies as soon as I set tensor_parallel_size=2:\n"
        "```python\n"
        "from vllm import LLM, SamplingParams\n"
        "prompts = [json.loads(line)['prompt'] for line in open('p.jsonl')]\n"
        "```\n"
        "```\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/multiprocessing/spawn.py", line 134, in _check_not_importing_main\n'
        "    raise RuntimeError('''\n"
        "RuntimeError:\n"
        "        An attempt has been made to start a new process before the\n"
        "        current process has finished its bootstrapping phase.\n"
        "```\n"
        "$ vllm serve my-model --tensor-parallel-size 2\n"
        "It worked on older versions. Is TP broken for offline inference?"
    )
    focus = salient_text(paste)
    assert "from vllm import" not in focus and "json.loads" not in focus
    assert "RuntimeError: An attempt has been made to start a new process before the current process" in focus
    assert "Is TP broken for offline inference?" in focus and "vllm serve my-model" in focus


def test_a_chinese_sentence_counts_as_the_users_words():
    # Chinese puts no space between words: by `split()` each of these lines is one word, and the focus text was the
    # command alone (what the dense channel then embedded), with the user's description of the problem left out.
    paste = (
        "多卡部署的时候服务起不来\n"
        "我的启动命令如下：\n"
        "```shell\n"
        "vllm serve my-org/my-model \\\n"
        "  --tensor-parallel-size 4\n"
        "```\n"
        "日志停在加载权重之后，显卡占用一直是百分之百，也没有任何报错\n"
    )
    focus = salient_text(paste, chinese_words=True)
    assert focus.startswith("多卡部署的时候服务起不来")
    assert "日志停在加载权重之后" in focus and "vllm serve my-org/my-model" in focus
    assert "--tensor-parallel-size 4" not in focus  # inside the fence: not the user's words
    # Off (the default, `Settings.chinese_prose_words`): the words are counted by spaces, so a Chinese line is prose
    # only when the user wrote nothing that counts as prose ...
    assert "日志停在加载权重之后" in salient_text(paste)
    assert salient_text(paste).index("日志停在") < salient_text(paste).index("vllm serve")
    # ... and not beside an English sentence of four words or more.
    mixed = paste + "It worked fine on the older release\n"
    assert "日志停在加载权重之后" not in salient_text(mixed)
    assert "日志停在加载权重之后" in salient_text(mixed, chinese_words=True)


def test_the_setting_reaches_the_focus_text():
    from assistant.retrieval.query import analyze

    paste = (
        "It worked fine on the older release\n我的启动命令如下：\n```\nvllm serve my-org/my-model\n```\n"
        "日志停在加载权重之后，显卡占用一直是百分之百\n再等也没有用"
    )
    assert "日志停在加载权重之后" in analyze(paste, chinese_words=True).focus_text
    assert "日志停在加载权重之后" not in analyze(paste).focus_text


def test_a_short_chinese_phrase_is_not_prose():
    # Two characters ("日志") are about one word: under the bar of four, like a short English label line.
    focus = salient_text(
        "日志\n```\nsome code here\nmore code\n```\nThe server stops answering after an hour of load", chinese_words=True
    )
    assert "日志" not in focus.split("\n")


def test_a_short_chinese_question_is_its_words_not_its_command():
    text = (
        "双卡部署起不来\n启动命令：\n```bash\nvllm serve my-org/my-model \\\n  --tensor-parallel-size 2 \\\n"
        "  --max-model-len 8192\n```\n权重加载到一半就不动了，日志也没有新输出"
    )
    focus = salient_text(text)
    assert "权重加载到一半就不动了" in focus and "双卡部署起不来" in focus
    assert focus.index("不动了") < focus.index("vllm serve")  # the command comes after what the user says


def test_an_english_paste_with_prose_does_not_take_its_short_lines():
    text = "The server hangs after loading the weights on two GPUs\nSee:\nvllm serve m --tensor-parallel-size 2\nThanks"
    assert "Thanks" not in salient_text(text) and "See:" not in salient_text(text)


def test_a_folder_of_a_python_files_path_is_not_a_model():
    text = (
        'File "/home/me/playground/LLama-Factory/scripts/vllm_infer.py", line 157, in vllm_infer\n'
        'File "/opt/conda/envs/llama3/lib/python3.10/site-packages/vllm/model_executor/models/qwen2.py", line 3\n'
        "vllm serve /data/models/Qwen2.5-7B-Instruct --port 8000"
    )
    assert extract_signals(text).models == ("models/Qwen2.5-7B-Instruct",)


def test_names_glued_to_chinese_text_are_read():
    """Chinese has no spaces: a flag, a variable, an exception or a version right after a Chinese character is one."""
    s = extract_signals("加了--enforce-eager参数，设置VLLM_USE_V1=0后正常，之前报错RuntimeError: x，版本是0.8.5")
    assert s.flags == ("--enforce-eager",)
    assert s.env_vars == ("VLLM_USE_V1=0",)
    assert "RuntimeError" in s.exceptions
    assert "0.8.5" in s.versions
