"""Index generations: a sync fills a copy of the live collection, then one pointer write makes it live.

Readers keep answering from the live generation while the staging one fills; a failed or killed
sync leaves the live one untouched (and the staging one ready to resume). The previous generation
is kept until the next promotion, so a reader still holding it finishes its query.
"""

from __future__ import annotations

import logging
import re

from assistant.errors import SyncError
from assistant.index.manifest import carried
from assistant.index.store import ChromaStore, embedder_key, live_name, pointer_name
from assistant.settings import Settings
from assistant.sync.state import Staging, SyncState

log = logging.getLogger("assistant.sync")
_COPY_BATCH = 1000


class Generations:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.base = settings.collection
        self.live = ChromaStore(settings)

    @property
    def client(self):
        return self.live.client

    def live_name(self) -> str:
        return live_name(self.client, self.base)

    def _names(self) -> list[str]:
        return [c.name for c in self.client.list_collections()]

    def _drop(self, name: str) -> None:
        if name in self._names():
            self.client.delete_collection(name)

    def _next_name(self) -> str:
        pattern = re.compile(re.escape(self.base) + r"-g(\d+)$")
        numbers = [int(m.group(1)) for n in self._names() if (m := pattern.match(n))]
        return f"{self.base}-g{max(numbers, default=0) + 1}"

    def resume(self, state: SyncState) -> ChromaStore | None:
        """The staging generation a killed sync left, if it is still based on the live one. A stale one
        (the live index changed since) is dropped along with the pending cursors that described it."""
        st = state.staging
        if st is None:
            return None
        live = ChromaStore(self.settings)
        if st.base == live.name and st.base_revision == live.revision() and st.collection in self._names():
            log.info("resuming the staging generation", extra={"generation": st.collection})
            return ChromaStore(self.settings, generation=st.collection)
        log.info("dropping a stale staging generation", extra={"generation": st.collection})
        self._drop(st.collection)
        state.staging = None
        for s in state.sources.values():
            s.pending = None
        state.save()
        return None

    def create(self, state: SyncState) -> ChromaStore:
        """A new generation holding a copy of the live one (vectors included: nothing is embedded again)."""
        live = ChromaStore(self.settings)
        current, revision = live.name, live.revision()
        name = self._next_name()
        # Recorded before the copy: a kill during the copy leaves a staging that `resume` drops.
        state.staging = Staging(collection=name, base=current, base_revision=-1)
        state.save()
        self._copy(live, name, revision)
        state.staging = Staging(collection=name, base=current, base_revision=revision)
        state.save()
        return ChromaStore(self.settings, generation=name)

    def _copy(self, live: ChromaStore, name: str, revision: int) -> None:
        target = self.client.create_collection(
            name,
            configuration={"hnsw": {"space": "cosine"}},
            # A copy of a complete build is complete: the build record travels with it.
            metadata={"embedding_model": embedder_key(self.settings), "revision": revision + 1, **carried(live)},
            embedding_function=None,
        )
        source = live.collection
        total = source.count()
        for offset in range(0, total, _COPY_BATCH):
            got = source.get(include=["embeddings", "documents", "metadatas"], limit=_COPY_BATCH, offset=offset)
            if got["ids"]:
                target.add(
                    ids=got["ids"], embeddings=got["embeddings"], documents=got["documents"], metadatas=got["metadatas"]
                )

    def promote(self, state: SyncState) -> str:
        """Make the staging generation live (one metadata write), drop generations older than the previous one."""
        st = state.staging
        if st is None:
            raise SyncError("there is no staging generation to promote")
        live = ChromaStore(self.settings)
        if live.name != st.base or live.revision() != st.base_revision:
            self._drop(st.collection)
            state.staging = None
            for s in state.sources.values():
                s.pending = None
            state.save()
            raise SyncError(
                "the live index changed while the sync ran (an `ingest` or another sync wrote to it); "
                "nothing was published: run the sync again"
            )
        pointer = self.client.get_or_create_collection(
            pointer_name(self.base), metadata={"live": st.collection}, embedding_function=None
        )
        pointer.modify(metadata={"live": st.collection})
        keep = {st.collection, st.base, pointer_name(self.base)}
        pattern = re.compile(re.escape(self.base) + r"(-g\d+)?$")
        for name in self._names():
            if pattern.match(name) and name not in keep:
                self.client.delete_collection(name)
        return st.collection
