"""The problem part of a pasted issue or report: the environment dump and the issue template's chrome removed (pure).

vLLM's GitHub issue template asks for the output of `python collect_env.py` (dozens of lines of versions,
library lists and GPU topology, usually inside `<details>` or a code fence) and wraps the description in
headings ("### Your current environment", "### 🐛 Describe the bug") and checkboxes. Embedded or counted as
words, that dump makes every issue look like an installation question and pushes the user's own words out of
the few hundred characters the embedding model reads. Retrieval reads what is left; the user's setup (vLLM
version, GPU, model) is still read from the whole text (`assistant/text/setup.py`).
"""

from __future__ import annotations

import re

_DETAILS = re.compile(r"<details>.*?</details>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
# What only an environment report says.
_ENVIRONMENT = re.compile(
    r"collect_env|collect-env|Collecting environment information|PyTorch version\s*:|Is CUDA available\s*:|"
    r"Versions of relevant libraries|GPU Topology|CUDA used to build PyTorch",
    re.IGNORECASE,
)
# The issue template's own lines: its headings, its checklist, HTML comments and tags on a line of their own.
_TEMPLATE_LINE = re.compile(
    r"^\s*(?:#{1,6}\s*\W*\s*(?:your current environment|describe the bug|before submitting a new issue|"
    r"how you are installing vllm|how would you like to use vllm|the output of|motivation|proposal|"
    r"alternatives|additional context|📚 the doc issue|suggest a potential alternative)\b.*"
    r"|[-*]\s*\[[ xX]\]\s.*|<!--.*?-->|</?(?:details|summary)>.*|.*</summary>)\s*$",
    re.IGNORECASE,
)


def has_environment_report(text: str) -> bool:
    """Whether a paste holds a `collect_env.py` / `vllm collect-env` report."""
    return bool(_ENVIRONMENT.search(text))


def _drop_environment(match: re.Match[str]) -> str:
    block = match.group(0)
    return "" if has_environment_report(block) else block


def problem_text(text: str) -> str:
    """`text` without environment reports and template chrome; `text` itself if nothing would be left."""
    out = _DETAILS.sub(_drop_environment, text)
    out = _FENCE.sub(_drop_environment, out)
    lines = [ln for ln in out.split("\n") if not _TEMPLATE_LINE.match(ln)]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return body or text
