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

# Every pattern here is matched at one position of one line, or searched for a literal, and no two adjacent
# quantifiers overlap: the work is linear in the paste (`tests/text/test_input_cost.py`). Leading whitespace is
# stripped once (`str.lstrip`, the same characters as `\s`) instead of being matched by a `\s*` that every
# alternative would backtrack over.
_DETAILS_OPEN = re.compile(r"<details>", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"</details>", re.IGNORECASE)
_FENCE_OPEN = re.compile(r"[ \t]*+(```|~~~)")
_FENCE_CLOSE = {fence: re.compile(rf"[ \t]*+{fence}[ \t]*+") for fence in ("```", "~~~")}
# What only an environment report says.
_ENVIRONMENT = re.compile(
    r"collect_env|collect-env|Collecting environment information|PyTorch version\s*+:|Is CUDA available\s*+:|"
    r"Versions of relevant libraries|GPU Topology|CUDA used to build PyTorch",
    re.IGNORECASE,
)
# The shapes of collect_env's lines (left-stripped): "Key: value", its library list, its topology matrix, its
# banners, blank lines.
_ENV_LINE = re.compile(
    r"$|\[(?:pip3?|conda)\]|GPU\d|NIC\d|Legend\b|X\s++=\s++Self|[=\-]{3}|"
    r"Collecting environment information|Versions of relevant libraries|[A-Za-z][\w .()/+\-#,']{0,60}:(?:\s|$)"
)
# ... that a traceback or an error line also has: "ValueError: ...", "ERROR 08-21 ...: ...", 'File "x.py", line 3'.
_NOT_ENV_LINE = re.compile(r"\w*(?:Error|Exception|Warning)\b|Traceback\b|File \"|(?:ERROR|WARNING|INFO|DEBUG)\b")
# A heading is "#" and then anything but a word character (more "#", spaces, an emoji) before its title.
_ENV_HEADING = re.compile(r"#\W*+your current environment\b", re.IGNORECASE)
# The issue template's own lines (left-stripped): its headings, its checklist, HTML comments and tags on a line of
# their own.
_TEMPLATE_LINE = re.compile(
    r"(?:#\W*(?:your current environment|describe the bug|before submitting a new issue|"
    r"how you are installing vllm|how would you like to use vllm|the output of|motivation|proposal|"
    r"alternatives|additional context|📚 the doc issue|suggest a potential alternative)\b.*+"
    r"|[-*]\s*+\[[ xX]\]\s.*+|<!--.*?-->|</?(?:details|summary)>.*+|.*</summary>)\s*+$",
    re.IGNORECASE,
)


def has_environment_report(text: str) -> bool:
    """Whether a paste holds a `collect_env.py` / `vllm collect-env` report."""
    return bool(_ENVIRONMENT.search(text))


def _drop_details(text: str) -> str:
    """Each `<details>…</details>` block (to the first closing tag) that holds an environment report, left out. A
    scan, not a lazy regex: a regex retries every later unclosed `<details>` to the end of the text (quadratic),
    while one opening tag with no closing tag after it means no later one has one either."""
    out: list[str] = []
    pos = 0
    while (opening := _DETAILS_OPEN.search(text, pos)) and (closing := _DETAILS_CLOSE.search(text, opening.end())):
        block = text[opening.start() : closing.end()]
        out.append(text[pos : opening.start()])
        out.append("" if has_environment_report(block) else block)
        pos = closing.end()
    out.append(text[pos:])
    return "".join(out)


def _drop_fences(text: str) -> str:
    """Each fenced block (a line opening with ``` or ~~~, to the next line that is that fence alone) that holds an
    environment report, left out; the block's lines become one empty line. The closing lines are indexed first, so
    an opening fence that is never closed costs one look-up, not a scan to the end of the text."""
    lines = text.split("\n")
    next_close: dict[str, list[int]] = {}
    for fence, pattern in _FENCE_CLOSE.items():
        nxt, after = [len(lines)] * (len(lines) + 1), len(lines)
        for j in range(len(lines) - 1, -1, -1):
            if pattern.fullmatch(lines[j]):
                after = j
            nxt[j] = after
        next_close[fence] = nxt
    out: list[str] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        close = next_close[opening.group(1)][i + 1] if opening and i + 1 < len(lines) else len(lines)
        if close < len(lines):
            block = "\n".join(lines[i : close + 1])
            out.append("" if has_environment_report(block) else block)
            i = close + 1
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _drop_unfenced_environment(text: str) -> str:
    """An environment report pasted without `<details>` or a fence (users often paste `collect_env.py`'s lines
    straight under the template's "Your current environment" heading): the run of report-shaped lines that follows
    the heading, when it is an environment report. The first line of another shape (a sentence, a traceback, an
    error line) ends the run, so what the user wrote under the dump stays, closed by a heading or not. A heading is
    not report-shaped, so each line is read by at most one run."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        if _ENV_HEADING.match(lines[i].lstrip()):
            end = i + 1
            while end < len(lines) and _is_environment_line(lines[end].lstrip()):
                end += 1
            if has_environment_report("\n".join(lines[i + 1 : end])):
                i = end
                continue
        i += 1
    return "\n".join(out)


def _is_environment_line(stripped: str) -> bool:
    return bool(_ENV_LINE.match(stripped)) and not _NOT_ENV_LINE.match(stripped)


def problem_text(text: str) -> str:
    """`text` without environment reports and template chrome; `text` itself if nothing would be left."""
    out = _drop_unfenced_environment(_drop_fences(_drop_details(text)))
    lines = [ln for ln in out.split("\n") if not _TEMPLATE_LINE.match(ln.lstrip())]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return body or text
