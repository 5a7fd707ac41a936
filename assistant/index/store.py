"""The Chroma collection that holds every chunk, its vector and its content hash.

Embedded on disk by default, a Chroma server when `chroma_url` is set. The collection's metadata
records which embedding model built it (mixing models is refused) and a revision bumped on every
write, so readers know when their in-memory copy is stale.

Sync builds a new generation of the collection beside the live one and then flips a pointer (the
metadata of a tiny `<collection>-live` collection) in one write: readers switch on their next
revision check, never seeing a half-applied sync. Without a pointer the live collection is
`settings.collection` itself, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from urllib.parse import urlparse

import numpy as np

from assistant.errors import IndexError_, IndexMismatchError, StoreUnavailableError
from assistant.models import Chunk
from assistant.settings import Settings

_BATCH = 1000
POINTER_SUFFIX = "-live"


def pointer_name(base: str) -> str:
    return base + POINTER_SUFFIX


def live_name(client, base: str) -> str:
    """The generation readers should use: the pointer's target, or `base` when no sync ever flipped it."""
    from chromadb.errors import NotFoundError

    try:
        meta = client.get_collection(pointer_name(base)).metadata or {}
    except NotFoundError:
        return base
    return str(meta.get("live") or base)


def embedder_key(settings: Settings) -> str:
    return f"{settings.embedding_backend}:{settings.embedding_model}"


def _to_meta(chunk: Chunk) -> dict:
    return {
        "kind": chunk.kind,
        "title": chunk.title,
        "source": chunk.source,
        "origin": chunk.origin,
        "lang": chunk.lang,
        "lexical": chunk.lexical_text,
        "data": json.dumps(chunk.data, ensure_ascii=False),
        "content_hash": chunk.content_hash,
    }


def _from_record(chunk_id: str, document: str, meta: dict) -> Chunk:
    return Chunk(
        id=chunk_id,
        kind=meta["kind"],
        title=meta["title"],
        source=meta["source"],
        origin=meta["origin"],
        dense_text=document,
        lexical_text=meta["lexical"],
        lang=meta["lang"],
        data=json.loads(meta["data"]),
    )


class ChromaStore:
    def __init__(self, settings: Settings, generation: str | None = None):
        """`generation` pins one collection (sync's staging); by default the live one is followed."""
        self.settings = settings
        self._pinned = generation
        self._client = None
        self._collection = None

    @property
    def client(self):
        self._client = self._client or self._connect()
        return self._client

    @property
    def name(self) -> str:
        """The collection (generation) this store reads and writes."""
        return self.collection.name

    @property
    def location(self) -> str:
        return self.settings.chroma_url or str(self.settings.index_dir / "chroma")

    def _connect(self):
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        try:
            if self.settings.chroma_url:
                url = urlparse(self.settings.chroma_url)
                return chromadb.HttpClient(
                    host=url.hostname or "127.0.0.1",
                    port=url.port or (443 if url.scheme == "https" else 8000),
                    ssl=url.scheme == "https",
                    settings=chroma_settings,
                )
            self.settings.index_dir.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(self.settings.index_dir / "chroma"), settings=chroma_settings)
        except Exception as exc:  # chromadb raises bare Exception/ValueError for unreachable servers
            if self.settings.chroma_url:  # a server may be starting or restarting: worth retrying
                raise StoreUnavailableError(f"cannot open the Chroma store at {self.location}: {exc}") from exc
            raise IndexError_(f"cannot open the Chroma store at {self.location}: {exc}") from exc

    @property
    def collection(self):
        if self._collection is None:
            key = embedder_key(self.settings)
            name = self._pinned or live_name(self.client, self.settings.collection)
            col = self.client.get_or_create_collection(
                name,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedding_model": key, "revision": 0},
                embedding_function=None,
            )
            built_with = (col.metadata or {}).get("embedding_model")
            if built_with and built_with != key and col.count() > 0:
                raise IndexMismatchError(
                    f"the index at {self.location} was built with {built_with!r} but the configured embedder is "
                    f"{key!r}; use another index_dir/collection or rebuild it (delete {self.location})"
                )
            self._collection = col
        return self._collection

    def revision(self) -> int:
        """The live generation's revision; follows the pointer to a newly promoted generation first.

        Revisions grow across generations (a new one starts above its base), so a reader comparing
        revisions notices a switch too."""
        stale = self._pinned is None and self._collection is not None
        if stale and live_name(self.client, self.settings.collection) != self._collection.name:
            self._collection = None
        return int((self.collection.metadata or {}).get("revision", 0))

    def metadata(self) -> dict:
        return dict(self.collection.metadata or {})

    def update_metadata(self, values: dict) -> None:
        """Merge `values` into the collection's metadata in one write (the build manifest uses it)."""
        meta = self.metadata()
        meta.update(values)
        meta["embedding_model"] = embedder_key(self.settings)
        meta.pop("hnsw:space", None)
        self.collection.modify(metadata=meta)

    def bump_revision(self) -> None:
        self.update_metadata({"revision": self.revision() + 1})

    def count(self) -> int:
        return self.collection.count()

    def hashes(self) -> dict[str, tuple[str, str]]:
        """id -> (content_hash, origin) of every stored chunk."""
        out: dict[str, tuple[str, str]] = {}
        total = self.count()
        for offset in range(0, total, _BATCH * 10):
            got = self.collection.get(include=["metadatas"], limit=_BATCH * 10, offset=offset)
            for cid, meta in zip(got["ids"], got["metadatas"]):
                out[cid] = (meta.get("content_hash", ""), meta.get("origin", ""))
        return out

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray, extra: Sequence[dict] | None = None) -> None:
        """Write chunks and their vectors; `extra`: more metadata per chunk (its paragraphs' vectors)."""
        for start in range(0, len(chunks), _BATCH):
            part = chunks[start : start + _BATCH]
            more = extra[start : start + _BATCH] if extra is not None else [{}] * len(part)
            self.collection.upsert(
                ids=[c.id for c in part],
                embeddings=vectors[start : start + _BATCH],
                documents=[c.dense_text for c in part],
                metadatas=[{**_to_meta(c), **m} for c, m in zip(part, more)],
            )
        if chunks:
            self.bump_revision()

    def iter_metadata(self) -> Iterator[tuple[str, dict]]:
        """(id, metadata) of every stored chunk."""
        total = self.count()
        for offset in range(0, total, _BATCH):
            got = self.collection.get(include=["metadatas"], limit=_BATCH, offset=offset)
            yield from zip(got["ids"], got["metadatas"])

    def add_metadata(self, values: dict[str, dict], bump: bool = True) -> None:
        """Merge fields into stored chunks' metadata (id -> fields), keeping their vectors and text; `bump`:
        start a new revision (readers reload), else the caller bumps once when its last batch is written."""
        ids = list(values)
        for start in range(0, len(ids), _BATCH):
            part = ids[start : start + _BATCH]
            got = self.collection.get(ids=part, include=["metadatas"])
            merged = {cid: {**meta, **values[cid]} for cid, meta in zip(got["ids"], got["metadatas"])}
            if merged:
                self.collection.update(ids=list(merged), metadatas=list(merged.values()))
        if bump:
            self.bump_revision()

    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), _BATCH):
            self.collection.delete(ids=list(ids[start : start + _BATCH]))
        if ids:
            self.bump_revision()

    def iter_chunks(self) -> Iterator[Chunk]:
        total = self.count()
        for offset in range(0, total, _BATCH * 5):
            got = self.collection.get(include=["documents", "metadatas"], limit=_BATCH * 5, offset=offset)
            for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
                yield _from_record(cid, doc, meta)

    def documents(self, ids: Sequence[str]) -> dict[str, str]:
        """id -> stored text (what the embedding model read) of those of `ids` that are stored."""
        if not ids:
            return {}
        got = self.collection.get(ids=list(ids), include=["documents"])
        return dict(zip(got["ids"], got["documents"]))

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        got = self.collection.get(ids=list(ids), include=["embeddings"])
        return {cid: np.asarray(vec, dtype=np.float32) for cid, vec in zip(got["ids"], got["embeddings"])}

    def vector_at(self, offset: int) -> tuple[str, np.ndarray] | None:
        """(id, stored vector) of the chunk at `offset` in the store's order; the index self-check asks for it."""
        got = self.collection.get(limit=1, offset=offset, include=["embeddings"])
        if not got["ids"]:
            return None
        return got["ids"][0], np.asarray(got["embeddings"][0], dtype=np.float32)

    def query(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """(id, cosine similarity) of the n nearest chunks; n must not exceed the chunks stored."""
        if n <= 0:
            return []
        from chromadb.errors import ChromaError

        try:
            res = self.collection.query(query_embeddings=[vector], n_results=n, include=["distances"])
        except ChromaError as exc:  # a damaged index: a 503 saying so, not a bare 500
            raise IndexError_(f"the vector index at {self.location} fails a query ({type(exc).__name__}: {exc})") from exc
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0])]
