"""Markdown documentation split by headings: one chunk per section (long ones in parts), code blocks whole.

Each chunk records its heading path and cites `<file>#<anchor>`, the anchor being the heading's
explicit `{#id}` or python-markdown's slug of its text, as the rendered docs link to it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from assistant.models import Chunk

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^(\s*)(```+|~~~+)")
_EXPLICIT_ID = re.compile(r"\s*\{\s*#([\w-]+)[^}]*\}\s*$")
_MKDOCS_ANCHOR = re.compile(r"^\s*\[\]\(\)\{\s*#[\w-]+\s*\}\s*$")
_ADMONITION_MARKER = re.compile(r"^\s*(?:\?\?\?\+?|!!!)\s+[\w-]+\s*$")  # mkdocs "??? code": chrome, not text
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]+)\]\[[^\]]*\]")
_MAX_CHARS = 1500
_TABLE_ROWS_CHARS = 500


def slugify(heading: str) -> str:
    text = re.sub(r"[`*_~]|<[^>]+>", "", heading)
    text = _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


@dataclass
class Section:
    path: list[str]  # heading texts from the page title down
    anchor: str
    blocks: list[str] = field(default_factory=list)  # paragraphs and whole code blocks


def _blocks(lines: list[str]) -> list[str]:
    """Group lines into paragraphs; a fenced code block (with its admonition indent) is one block."""
    blocks: list[str] = []
    cur: list[str] = []
    fence: str | None = None
    for line in lines:
        m = _FENCE.match(line)
        if fence is None and _ADMONITION_MARKER.match(line):
            continue
        if fence is None and m:
            if cur:
                blocks.append("\n".join(cur))
                cur = []
            cur.append(line)
            fence = m.group(2)[0] * 3
            continue
        if fence is not None:
            cur.append(line)
            if line.strip().startswith(fence) and m:
                fence = None
                blocks.append("\n".join(cur))
                cur = []
            continue
        if not line.strip():
            if cur:
                blocks.append("\n".join(cur))
                cur = []
            continue
        cur.append(line)
    if cur:
        blocks.append("\n".join(cur))
    out: list[str] = []
    for b in blocks:
        if b.strip() and not _MKDOCS_ANCHOR.match(b):
            out.extend(_split_table(b.strip("\n")))
    return out


def split_blocks(text: str) -> list[str]:
    """Paragraphs of a Markdown text, a code block (blank lines and all) being one paragraph."""
    return _blocks(text.split("\n"))


def _split_table(block: str, limit: int = _TABLE_ROWS_CHARS) -> list[str]:
    """A long table becomes groups of rows, each under the table's header: one row is one fact."""
    lines = block.split("\n")
    if len(block) <= limit or len(lines) < 4 or not all(ln.lstrip().startswith("|") for ln in lines):
        return [block]
    header, rows = lines[:2], lines[2:]
    groups: list[list[str]] = [[]]
    for row in rows:
        if groups[-1] and sum(len(r) for r in groups[-1]) + len(row) > limit:
            groups.append([])
        groups[-1].append(row)
    return ["\n".join(header + g) for g in groups]


def split_sections(text: str, fallback_title: str) -> list[Section]:
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":  # front matter; its title names a page that has no H1
        for i in range(1, len(lines)):
            title = re.match(r"^title:\s*['\"]?(.+?)['\"]?\s*$", lines[i])
            if title:
                fallback_title = title.group(1)
            if lines[i].strip() == "---":
                lines = lines[i + 1 :]
                break
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    current = Section(path=[fallback_title], anchor="")
    fence: str | None = None

    def close() -> None:
        current.blocks = _blocks(body)
        if current.blocks:
            sections.append(current)

    for line in lines:
        m = _FENCE.match(line)
        if m:
            fence = None if fence else m.group(2)[0]
        h = _HEADING.match(line) if fence is None and not m else None
        if not h:
            body.append(line)
            continue
        close()
        body = []
        level, raw = len(h.group(1)), h.group(2)
        explicit = _EXPLICIT_ID.search(raw)
        title = _EXPLICIT_ID.sub("", raw).strip()
        stack = [(lv, t) for lv, t in stack if lv < level] + [(level, title)]
        current = Section(path=[t for _, t in stack], anchor=explicit.group(1) if explicit else slugify(title))
    close()
    return sections


def _parts(blocks: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    size = 0
    for b in blocks:
        is_table = b.lstrip().startswith("|")
        if parts[-1] and (size + len(b) > _MAX_CHARS or (is_table and size + len(b) > _TABLE_ROWS_CHARS * 1.5)):
            parts.append([])
            size = 0
        parts[-1].append(b)
        size += len(b) + 2
    return parts


def _plain(markdown: str) -> str:
    return _LINK.sub(lambda m: m.group(1) or m.group(2) or "", markdown)


def load_markdown(text: str, path: Path, source: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    for section in split_sections(text, fallback_title=path.stem):
        cite = f"{source}#{section.anchor}" if section.anchor else source
        title = " › ".join(section.path)
        parts = _parts(section.blocks)
        for i, blocks in enumerate(parts):
            body = "\n\n".join(blocks)
            chunks.append(
                Chunk(
                    id=cite if i == 0 else f"{cite}~{i + 1}",
                    kind="doc",
                    title=title,
                    source=cite,
                    origin=str(path),
                    dense_text=f"{title}\n{_plain(body)}",
                    lexical_text=f"{title}\n{body}",
                    lang="en",
                    data={"heading_path": section.path, "body": body, "part": i + 1, "parts": len(parts)},
                )
            )
    return chunks
