"""The API reference pages a release's docs site renders from its source, as Markdown (pure: source text in).

vLLM's docs build the reference of its inference parameters (`vllm.SamplingParams`, `vllm.PoolingParams`) from the
source with mkdocstrings: one page per module (https://docs.vllm.ai/en/v0.33.0/api/vllm/sampling_params/), a
section per class, anchored by its dotted path. The docs folder holds none of that text, so a question answered by one
parameter ("how do I penalise repetition?", "how do I get the logits?") found nothing of it. This renders the same
from the same source: a section per public class, listing each public attribute that carries a docstring (the string
right under it, the convention mkdocstrings reads) with its type and default as the source writes them.

One section per class, not per attribute (the site's own attribute anchors): the chunker cuts a long class into parts
of several attributes each. Sections of one attribute each, a few words long, led answers to questions that only
shared a word with them ("how do I count the tokens" led by `max_tokens`); measured in eval/README.md, session 45.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import PurePosixPath

from assistant.release.extract import class_fields

# The modules of the docs' "Inference Parameters" (docs/api/README.md), each rendered as its reference page.
API_MODULES = ("vllm/sampling_params.py", "vllm/pooling_params.py")
_MAX_DEFAULT = 80  # a longer default (a factory call, a long literal) is left out rather than cut
# A Google-style section of a docstring ("Attributes:", "Args:"), whose indented items mkdocstrings lists.
_SECTION = re.compile(r"^(?:Attributes|Args|Arguments|Parameters|Returns|Raises|Note|NOTE|Example|Examples):$")
_ITEM = re.compile(r"^[*\w]+(?: \([^)]*\))?: ")


def page_path(module_path: str) -> str:
    """vllm/sampling_params.py -> api/vllm/sampling_params.md: where the docs site serves its reference page."""
    return str(PurePosixPath("api") / PurePosixPath(module_path).with_suffix(".md"))


def _prose(doc: str) -> str:
    """A docstring as Markdown prose: no line indented into a code block; a section's items as a list."""
    out, in_section = [], False
    for line in inspect.cleandoc(doc).split("\n"):
        text = line.strip()
        if _SECTION.match(text):
            in_section = True
            out.append(f"**{text}**")
        elif in_section and line.startswith(" ") and _ITEM.match(text):
            out.append(f"- {text}")
        else:
            in_section = in_section and bool(text)
            out.append(text)
    return "\n".join(out)


def _attributes(cls: ast.ClassDef, path: str) -> list[tuple[str, str, str | None, str]]:
    """(name, type, default, docstring) of each public annotated attribute with a docstring under it, as the
    release's flags read their config fields (`class_fields`)."""
    out = []
    for name, (typ, default, doc, _line) in class_fields(cls, path).fields.items():
        if name.startswith("_") or not doc:
            continue
        shown = default if default is not None and len(default) <= _MAX_DEFAULT else None
        out.append((name, " ".join(str(typ).split()), shown, doc))
    return out


def render_module(module_path: str, source: str) -> str | None:
    """The module's reference page as Markdown, or None when no public class documents an attribute."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    dotted = PurePosixPath(module_path).with_suffix("").as_posix().replace("/", ".")
    lines = [f"# {dotted} {{#{dotted}}}", ""]
    doc = ast.get_docstring(tree)
    if doc:
        lines += [_prose(doc.split("\n\n")[0]), ""]
    found = False
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and not n.name.startswith("_")):
        attributes = _attributes(cls, module_path)
        if not attributes:
            continue
        found = True
        lines += [f"## {cls.name} {{#{dotted}.{cls.name}}}", ""]
        if (cls_doc := ast.get_docstring(cls)) is not None:
            lines += [_prose(cls_doc), ""]
        for name, typ, default, text in attributes:
            signature = f"{cls.name}.{name}: {typ}" + (f" = {default}" if default is not None else "")
            lines += [f"**`{signature}`**", "", text, ""]
    return "\n".join(lines) if found else None


def api_pages(sources: dict[str, str]) -> dict[str, str]:
    """{page path under docs/: Markdown} for each module of `sources` ({module path: source text}) with a page."""
    pages = {}
    for module_path, source in sorted(sources.items()):
        if (page := render_module(module_path, source)) is not None:
            pages[page_path(module_path)] = page
    return pages
