"""Markdown documentation split by headings: one chunk per section (long ones in parts), code blocks whole.

Each chunk records its heading path and cites `<file>#<anchor>` as the rendered docs (MkDocs, i.e.
python-markdown's toc extension) link to it: the heading's explicit `{#id}`, else the slug of its text
made unique on the page the way the renderer does it (a repeated "Extra parameters" becomes
`extra-parameters_1`, `extra-parameters_2`, ...), so no section is lost under another's id. The ids the
page sets itself (`{#id}`, `[](){ #id }` anchors) are taken first, as in the renderer.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from assistant.errors import LoadError
from assistant.models import Chunk

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^(\s*)(```+|~~~+)")
_EXPLICIT_ID = re.compile(r"\s*\{\s*#([\w.-]+)[^}]*\}\s*$")  # dots: mkdocstrings' `{#vllm.x.Y.attr}`
_MKDOCS_ANCHOR = re.compile(r"^\s*\[\]\(\)\{\s*#([\w-]+)\s*\}\s*$")
_IDCOUNT = re.compile(r"^(.*)_([0-9]+)$")
# MkDocs containers: an admonition (`!!! note "Title"`, collapsible `??? code`) or a content tab (`=== "pip"`),
# whose body is the lines indented under it. Left as they are, the body reads as an indented code block.
_CONTAINER = re.compile(r'^(\s*)(?:(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+"([^"]*)")?|===\+?\s+"([^"]*)")\s*$')
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]+)\]\[[^\]]*\]")
# A page's own CSS or script (the quantization page styles its support table) and HTML comments (linter
# switches, TODOs): markup the renderer never shows, never text a user needs.
_HTML_CODE = re.compile(r"<(style|script)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.DOTALL | re.IGNORECASE)
# MkDocs snippets: an include file marks its regions `--8<-- [start:name]` ... `--8<-- [end:name]`, each rendered
# under its own heading of the including page; a page pulls text in with `--8<-- "path:name"` (build syntax).
_SNIPPET_REGION = re.compile(r"^\s*-{2}8<-{2}\s+\[(start|end):([\w-]+)\]\s*$")
_SNIPPET_INCLUDE = re.compile(r"^\s*-{2}8<-{2}\s+\"[^\"]*\"\s*$")
_MAX_CHARS = 1500
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_TABLE_ROWS_CHARS = 500


def slugify(heading: str) -> str:
    text = re.sub(r"[`*_~]|<[^>]+>", "", heading)
    text = _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def unique_id(slug: str, used: set[str]) -> str:
    """`slug`, or the next free `slug_1`, `slug_2`, ... (python-markdown toc's `unique()`); marks it used."""
    while slug in used or not slug:
        m = _IDCOUNT.match(slug)
        slug = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{slug}_1"
    used.add(slug)
    return slug


@dataclass
class Section:
    path: list[str]  # heading texts from the page title down
    anchor: str
    blocks: list[str] = field(default_factory=list)  # paragraphs and whole code blocks
    line: int = 1  # where the section's heading is (1-based), for messages


def _blocks(lines: list[str]) -> list[str]:
    """Group lines into paragraphs; a fenced code block (with its admonition indent) is one block."""
    blocks: list[str] = []
    cur: list[str] = []
    fence: str | None = None
    for line in lines:
        m = _FENCE.match(line)
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


def _snippet_lines(lines: list[str]) -> list[str]:
    """Snippet markers as the rendered docs show them (one line for one, so line numbers hold).

    A region's start becomes a heading of its own, anchored by the region's name (the including page's
    heading for it has that slug), so a region is never read as the end of the section before it; an
    end marker and an include directive are build syntax, not text.
    """
    out = []
    for line in lines:
        region = _SNIPPET_REGION.match(line)
        if region and region.group(1) == "start":
            name = region.group(2)
            out.append(f"## {name.replace('-', ' ').capitalize()} {{#{name}}}")
        elif region or _SNIPPET_INCLUDE.match(line):
            out.append("")
        else:
            out.append(line)
    return out


def _unwrap_containers(lines: list[str]) -> list[str]:
    """Admonitions and content tabs as their text: the title in bold, the body out of its indent (one line for one).

    A container without a title (`??? code`) is chrome and leaves no line of text. One pass opens the
    outermost containers; nested ones surface and are opened by the next pass.
    """
    for _ in range(4):
        out: list[str] = []
        body: int | None = None  # the indent of the open container's body
        fence: str | None = None  # a code fence outside any container
        opened = False
        for line in lines:
            indent = len(line) - len(line.lstrip())
            if body is not None and (not line.strip() or indent >= body):
                out.append(line[4:] if line.strip() else "")
                continue
            body = None
            f = _FENCE.match(line)
            if f:
                fence = None if fence else f.group(2)[0]
            container = None if fence or f else _CONTAINER.match(line)
            if container is None:
                out.append(line)
                continue
            lead, title = container.group(1), container.group(2) or container.group(3)
            out.append(f"{lead}**{title}**" if title else "")
            body, opened = len(lead) + 4, True
        lines = out
        if not opened:
            break
    return lines


def split_sections(text: str, fallback_title: str) -> list[Section]:
    text = _HTML_CODE.sub(lambda m: "\n" * m.group().count("\n"), text)  # line numbers stay those of the file
    lines = _unwrap_containers(_snippet_lines(text.split("\n")))
    offset = 0
    if lines and lines[0].strip() == "---":  # front matter; its title names a page that has no H1
        for i in range(1, len(lines)):
            title = re.match(r"^title:\s*['\"]?(.+?)['\"]?\s*$", lines[i])
            if title:
                fallback_title = title.group(1)
            if lines[i].strip() == "---":
                lines, offset = lines[i + 1 :], i + 1
                break
    headings, anchors = _scan(lines)
    # Ids the page sets itself are taken before any slug is made unique, as the renderer does.
    used = {explicit for _i, _h, explicit, _b in headings if explicit} | anchors
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    current = Section(path=[fallback_title], anchor="")
    heading_at = {i: (h, explicit, before) for i, h, explicit, before in headings}

    def close() -> None:
        current.blocks = _blocks(body)
        if current.blocks:
            sections.append(current)

    for i, line in enumerate(lines):
        if i not in heading_at:
            body.append(line)
            continue
        close()
        body = []
        h, explicit, before = heading_at[i]
        level, title = len(h.group(1)), _EXPLICIT_ID.sub("", h.group(2)).strip()
        slug = slugify(title)
        heading_id = explicit or unique_id(slug, used)
        # `[](){ #chat-api }` above `## Chat API` takes the slug (the heading renders as chat-api_1): the
        # section is cited by that anchor, which is the same place.
        anchor = before if not explicit and before == slug else heading_id
        stack = [(lv, t) for lv, t in stack if lv < level] + [(level, title)]
        current = Section(path=[t for _, t in stack], anchor=anchor, line=offset + i + 1)
    close()
    return sections


def _scan(lines: list[str]) -> tuple[list[tuple[int, re.Match, str, str]], set[str]]:
    """Outside code: each heading as (index, match, explicit `{#id}`, the `[](){ #id }` anchor right above it),
    and every `[](){ #id }` anchor id (ids on the page that a heading's slug must not take)."""
    headings, anchors = [], set()
    fence: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if m:
            fence = None if fence else m.group(2)[0]
            continue
        if fence is not None:
            continue
        anchor = _MKDOCS_ANCHOR.match(line)
        if anchor:
            anchors.add(anchor.group(1))
        h = _HEADING.match(line)
        if not h:
            continue
        explicit = _EXPLICIT_ID.search(h.group(2))
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        before = _MKDOCS_ANCHOR.match(lines[j]) if j >= 0 else None
        headings.append((i, h, explicit.group(1) if explicit else "", before.group(1) if before else ""))
    return headings, anchors


def is_list(block: str) -> bool:
    return bool(_LIST_ITEM.match(block))


def is_code_or_table(block: str) -> bool:
    """A fenced or indented code block, or a table."""
    head = block.lstrip()
    return head.startswith(("```", "~~~", "|")) or all(ln.startswith("    ") for ln in block.split("\n") if ln.strip())


def announces(block: str) -> bool:
    """A paragraph that ends announcing what follows: "consider the following actions:"."""
    return block.rstrip().endswith((":", "："))


def _introduces(block: str, following: str) -> bool:
    """A paragraph that leads into the block after it: it announces it ("run:"), or a list, code or table follows.

    "If you have not changed any C++ code, you can use precompiled wheels" followed by the list that says how:
    split apart, one part has the advice and the other the flag.
    """
    prose = not (is_code_or_table(block) or is_list(block))
    return prose and (announces(block) or is_code_or_table(following) or is_list(following))


def _parts(blocks: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    size = 0
    for b in blocks:
        is_table = b.lstrip().startswith("|")
        # A table's row groups each start a part, but the sentence that introduces the table stays with it.
        long_table = is_table and size + len(b) > _TABLE_ROWS_CHARS * 1.5 and size > _TABLE_ROWS_CHARS / 2
        if parts[-1] and (size + len(b) > _MAX_CHARS or long_table):
            # The paragraph that introduces `b` goes with it (unless it is all the part has).
            carried = [parts[-1].pop()] if len(parts[-1]) > 1 and _introduces(parts[-1][-1], b) else []
            parts.append(carried)
            size = sum(len(c) + 2 for c in carried)
        parts[-1].append(b)
        size += len(b) + 2
    return parts


def _plain(markdown: str) -> str:
    return _LINK.sub(lambda m: m.group(1) or m.group(2) or "", markdown)


def part_id(source: str, part: int) -> str:
    """The id of a section's `part` (1-based): the section's citation, then `~2`, `~3`, ... for a long one's parts."""
    return source if part == 1 else f"{source}~{part}"


def adjacent_part_ids(chunk: Chunk) -> list[str]:
    """The ids of the parts of a long docs section just before and after `chunk` (none for a one-part section)."""
    part, parts = chunk.data.get("part", 1), chunk.data.get("parts", 1)
    return [part_id(chunk.source, n) for n in (part - 1, part + 1) if 1 <= n <= parts]


def load_markdown(text: str, path: Path, source: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    seen: dict[str, Section] = {}
    for section in split_sections(text, fallback_title=path.stem):
        cite = f"{source}#{section.anchor}" if section.anchor else source
        if cite in seen:  # the page itself gives two sections one id ({#id} or [](){ #id } used twice)
            first = seen[cite]
            raise LoadError(
                str(path),
                f"two sections have the anchor '#{section.anchor}': '{first.path[-1]}' (line {first.line}) and "
                f"'{section.path[-1]}' (line {section.line}); give one of them another id",
            )
        seen[cite] = section
        title = " › ".join(section.path)
        parts = _parts(section.blocks)
        for i, blocks in enumerate(parts):
            body = "\n\n".join(blocks)
            chunks.append(
                Chunk(
                    id=part_id(cite, i + 1),
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
