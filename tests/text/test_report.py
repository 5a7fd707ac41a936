"""A pasted GitHub issue: retrieval reads the problem, not the environment dump or the template around it."""

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

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


def test_an_environment_report_pasted_without_a_fence_is_left_out_up_to_the_next_heading():
    """Users often paste collect_env's lines straight under the template's heading: no <details>, no fence."""
    issue = f"[Bug]: streaming responses lost their usage field\n\n### Your current environment\n\n{ENV}\n\n" \
        "### 🐛 Describe the bug\nSince the upgrade the last chunk has no `usage`. How do I get it back?"
    body = problem_text(issue)
    assert "PyTorch version" not in body and "GCC" not in body and "RTX 4090" not in body
    assert "streaming responses lost their usage field" in body and "How do I get it back?" in body
    assert "0.10.1.1" in analyze(issue).signals.versions  # the setup is still read from the whole paste
    # a section under the heading that is not an environment report is the user's words: kept
    said = "### Your current environment\nI run the official Docker image on two A100s.\n### 🐛 Describe the bug\nit hangs"
    assert "official Docker image on two A100s" in problem_text(said)
    # no heading closes the section: the dump goes, the error pasted under it stays
    unclosed = f"[Bug]: the engine dies\n### Your current environment\n{ENV}\nValueError: No available memory for the cache blocks."
    assert problem_text(unclosed) == "[Bug]: the engine dies\nValueError: No available memory for the cache blocks."
    prose = f"[Bug]: slow\n### Your current environment\n{ENV}\n[pip3] torch==2.8.0\n\nIt got slow after the upgrade."
    assert problem_text(prose).endswith("It got slow after the upgrade.") and "torch==2.8.0" not in problem_text(prose)


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


# problem_text as it was written with lazy regexes (quadratic on unclosed blocks and long whitespace runs): the
# linear scans that replaced them must leave out exactly the same text.
_OLD_DETAILS = re.compile(r"<details>.*?</details>", re.DOTALL | re.IGNORECASE)
_OLD_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
_OLD_ENV_LINE = re.compile(
    r"\s*$|\s*\[(?:pip3?|conda)\]|\s*(?:GPU\d|NIC\d|Legend\b|X\s+=\s+Self)|\s*[=\-]{3,}|"
    r"\s*(?:Collecting environment information|Versions of relevant libraries)|\s*[A-Za-z][\w .()/+\-#,']{0,60}:(?:\s|$)"
)
_OLD_NOT_ENV_LINE = re.compile(r"\s*(?:\w*(?:Error|Exception|Warning)\b|Traceback\b|File \"|(?:ERROR|WARNING|INFO|DEBUG)\b)")
_OLD_ENV_HEADING = re.compile(r"^\s*#{1,6}\s*\W*\s*your current environment\b", re.IGNORECASE)
_OLD_TEMPLATE_LINE = re.compile(
    r"^\s*(?:#{1,6}\s*\W*\s*(?:your current environment|describe the bug|before submitting a new issue|"
    r"how you are installing vllm|how would you like to use vllm|the output of|motivation|proposal|"
    r"alternatives|additional context|📚 the doc issue|suggest a potential alternative)\b.*"
    r"|[-*]\s*\[[ xX]\]\s.*|<!--.*?-->|</?(?:details|summary)>.*|.*</summary>)\s*$",
    re.IGNORECASE,
)


def _old_problem_text(text: str) -> str:
    def drop(m: re.Match[str]) -> str:
        return "" if re.search(r"collect_env|PyTorch version\s*:", m.group(0), re.IGNORECASE) else m.group(0)

    out = _OLD_FENCE.sub(drop, _OLD_DETAILS.sub(drop, text))
    lines, kept, i = out.split("\n"), [], 0
    while i < len(lines):
        kept.append(lines[i])
        if _OLD_ENV_HEADING.match(lines[i]):
            end = i + 1
            while end < len(lines) and _OLD_ENV_LINE.match(lines[end]) and not _OLD_NOT_ENV_LINE.match(lines[end]):
                end += 1
            if re.search(r"collect_env|PyTorch version\s*:", "\n".join(lines[i + 1 : end]), re.IGNORECASE):
                i = end
                continue
        i += 1
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(ln for ln in kept if not _OLD_TEMPLATE_LINE.match(ln))).strip()
    return body or text


_INDENT = ["", "", " ", "\t", "  \u00a0"]
_OTHER = [
    "", "x", "it hangs.", "#", "## ", "### 🐛 Describe the bug", "#Your current environment", "```", "```py", "~~~",
    "``` ", "<details>", "</DETAILS>", "<summary>x</summary>", "<!-- c -->", "- [ ] ", "* [x] y", "collect_env",
]  # fmt: skip
_REPORT = ["PyTorch version: 2.8", "GPU0", "[pip3] torch", "A b: c", "====", "ValueError: v", "INFO x", "X = Self", "Key:"]
# Most lines are a heading or report-shaped, so that runs under the heading are common.
_LINE = st.one_of(st.just("### Your current environment"), st.sampled_from(_REPORT), st.sampled_from(_OTHER))
_LINES = st.lists(st.tuples(st.sampled_from(_INDENT), st.lists(_LINE, min_size=1, max_size=2)), max_size=30)


@settings(max_examples=1000, deadline=None, derandomize=True)
@example("### Your current environment\n====\nPyTorch version: 2.8\nit hangs.")
@example("### Your current environment\nKey:\nPyTorch version: 2.8\nValueError: v\nA b: c")
@example(" \t```py\n[pip3] torch\ncollect_env\n```\n<details>\n<details>collect_env</DETAILS>\n```")
@given(_LINES.map(lambda lines: "\n".join(indent + "".join(parts) for indent, parts in lines)))
def test_the_linear_scans_leave_out_what_the_regexes_did(text: str) -> None:
    assert problem_text(text) == _old_problem_text(text)
