import pytest

from assistant.retrieval.fusion import normalize, ranked, relative_score_fusion


def test_normalize_min_max():
    assert normalize({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert normalize({}) == {}
    assert normalize({"a": 5.0}) == {"a": 1.0}


def test_fusion_keeps_the_margin_of_a_strong_lexical_match():
    # Dense prefers d by a hair; lexical prefers e by a wide margin: e must win.
    dense = {"d": 0.65, "e": 0.60, "f": 0.30}
    lexical = {"e": 117.0, "d": 60.0, "f": 50.0}
    fused = relative_score_fusion({"dense": dense, "lexical": lexical}, {"dense": 0.5, "lexical": 0.5})
    assert ranked(fused)[0] == "e"


def test_fusion_weights_and_missing_candidates():
    fused = relative_score_fusion({"dense": {"a": 1.0, "b": 0.0}, "lexical": {"c": 3.0, "a": 1.0}}, {"dense": 0.2, "lexical": 0.8})
    assert set(fused) == {"a", "b", "c"}
    assert fused["c"] == pytest.approx(0.8)
    assert fused["a"] == pytest.approx(0.2)
    assert ranked(fused) == ["c", "a", "b"]


def test_the_use_channel_has_its_own_weights_per_language():
    from assistant.retrieval.fusion import WEIGHTS, WEIGHTS_USE, channel_weights

    assert channel_weights("en", with_use=False) == WEIGHTS["en"]
    assert set(channel_weights("zh", with_use=True)) == {"dense", "lexical", "use"}
    assert channel_weights("zh", with_use=True) == WEIGHTS_USE["zh"]
    assert channel_weights("fr", with_use=True) == WEIGHTS_USE["en"]  # a language without its own: English's
