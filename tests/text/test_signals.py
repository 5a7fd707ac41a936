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
