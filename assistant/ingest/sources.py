"""Reading a source file safely and naming it the way citations show it."""

from __future__ import annotations

from pathlib import Path

from assistant.errors import LoadError
from assistant.settings import REPO_ROOT

MAX_BYTES = 5_000_000


def read_text(path: Path) -> str:
    """The file's text, or a LoadError that says why it cannot be used."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LoadError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_BYTES:
        raise LoadError(str(path), f"too large ({len(raw)} bytes; limit {MAX_BYTES})")
    if b"\x00" in raw[:8192]:
        raise LoadError(str(path), "binary file (contains NUL bytes)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(str(path), f"not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    if not text.strip():
        raise LoadError(str(path), "empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def citable_path(path: Path, root: Path) -> str:
    """Repo-relative inside this repository; relative to the ingested folder otherwise (its own repo layout).

    A hidden folder of the repository (`.data/`: downloads, `.index/`) holds no file of the project: what is
    ingested from there is cited like any outside folder."""
    path = path.resolve()
    for base in (REPO_ROOT, root.resolve() if root.is_dir() else root.resolve().parent):
        try:
            rel = path.relative_to(base)
        except ValueError:
            continue
        if base == REPO_ROOT and rel.parts[0].startswith("."):
            continue
        return rel.as_posix()
    return path.name
