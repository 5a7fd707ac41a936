"""Which loader a file needs, decided per file, and the walk over the folders to ingest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from assistant.errors import LoadError
from assistant.ingest.entries import load_entry_file
from assistant.ingest.markdown_docs import load_markdown
from assistant.ingest.seed_pages import load_seed_page, looks_like_seed_page
from assistant.ingest.sources import citable_path, read_text
from assistant.models import Chunk

INGESTED_SUFFIXES = {".md", ".markdown", ".yaml", ".yml", ".txt"}
# A folder's own cover notes (what it is, where it came from) are not knowledge; a README.md deeper in
# the tree is usually a real page (vLLM's docs/features/quantization/README.md).
_ROOT_NOTES = {"README.md", "SOURCE.md", "LICENSE", "LICENSE.md", "sources.yaml"}  # sources.yaml: the sync sources file


def load_file(path: Path, root: Path) -> list[Chunk]:
    """Chunks of one file, or LoadError naming the path and the reason."""
    text = read_text(path)
    source = citable_path(path, root)
    suffix = path.suffix.lower()
    if looks_like_seed_page(text):
        chunks = load_seed_page(text, path, source)
    elif suffix in (".yaml", ".yml"):
        chunks = load_entry_file(text, path, source)
    elif suffix in (".md", ".markdown"):
        chunks = load_markdown(text, path, source)
    else:
        raise LoadError(
            str(path),
            "unrecognized format: expected a curated entry (.yaml), Markdown documentation (.md) "
            "or a Q&A page with 'Question N' / 'Accepted Answer' blocks",
        )
    if not chunks:
        raise LoadError(str(path), "no content found")
    seen: dict[str, Chunk] = {}
    for chunk in chunks:
        if chunk.id in seen:  # one would silently replace the other in the index
            raise LoadError(str(path), f"'{seen[chunk.id].title}' and '{chunk.title}' both have the id '{chunk.id}'")
        seen[chunk.id] = chunk
    return chunks


def discover(root: Path) -> Iterator[Path]:
    """The files to ingest under `root` (itself, when it is a file), in a stable order."""
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        if len(rel.parts) == 1 and path.name in _ROOT_NOTES:
            continue
        if path.suffix.lower() in INGESTED_SUFFIXES:
            yield path
