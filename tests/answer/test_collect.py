"""An abstention asks only for what the message does not already give, and says what it read."""

from __future__ import annotations

from assistant.answer.collect import missing_details, read_as
from assistant.answer.extractive import compose
from assistant.retrieval.query import analyze
from assistant.text.setup import extract_setup

ISSUE = """### Your current environment

<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
Collecting environment information...
PyTorch version: 2.6.0+cu124
GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB
vLLM Version: 0.8.5
```

</details>

### 🐛 Describe the bug

$ vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
Traceback (most recent call last):
  File "/opt/venv/lib/python3.12/site-packages/vllm/worker/frob.py", line 12, in frob
ValueError: frobnication factor out of range
"""


def test_a_whole_issue_is_not_asked_for_again():
    assert missing_details(ISSUE, extract_setup(ISSUE)) == []
    answer = compose(analyze(ISSUE), [], 0.5)
    assert answer.abstained and not answer.declined
    assert "collect-env" not in answer.body and "To narrow it down" not in answer.body
    assert "Your message already has the details I would ask for" in answer.body
    assert "From your message: vLLM 0.8.5, A100 (SM80), Qwen/Qwen2.5-7B-Instruct." in answer.body


def test_a_one_line_error_is_asked_for_the_rest():
    text = "ValueError: frobnication factor out of range"
    assert missing_details(text, extract_setup(text)) == ["environment", "versions", "command", "model"]
    body = compose(analyze(text), [], 0.5).body
    assert "`vllm collect-env`" in body and "the full traceback" not in body


def test_a_hang_points_to_the_docs_on_logging_where_it_is_stuck():
    text = "vllm serve hangs forever after loading the weights, nothing in the log, on vLLM 0.9.1 with two L40S"
    body = compose(analyze(text), [], 0.5).body
    assert "docs/usage/troubleshooting.md#enable-more-logging" in body
    assert "From your message: vLLM 0.9.1, L40S (SM89)." in body
    assert "the GPU model(s)" not in body  # version and GPUs were given
    assert "the full traceback or server log" in body


def test_in_chinese():
    body = compose(analyze("启动的时候卡住了，一直没有反应"), [], 0.5).body
    assert "没有找到这个问题" in body and "`vllm collect-env` 的输出" in body and "卡住（hang）" in body


def test_a_server_log_and_its_start_up_args_count_as_given():
    text = (
        "is vLLM stuck? 40 minutes and still loading\n"
        "(APIServer pid=1) INFO 09-02 14:10:06 [utils.py:326] non-default args: {'model': '/mnt/models/Qwen2.5-32B'}\n"
        "(EngineCore_0 pid=211) INFO 09-02 14:10:31 [gpu_model_runner.py:1953] Starting to load model\n"
    )
    assert missing_details(text, extract_setup(text)) == ["environment", "versions"]


def test_a_model_named_several_ways_is_read_once():
    text = (
        "vllm serve Qwen/Qwen2.5-14B-Instruct-AWQ fails: HTTPSConnectionPool(host='huggingface.co'): "
        "url: /api/models/Qwen/Qwen2.5-14B-Instruct-AWQ/revision/main on vLLM 0.7.2 with an RTX 4090"
    )
    assert read_as(extract_setup(text)) == ["vLLM 0.7.2", "RTX 4090 (SM89)", "Qwen/Qwen2.5-14B-Instruct-AWQ"]


def test_an_abstention_on_an_error_searches_the_issue_tracker_for_its_words() -> None:
    from urllib.parse import parse_qs, urlparse

    from assistant.answer.collect import issue_search
    from assistant.text.signals import extract_signals

    url = issue_search(extract_signals("ModuleNotFoundError: No module named 'cohere_melody'"))
    assert url is not None and url.startswith("https://github.com/vllm-project/vllm/issues?q=")
    assert parse_qs(urlparse(url).query)["q"] == ["is:issue No module named cohere_melody"]
    # What differs from one run to the next is left out: paths, sizes, addresses.
    pasted = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB on /dev/x"
    oom = issue_search(extract_signals(pasted))
    assert oom is not None and "224" not in oom and "dev" not in oom and "CUDA+out+of+memory" in oom
    assert issue_search(extract_signals("How do I set the chat template?")) is None

    body = compose(analyze("RuntimeError: the engine died with no fix anyone knows of yet"), [], 0.5).body
    assert "https://github.com/vllm-project/vllm/issues?q=is%3Aissue+the+engine+died" in body
    assert "issues?q=" not in compose(analyze("Why is my vLLM server slow today?"), [], 0.5).body


def _findings(*indexed: str):
    from assistant.release.knowledge import Findings

    return Findings(indexed=indexed, stated=None, release=indexed[-1] if indexed else None)


def test_a_user_on_an_older_release_is_told_to_try_the_newest_one_indexed_first():
    findings = _findings("0.32.0", "0.33.0")
    body = compose(analyze(ISSUE), [], 0.5, findings=findings).body  # vLLM 0.8.5
    assert "You run vLLM 0.8.5, an older release than 0.33.0, the newest one I have" in body
    assert "first try 0.33.0" in body
    zh = compose(analyze("vllm 0.6.6 启动的时候卡住了，一直没有反应"), [], 0.5, findings=findings).body
    assert "你使用的是 vLLM 0.6.6，比我掌握的最新版本 0.33.0 旧" in zh


def test_no_upgrade_advice_within_the_newest_series_nor_without_a_release():
    findings = _findings("0.32.0", "0.33.0")
    for text in (
        "vllm serve hangs forever after loading the weights on vLLM 0.33.1",  # a patch release of the newest series
        "vllm serve hangs forever after loading the weights",  # no release said
    ):
        assert "an older release than" not in compose(analyze(text), [], 0.5, findings=findings).body
    assert "an older release than" not in compose(analyze(ISSUE), [], 0.5).body  # no release indexed


def test_older_minor():
    from assistant.answer.scope import older_minor

    assert older_minor("0.6.6.post2", "0.33.0") and older_minor("v0.32.1", "0.33.0")
    assert not older_minor("0.33.0rc1", "0.33.2") and not older_minor("0.34.0", "0.33.0")
    assert not older_minor("nightly", "0.33.0") and not older_minor(None, "0.33.0") and not older_minor("x", "0.33.0")


def test_an_abstention_on_a_message_that_never_shows_vllm_says_how_to_get_an_answer():
    body = compose(analyze("How do I pin the model to one GPU?"), [], 0.5).body
    assert "Your message does not say it is about vLLM" in body and "say so (with your vLLM version" in body
    zh = compose(analyze("怎么指定模型只用一张卡？"), [], 0.5).body
    assert "你的消息没有说明它是关于 vLLM 的" in zh
    for named in ("How do I pin vLLM to one GPU?", ISSUE):
        assert "does not say it is about vLLM" not in compose(analyze(named), [], 0.5).body
    # vLLM named only as the yardstick of the question: the message still does not say it is about vLLM
    assert "does not say it is about vLLM" in compose(analyze("Can I pin it to one GPU, like in vLLM?"), [], 0.5).body


def test_vllm_named_in_an_earlier_turn_still_holds():
    later = "How do I pin the model to one GPU?"
    assert analyze(later).vllm_unnamed
    assert not analyze(later, ["We run vLLM 0.9.1 on two L40S."]).vllm_unnamed
    body = compose(analyze(later, ["We run vLLM 0.9.1 on two L40S."]), [], 0.5).body
    assert "does not say it is about vLLM" not in body
