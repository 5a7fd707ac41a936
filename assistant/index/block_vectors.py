"""Vectors of a docs section's paragraphs, computed at ingest, so choosing the lead passage embeds nothing.

The answer leads with the paragraph of a section nearest in meaning to the question
(`answer.passages`). Embedding those paragraphs per question cost 88 % of an answer's time, so each
docs chunk's paragraphs are embedded with the chunk (one model call per batch) and stored in the
chunk's own metadata: they are written in the same upsert as the chunk, copied with it into a new
sync generation, and served by a Chroma server like everything else. A paragraph is keyed by a hash
of its text (the same text has the same vector under one model). A paragraph with no stored vector
(an index built before this, a part written after the snapshot) is embedded when asked for.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from assistant.ingest.markdown_docs import split_blocks
from assistant.models import Chunk

KEYS_FIELD = "block_keys"  # metadata: the paragraphs' keys, space-separated, in page order
VECTORS_FIELD = "block_vectors"  # metadata: their vectors, float32 rows, base64

Embed = Callable[[list[str]], np.ndarray]


def block_key(text: str) -> str:
    """A paragraph's key: a hash of its text."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


def blocks_of(chunk: Chunk) -> list[str]:
    """The paragraphs the lead-passage choice scores for this chunk (docs sections only), as it splits them."""
    if chunk.kind != "doc" or not isinstance(chunk.data.get("body"), str):
        return []
    return split_blocks(chunk.data["body"])


def encode(keys: Sequence[str], vectors: np.ndarray) -> dict[str, str]:
    """The metadata fields holding `vectors` (one row per key)."""
    rows = np.ascontiguousarray(vectors, dtype="<f4")
    return {KEYS_FIELD: " ".join(keys), VECTORS_FIELD: base64.b64encode(rows.tobytes()).decode("ascii")}


def decode(meta: Mapping[str, object]) -> dict[str, np.ndarray]:
    """key -> vector from a chunk's metadata; empty when it has none or they do not fit together."""
    keys, raw = meta.get(KEYS_FIELD), meta.get(VECTORS_FIELD)
    if not isinstance(keys, str) or not isinstance(raw, str) or not keys:
        return {}
    names = keys.split(" ")
    try:
        data = base64.b64decode(raw, validate=True)
    except ValueError:  # binascii.Error: not base64; the paragraphs are embedded when asked for
        return {}
    if len(data) % 4:
        return {}
    flat = np.frombuffer(data, dtype="<f4")
    if flat.size == 0 or flat.size % len(names):
        return {}
    rows = flat.reshape(len(names), -1)
    return {k: rows[i] for i, k in enumerate(names)}


def embed_with_blocks(chunks: Sequence[Chunk], embed: Embed) -> tuple[np.ndarray, list[dict[str, str]]]:
    """The chunks' vectors and, per chunk, the metadata fields of its paragraphs' vectors: one model call
    for all (a paragraph repeated across chunks is embedded once)."""
    per_chunk = [blocks_of(c) for c in chunks]
    unique = list(dict.fromkeys(b for blocks in per_chunk for b in blocks))
    vectors = embed([c.dense_text for c in chunks] + unique)
    chunk_vectors, block_rows = vectors[: len(chunks)], vectors[len(chunks) :]
    row = {b: block_rows[i] for i, b in enumerate(unique)}
    extra = [
        encode([block_key(b) for b in blocks], np.stack([row[b] for b in blocks])) if blocks else {}
        for blocks in per_chunk
    ]
    return chunk_vectors, extra


class BlockTable:
    """Stored paragraph vectors of one index snapshot, by key; what is missing is embedded on demand."""

    def __init__(self, vectors: Mapping[str, np.ndarray] | None = None):
        self._vectors: dict[str, np.ndarray] = dict(vectors or {})

    def __len__(self) -> int:
        return len(self._vectors)

    def add(self, vectors: Mapping[str, np.ndarray]) -> None:
        self._vectors.update(vectors)

    def lookup(self, blocks: Sequence[str], embed: Embed) -> np.ndarray:
        """One vector per block, in order: stored ones looked up, the others embedded in one call."""
        keys = [block_key(b) for b in blocks]
        missing = list(dict.fromkeys(b for b, k in zip(blocks, keys) if k not in self._vectors))
        fresh = dict(zip(missing, embed(missing))) if missing else {}
        return np.stack([self._vectors[k] if k in self._vectors else fresh[b] for b, k in zip(blocks, keys)])

    def similarities(self, query_vector: np.ndarray, blocks: Sequence[str], embed: Embed) -> list[float]:
        """The question's cosine similarity to each block (vectors are unit length)."""
        if not blocks:
            return []
        return [float(s) for s in self.lookup(blocks, embed) @ query_vector]


def load_table(metadatas: Iterable[Mapping[str, object]]) -> BlockTable:
    """The table of every chunk's stored paragraph vectors."""
    table = BlockTable()
    for meta in metadatas:
        table.add(decode(meta))
    return table


class SnapshotBlocks:
    """The block table of the index snapshot being served, loaded once per store revision."""

    def __init__(self) -> None:
        self._revision: int | None = None
        self._table = BlockTable()

    def table(self, revision: int | None, metadatas: Callable[[], Iterable[Mapping[str, object]]]) -> BlockTable:
        if revision != self._revision:
            self._table, self._revision = load_table(metadatas()), revision
        return self._table


def _stored_blocks(meta: Mapping[str, object]) -> list[str]:
    """The paragraphs of a stored docs chunk, read from its metadata."""
    if meta.get("kind") != "doc" or not isinstance(meta.get("data"), str):
        return []
    body = json.loads(meta["data"]).get("body")
    return split_blocks(body) if isinstance(body, str) else []


def missing(store) -> list[tuple[str, list[str]]]:
    """(chunk id, paragraphs) of the docs chunks stored without their paragraph vectors (written by a sync, or
    by an earlier version): one pass over the metadata, about 0.3 s for make run's index."""
    return [(cid, blocks) for cid, meta in store.iter_metadata() if KEYS_FIELD not in meta
            for blocks in [_stored_blocks(meta)] if blocks]  # fmt: skip


def backfill(
    store,
    embed: Embed,
    progress: Callable[[str], None] = lambda _m: None,
    batch: int = 256,
    todo: list[tuple[str, list[str]]] | None = None,
) -> int:
    """Store the paragraph vectors of docs chunks written without them (`todo`, else `missing(store)`);
    returns how many chunks got them. Chunk vectors and text are left as they are."""
    todo = missing(store) if todo is None else todo
    done = 0
    while done < len(todo):
        part: list[tuple[str, list[str]]] = []
        while done + len(part) < len(todo) and sum(len(b) for _, b in part) < batch:
            part.append(todo[done + len(part)])
        unique = list(dict.fromkeys(b for _, blocks in part for b in blocks))
        row = dict(zip(unique, embed(unique)))
        store.add_metadata(
            {cid: encode([block_key(b) for b in bs], np.stack([row[b] for b in bs])) for cid, bs in part},
            bump=False,  # one new revision at the end: each one makes the server reload its lexical index
        )
        done += len(part)
        progress(f"paragraph vectors: {done}/{len(todo)} docs sections")
    if todo:
        store.bump_revision()
    return len(todo)
