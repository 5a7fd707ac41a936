"""USE vectors stored in a chunk's metadata: the round trip, what counts as missing, the in-memory search."""

import numpy as np

from assistant.index.use_embedder import USE_DIM
from assistant.index.use_vectors import FIELD, decode, encode, load_matrix


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(USE_DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def test_a_vector_survives_the_metadata_round_trip_exactly():
    v = _unit(1)
    assert np.array_equal(decode(encode(v)), v)


def test_no_field_a_broken_one_or_another_models_width_is_missing():
    assert decode({}) is None
    assert decode({FIELD: "not base64!"}) is None
    assert decode({FIELD: encode(np.ones(384, dtype=np.float32))[FIELD]}) is None  # a MiniLM-sized vector


def test_the_matrix_counts_chunks_without_a_vector_and_is_incomplete_then():
    full = load_matrix([("a", encode(_unit(1))), ("b", encode(_unit(2)))])
    assert full.complete and full.missing == 0
    partial = load_matrix([("a", encode(_unit(1))), ("b", {"kind": "doc"})])
    assert not partial.complete and partial.missing == 1 and partial.ids == ["a"]
    assert not load_matrix([]).complete  # an empty index has no channel to join


def test_nearest_ranks_by_cosine_and_similarities_score_the_given_ids():
    vectors = {f"c{i}": _unit(i) for i in range(6)}
    matrix = load_matrix((cid, encode(v)) for cid, v in vectors.items())
    q = vectors["c4"] * 0.8 + vectors["c2"] * 0.2
    q /= np.linalg.norm(q)
    top = matrix.nearest(q, 3)
    assert [cid for cid, _ in top][:2] == ["c4", "c2"]
    assert top[0][1] > top[1][1] > top[2][1]
    sims = matrix.similarities(q, ["c4", "c0", "gone"])
    assert set(sims) == {"c4", "c0"} and abs(sims["c4"] - float(vectors["c4"] @ q)) < 1e-6
    assert len(matrix.nearest(q, 50)) == 6  # never more than there are
