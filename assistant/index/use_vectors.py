"""Each chunk's USE vector (the multilingual channel), stored with the chunk and searched in memory.

The vector is computed at ingest (or, for a sync's thousands of docs sections, by the server's background
fill once it is ready) and stored in the chunk's own metadata, like its paragraphs' vectors: it is written
in the same upsert, copied with the chunk into a new sync generation and served by a Chroma server like the
rest. Searching it needs no second collection: make run's 3,034 chunks make a 6 MB matrix, and one
matrix-vector product over it takes well under a millisecond.

The channel is all or nothing per snapshot: while any chunk lacks its vector (an index built before this,
a sync's new sections before the fill), the matrix is `incomplete` and retrieval fuses MiniLM and BM25
alone, as a chunk missing from one channel would otherwise score 0 there and sink. Storing vectors does
not change a chunk's tokens, so the fill does not bump the store's revision (that rebuilds the lexical
index); it bumps `USE_REVISION_KEY` in the collection's metadata, which readers check beside it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from assistant.index.use_embedder import USE_DIM

FIELD = "use_vector"  # metadata: the chunk's USE vector, float32 little-endian, base64
USE_REVISION_KEY = "use_revision"  # collection metadata: bumped when a fill stored vectors

Embed = Callable[[list[str]], np.ndarray]


def encode(vector: np.ndarray) -> dict[str, str]:
    """The metadata field holding `vector`."""
    row = np.ascontiguousarray(vector, dtype="<f4").reshape(-1)
    return {FIELD: base64.b64encode(row.tobytes()).decode("ascii")}


def decode(meta: Mapping[str, object]) -> np.ndarray | None:
    """The chunk's stored vector; None when it has none or it is not one of the model's."""
    raw = meta.get(FIELD)
    if not isinstance(raw, str) or not raw:
        return None
    try:
        data = base64.b64decode(raw, validate=True)
    except ValueError:  # binascii.Error: not base64; treated as missing, filled again
        return None
    if len(data) != 4 * USE_DIM:
        return None
    return np.frombuffer(data, dtype="<f4")


def fields_for(chunks: Sequence, embed: Embed) -> list[dict[str, str]]:
    """Per chunk, the metadata field of its USE vector (one model call for the batch)."""
    if not chunks:
        return []
    return [encode(v) for v in embed([c.dense_text for c in chunks])]


@dataclass
class UseMatrix:
    """The USE vectors of one index snapshot: rows in `ids` order; `missing` chunks have none."""

    ids: list[str]
    rows: np.ndarray
    missing: int = 0
    position: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.position = {cid: i for i, cid in enumerate(self.ids)}

    @property
    def complete(self) -> bool:
        return self.missing == 0 and len(self.ids) > 0

    def nearest(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """(id, cosine) of the `n` nearest chunks, best first (vectors are unit length)."""
        n = min(n, len(self.ids))
        if n <= 0:
            return []
        sims = self.rows @ vector
        top = np.argpartition(-sims, n - 1)[:n]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self.ids[i], float(sims[i])) for i in top]

    def similarities(self, vector: np.ndarray, ids: Iterable[str]) -> dict[str, float]:
        """Cosine of `vector` to each of `ids` that has a row."""
        known = [cid for cid in ids if cid in self.position]
        if not known:
            return {}
        sims = self.rows[[self.position[cid] for cid in known]] @ vector
        return {cid: float(s) for cid, s in zip(known, sims)}


def load_matrix(records: Iterable[tuple[str, Mapping[str, object]]]) -> UseMatrix:
    """The matrix of every stored vector; chunks without one are counted in `missing`."""
    ids, rows, missing = [], [], 0
    for cid, meta in records:
        vec = decode(meta)
        if vec is None:
            missing += 1
            continue
        ids.append(cid)
        rows.append(vec)
    matrix = np.stack(rows) if rows else np.zeros((0, USE_DIM), dtype=np.float32)
    return UseMatrix(ids, matrix, missing)


def missing(store) -> list[str]:
    """Ids of the chunks stored without a USE vector: one pass over the metadata."""
    return [cid for cid, meta in store.iter_metadata() if decode(meta) is None]


def backfill(
    store,
    embed: Embed,
    progress: Callable[[str], None] = lambda _m: None,
    batch: int = 64,
    todo: list[str] | None = None,
) -> int:
    """Store the USE vectors of the chunks written without them (`todo`, else `missing(store)`); returns how
    many got one. Chunk text, MiniLM vectors and the revision stay as they are; `USE_REVISION_KEY` is bumped
    once at the end, so readers load the complete matrix."""
    todo = missing(store) if todo is None else todo
    done = 0
    for start in range(0, len(todo), batch):
        part = todo[start : start + batch]
        texts = store.documents(part)  # id -> the text MiniLM embedded (a chunk deleted since is skipped)
        ids = [cid for cid in part if cid in texts]
        if ids:
            vectors = embed([texts[cid] for cid in ids])
            store.add_metadata({cid: encode(v) for cid, v in zip(ids, vectors)}, bump=False)
        done += len(ids)
        progress(f"USE vectors: {min(start + batch, len(todo))}/{len(todo)} chunks")
    if todo:
        bump_use_revision(store)
    return done


def use_revision(store) -> int:
    return int(store.metadata().get(USE_REVISION_KEY, 0))


def bump_use_revision(store) -> None:
    store.update_metadata({USE_REVISION_KEY: use_revision(store) + 1})
