"""Retrieval scores the other channels' candidates on MiniLM from the snapshot's stored vectors, read once, not per
question (a Chroma read per question was ~2 ms of an answer's ~30 on `make run`'s index)."""

from __future__ import annotations

import numpy as np


def test_stored_vectors_are_the_stores_and_are_read_once_per_snapshot(corpus_assistant, monkeypatch) -> None:
    a = corpus_assistant
    r = a.retriever
    ids = list(r.lexical.by_id)[:20]
    expected = a.store.vectors(ids)
    got = r.stored_vectors(ids)
    assert set(got) == set(ids) == set(expected)
    assert all(np.array_equal(got[i], expected[i]) for i in ids)

    reads: list[list[str]] = []
    read = a.store.vectors
    monkeypatch.setattr(a.store, "vectors", lambda which: reads.append(list(which)) or read(which))
    assert set(r.stored_vectors(ids)) == set(ids)
    a.ask("CUDA out of memory while loading the model")
    assert reads == []  # the table answers: no Chroma read per question
    r.stored_vectors([*ids[:2], "written-after-the-snapshot"])
    assert reads == [["written-after-the-snapshot"]]  # only what the snapshot lacks is read from the store
