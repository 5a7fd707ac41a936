"""The lead passage is chosen from paragraph vectors stored at ingest: no embedding at answer time for them,
the question embedded once, and the same lead as when every paragraph was embedded per question."""

import shutil

import numpy as np
import pytest

from assistant.index import block_vectors
from assistant.service import Assistant
from tests.conftest import VLLM_DOCS, make_settings

PAGES = ["configuration/optimization.md", "usage/troubleshooting.md"]
QUESTIONS = [
    "WARNING: sequence group is preempted because there is not enough KV cache space; what should I change?",
    "my model hangs while loading the weights and there is no output, how do I debug it?",
    "NCCL error: unhandled system error when running with tensor parallel",
]


class Counting:
    """The real embedder behind a thin wrapper that records every text it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.name, self.calls = inner, inner.name, []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


class PerQuestionScorer(Assistant):
    """The lead-passage choice as it was: the question and every paragraph embedded per call."""

    def _scorer(self, query):
        def score(blocks):
            vectors = self.embedder.embed([query.dense_text, *blocks])
            return [float(v @ vectors[0]) for v in vectors[1:]]

        return score


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedder):
    docs = tmp_path_factory.mktemp("docs") / "docs"
    for page in PAGES:
        if not (VLLM_DOCS / "docs" / page).is_file():
            pytest.skip(f"{VLLM_DOCS / 'docs' / page} is missing")
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(VLLM_DOCS / "docs" / page, docs / page)
    counting = Counting(embedder)
    # what is embedded, and when, at the ordinary bars: two questions never name vLLM (`min_confidence_unnamed`)
    a = Assistant(make_settings(tmp_path_factory.mktemp("index"), min_confidence_unnamed=0.0), embedder=counting)
    a.ingest([docs])
    return a, counting


def test_every_docs_section_is_stored_with_its_paragraph_vectors(built):
    a, _ = built
    metas = dict(a.store.iter_metadata())
    docs = [m for m in metas.values() if m["kind"] == "doc"]
    assert docs and all(block_vectors.KEYS_FIELD in m for m in docs)
    assert block_vectors.backfill(a.store, a.embedder.embed) == 0  # nothing left to fill in


@pytest.mark.parametrize("question", QUESTIONS)
def test_an_answer_embeds_only_the_question_once_and_leads_as_before(built, question):
    a, counting = built
    a.warm_up()
    counting.calls.clear()
    answer = a.ask(question)
    query, _ = a.retrieve(question)
    # the question, once, for retrieval and the lead alike; `retrieve` just above reads the vector memory
    assert counting.calls == [[query.dense_text]]
    assert not answer.abstained and ".md#" in answer.citations[0].id
    before = PerQuestionScorer(a.settings, embedder=a.embedder, store=a.store).ask(question)
    assert answer.body == before.body


def test_an_index_built_before_paragraph_vectors_gets_them_on_the_next_start(built):
    a, counting = built
    chunks = [c for c in a.store.iter_chunks() if c.kind == "doc"][:3]
    vectors = a.store.vectors([c.id for c in chunks])
    a.store.delete([c.id for c in chunks])  # and written again as an earlier version wrote them:
    a.store.upsert(chunks, np.stack([vectors[c.id] for c in chunks]))  # chunk vectors, no paragraph vectors
    assert sum(block_vectors.KEYS_FIELD not in m for _, m in a.store.iter_metadata()) == 3
    counting.calls.clear()
    assert a.ensure_block_vectors() == 3
    assert counting.calls and all(len(c) <= 300 for c in counting.calls)
    assert all(block_vectors.KEYS_FIELD in m for _, m in a.store.iter_metadata() if m["kind"] == "doc")
    assert a.ensure_block_vectors() == 0


def test_a_synced_section_is_written_without_paragraph_vectors_and_the_server_fills_them_once_ready(built):
    """A sync (thousands of docs sections at a first start) embeds the sections only; the server is ready
    then, and stores their paragraph vectors in the background, in one new revision."""
    from assistant.api.readiness import Readiness
    from assistant.ingest.pipeline import write_chunks

    a, _ = built
    chunks = [c for c in a.store.iter_chunks() if c.kind == "doc"][:4]
    a.store.delete([c.id for c in chunks])
    write_chunks(a.store, chunks, [], a.embedder.embed, with_blocks=False)  # the sync writer's call
    assert sum(block_vectors.KEYS_FIELD not in m for _, m in a.store.iter_metadata()) == 4
    readiness = Readiness()
    readiness.prepare(a)
    assert readiness.ready and readiness.fill is not None
    before = a.store.revision()
    readiness.fill.join(timeout=120)
    assert not readiness.fill.is_alive()
    assert all(block_vectors.KEYS_FIELD in m for _, m in a.store.iter_metadata() if m["kind"] == "doc")
    assert a.store.revision() == before + 1  # one revision for the whole fill, not one per batch
