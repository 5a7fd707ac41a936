"""A pasted GitHub issue: retrieval reads the problem, not the environment dump or the template around it."""

from assistant.retrieval.query import analyze
from assistant.text.report import problem_text

ENV = """Collecting environment information...
PyTorch version: 2.8.0+cu128
CUDA used to build PyTorch: 12.8
OS: Ubuntu 22.04.4 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
vLLM Version: 0.10.1.1"""

ISSUE = f"""### Your current environment
<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
{ENV}
```
</details>

### 🐛 Describe the bug
`vllm serve Qwen/Qwen2.5-14B-Instruct --max-model-len 32768` dies after loading the weights:

```
ERROR 08-21 10:12:19 [core.py:700] EngineCore failed to start.
ERROR 08-21 10:12:19 [core.py:700]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core
ERROR 08-21 10:12:19 [core.py:700] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.
```
I already tried a higher utilization. What else can I change?

### Before submitting a new issue...
- [x] Make sure you already searched for relevant issues, and asked the chatbot living at the bottom right corner."""


def test_the_environment_report_and_the_template_are_left_out():
    body = problem_text(ISSUE)
    assert "PyTorch version" not in body and "GCC" not in body and "collect_env" not in body
    assert "Describe the bug" not in body and "Before submitting" not in body and "- [x]" not in body
    assert "No available memory for the cache blocks" in body and "--max-model-len 32768" in body
    assert "What else can I change?" in body


def test_a_fenced_traceback_stays_and_a_bare_question_is_unchanged():
    fenced = "it crashes:\n```\nRuntimeError: CUDA error: an illegal memory access was encountered\n```"
    assert problem_text(fenced) == fenced
    assert problem_text("why is vllm slow on my A100?") == "why is vllm slow on my A100?"
    assert problem_text(f"```\n{ENV}\n```") == f"```\n{ENV}\n```"  # nothing else: the paste is kept as it is


def test_the_query_embeds_the_error_and_the_question_and_keeps_the_setup():
    q = analyze(ISSUE)
    assert "No available memory for the cache blocks" in q.dense_text and "What else can I change?" in q.dense_text
    assert "PyTorch version" not in q.dense_text and "[core.py:700]" not in q.dense_text
    assert "gcc" not in q.lexical_tokens and "ubuntu" not in q.lexical_tokens
    assert "0.10.1.1" in q.signals.versions and "RTX 4090" in q.signals.gpus  # the setup comes from the whole paste
