"""Versioned docs: a user on vLLM 0.31 is answered from 0.31's docs when that version is synced (pure).

Docs synced at a release tag carry `data["version"]`; a question that names a synced version keeps
only that version's docs (other versions' copies of the same page are noise), and a question that
names none gets the newest synced version. Unversioned chunks (entries, issues, branch docs) always stay.
"""

from __future__ import annotations

from collections.abc import Iterable

from assistant.models import Chunk


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def same_minor(a: str, b: str) -> bool:
    """Whether two versions share major.minor (0.31.2 and v0.31.0 do; a name such as "nightly" shares none)."""
    ka, kb = _key(a.lower().lstrip("v")), _key(b.lower().lstrip("v"))
    return len(ka) >= 2 and len(kb) >= 2 and ka[:2] == kb[:2]


def docs_versions(chunks: Iterable[Chunk]) -> frozenset[str]:
    return frozenset(c.data["version"] for c in chunks if c.kind == "doc" and c.data.get("version"))


def wanted_version(asked: Iterable[str], available: frozenset[str]) -> str | None:
    """The synced docs version the question is about: an exact match, else the same major.minor, else the
    newest synced one; None when no versioned docs are synced."""
    if not available:
        return None
    for raw in asked:
        v = raw.lower().lstrip("v")
        if v in available:
            return v
        near = sorted((a for a in available if same_minor(a, v)), key=_key)
        if near:
            return near[-1]
    return max(available, key=_key)


def keeps(chunk: Chunk, version: str | None) -> bool:
    """Whether a chunk may answer a question about `version` (None: no versioned docs to choose among)."""
    if version is None or chunk.kind != "doc":
        return True
    own = chunk.data.get("version")
    return own is None or own == version
