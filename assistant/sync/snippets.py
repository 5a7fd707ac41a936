"""The source code a docs page pulls in with an MkDocs snippet include, as the rendered page shows it (pure).

A page writes `--8<-- "vllm/entrypoints/openai/chat_completion/protocol.py:chat-completion-extra-params"` inside a
code fence, and the site shows the lines of that region of the source (marked `# --8<-- [start:name]` ...
`# --8<-- [end:name]`), dedented, in its place: the OpenAI server's list of extra parameters is only there. The reader
takes those lines from the same archive the page comes from. A Markdown include (`*.inc.md`) is a page of its own
and is read as one (`assistant/ingest/markdown_docs.py`); only source files are resolved here.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping

_INCLUDE = re.compile(r'^(\s*)-{2}8<-{2}\s+"((?:vllm|examples)/[^":]+\.py)(?::([\w-]+))?"\s*$')
_REGION = re.compile(r"^\s*#\s*-{2}8<-{2}\s+\[(start|end):([\w-]+)\]\s*$")
MAX_LINES = 400  # an include longer than this (a whole module) is left out, as before


def included_files(text: str) -> set[str]:
    """The source files a page includes (paths under the archive's top folder)."""
    return {m.group(2) for line in text.split("\n") if (m := _INCLUDE.match(line))}


def region(source: str, name: str | None) -> list[str] | None:
    """The lines of region `name` of a source file (the whole file without a name), without the markers; None when
    the file has no such region."""
    lines = source.split("\n")
    if name is None:
        return [line for line in lines if not _REGION.match(line)]
    out: list[str] = []
    inside = found = False
    for line in lines:
        marker = _REGION.match(line)
        if marker and marker.group(2) == name:
            inside, found = marker.group(1) == "start", True
        elif inside and not marker:
            out.append(line)
    return out if found else None


def resolve_includes(text: str, files: Mapping[str, str]) -> str:
    """`text` with each source include replaced by its lines, dedented and indented like the directive; an include
    whose file or region is missing, or that runs past `MAX_LINES`, is left as it was (build syntax, dropped later)."""
    out = []
    for line in text.split("\n"):
        m = _INCLUDE.match(line)
        source = files.get(m.group(2)) if m else None
        lines = region(source, m.group(3)) if m and source is not None else None
        if m is None or lines is None or len(lines) > MAX_LINES:
            out.append(line)
            continue
        body = textwrap.dedent("\n".join(lines)).strip("\n")
        out.extend(f"{m.group(1)}{code}" if code else "" for code in body.split("\n"))
    return "\n".join(out)
