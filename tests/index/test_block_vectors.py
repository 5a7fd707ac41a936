"""Paragraph vectors stored at ingest: keys, the metadata round trip, lookup with the fallback for what is missing."""

import numpy as np

from assistant.index.block_vectors import (
    KEYS_FIELD,
    BlockTable,
    block_key,
    blocks_of,
    decode,
    embed_with_blocks,
    encode,
    load_table,
)
from assistant.models import Chunk


def _doc(cid: str, body: str, kind: str = "doc") -> Chunk:
    return Chunk(id=cid, kind=kind, title=cid, source=cid, origin="docs/x.md", dense_text="T " + body,
                 lexical_text=body, data={"body": body})  # fmt: skip


class Counting:
    """A deterministic embedder (a vector from the text's hash) that records what it was asked to embed."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [np.random.default_rng(int(block_key(t)[:8], 16)).standard_normal(8) for t in texts]
        return np.stack([r / np.linalg.norm(r) for r in rows]).astype(np.float32)


def test_a_paragraph_is_keyed_by_its_text_alone():
    assert block_key("Raise --gpu-memory-utilization.") == block_key("Raise --gpu-memory-utilization.")
    assert block_key("Raise --gpu-memory-utilization.") != block_key("Raise --gpu-memory-utilization")


def test_vectors_survive_the_metadata_round_trip_exactly():
    vectors = Counting()(["a", "b", "c"])
    back = decode(encode([block_key(t) for t in "abc"], vectors))
    assert list(back) == [block_key(t) for t in "abc"]
    for i, t in enumerate("abc"):
        assert np.array_equal(back[block_key(t)], vectors[i])


def test_metadata_without_or_with_broken_fields_gives_no_vectors():
    assert decode({}) == {}
    assert decode({KEYS_FIELD: "k1 k2", "block_vectors": "AAAA"}) == {}  # 3 bytes: not two float32 rows
    assert decode({KEYS_FIELD: "k1", "block_vectors": "not base64!"}) == {}


def test_only_docs_sections_have_paragraphs_to_store():
    assert blocks_of(_doc("d", "One.\n\nTwo.")) == ["One.", "Two."]
    assert blocks_of(_doc("e", "One.\n\nTwo.", kind="entry")) == []


def test_chunks_and_their_paragraphs_are_embedded_in_one_call_each_paragraph_once():
    embed = Counting()
    chunks = [_doc("a", "Shared intro.\n\nFix A."), _doc("b", "Shared intro.\n\nFix B."), _doc("e", "x", "entry")]
    vectors, extra = embed_with_blocks(chunks, embed)
    assert len(embed.calls) == 1
    assert embed.calls[0] == ["T Shared intro.\n\nFix A.", "T Shared intro.\n\nFix B.", "T x",
                              "Shared intro.", "Fix A.", "Fix B."]  # fmt: skip
    assert vectors.shape == (3, 8) and extra[2] == {}
    table = load_table(extra)
    assert len(table) == 3
    assert np.array_equal(table.lookup(["Fix B."], embed)[0], embed(["Fix B."])[0])


def test_stored_paragraphs_are_looked_up_and_only_the_missing_ones_embedded():
    embed = Counting()
    stored = ["Intro.", "Raise --gpu-memory-utilization."]
    table = BlockTable(decode(encode([block_key(b) for b in stored], embed(stored))))
    embed.calls.clear()
    blocks = ["Intro.", "A part written after the snapshot.", "Raise --gpu-memory-utilization.", "Intro."]
    got = table.lookup(blocks, embed)
    assert embed.calls == [["A part written after the snapshot."]]  # one call, only what is missing
    assert np.allclose(got, embed(blocks))
    query = embed(["how do I raise memory"])[0]
    # one matrix product against separate dot products: equal up to float rounding (the summation order differs)
    assert np.allclose(table.similarities(query, blocks, embed), [float(v @ query) for v in embed(blocks)], atol=1e-6)


def test_nothing_is_embedded_when_every_paragraph_is_stored():
    embed = Counting()
    table = BlockTable(decode(encode([block_key("x"), block_key("y")], embed(["x", "y"]))))
    embed.calls.clear()
    table.lookup(["y", "x"], embed)
    assert embed.calls == []
