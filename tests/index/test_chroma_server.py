"""The client/server path: the same ingest and answers against a real `chroma run` server."""

from __future__ import annotations

import pytest

from assistant.service import Assistant
from tests.conftest import CURATED, make_settings
from tests.helpers.chroma import chroma_server
from tests.helpers.known import KNOWN, KNOWN_ENTRY, KNOWN_FIX
from tests.helpers.server import free_port


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma-server")) as url:
        yield url


def test_ingest_and_answer_through_a_chroma_server(chroma_url, tmp_path, embedder):
    a = Assistant(make_settings(tmp_path, chroma_url=chroma_url), embedder=embedder)
    report = a.ensure_index()
    assert report is not None and report.added == CURATED
    answer = a.ask(KNOWN)
    assert answer.citations[0].id == KNOWN_ENTRY
    assert KNOWN_FIX in answer.body
    assert not (tmp_path / "chroma").exists()  # nothing went to the embedded store

    # A second client (another API worker) sees the same index and re-ingest writes nothing.
    other = Assistant(make_settings(tmp_path / "worker2", chroma_url=chroma_url), embedder=embedder)
    assert other.ensure_index() is None
    again = other.ingest([other.settings.corpus_dir])
    assert not again.wrote and again.unchanged == CURATED
    assert other.ask("EngineDeadError after a malformed EBNF grammar").citations[0].id == (
        "structured-outputs-invalid-grammar-engine-dead"
    )


def test_unreachable_server_is_a_clear_error(tmp_path, embedder):
    from assistant.errors import IndexError_

    a = Assistant(make_settings(tmp_path, chroma_url=f"http://127.0.0.1:{free_port()}"), embedder=embedder)
    with pytest.raises(IndexError_, match="cannot open the Chroma store"):
        a.ask(KNOWN)
