"""Small vLLM-shaped wheels (two releases that differ) and an assistant that has synced them."""

from __future__ import annotations

import pytest

from assistant.release.store import ReleaseStore
from assistant.release.sync import sync_release
from tests.conftest import make_settings
from tests.release.small_wheel import build_wheel

OLD, NEW = "0.98.0", "0.99.0"


@pytest.fixture(scope="session")
def wheels(tmp_path_factory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("wheels")
    return {v: build_wheel(folder, v) for v in (OLD, NEW)}


@pytest.fixture(scope="session")
def synced(tmp_path_factory, wheels) -> ReleaseStore:
    store = ReleaseStore(tmp_path_factory.mktemp("release-index"))
    for path in wheels.values():
        sync_release(str(path), store, workers=1)
    return store


@pytest.fixture(scope="session")
def release_assistant(tmp_path_factory, embedder, wheels):
    """The curated corpus plus both small releases, synced through the Assistant as `sync` does."""
    from assistant.service import Assistant

    a = Assistant(make_settings(tmp_path_factory.mktemp("release-assistant")), embedder=embedder)
    a.ensure_index()
    a.sync([str(p) for p in wheels.values()])
    return a
