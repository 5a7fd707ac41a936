"""The entry-evidence study's features (assistant/eval/entry_evidence.py), against the real evidence functions.

The study scores other prior masses and other entry features from what it measured once per hit; that is only
honest if, at the PRIOR_MASS in use, its coverage and known share are exactly evidence.py's on real chunks and
real query tokens, and if the in-use variant is the retriever's feature tuple unchanged.
"""

from __future__ import annotations

import pytest

from assistant.eval.entry_evidence import VARIANTS, HitMeasure, features, mass_parts, shrunk_share
from assistant.index.lexical import LexicalIndex
from assistant.ingest.entries import load_entry_file
from assistant.retrieval.evidence import PRIOR_MASS, coverage, known_share
from assistant.retrieval.query import analyze
from assistant.settings import REPO_ROOT

ENTRIES = REPO_ROOT / "corpus" / "entries"
QUESTIONS = [
    "vLLM 0.6.4: a second model on the same GPU fails, gpu_memory_utilization 0.5 does not help",
    "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU",
    "请问使用vllm部署qwen3，如何关闭思考模式呢？",
    "Llama 3 does not stop: stop_token_ids 128009 or 2048 max_tokens, it runs to the 4096 limit",
    "how?",
]


@pytest.fixture(scope="module")
def lexical() -> LexicalIndex:
    names = ["bfloat16-needs-compute-capability-8-use-dtype-half", "gpu-memory-utilization-global-limit-0-6-4",
             "qwen3-disable-thinking-chat-template-kwargs", "tp-attention-heads-not-divisible"]  # fmt: skip
    chunks = [c for n in names for c in load_entry_file((ENTRIES / f"{n}.yaml").read_text("utf-8"), ENTRIES / f"{n}.yaml", n)]
    return LexicalIndex(chunks)


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_shares_at_the_prior_mass_in_use_are_evidence_pys(lexical, question):
    query = analyze(question)
    views = [v for v in (query.focus_tokens or query.lexical_tokens, query.english_tokens) if v]
    known = [mass_parts(v, lexical.df.__contains__, lexical.idf) for v in views]
    expected_known = max((known_share(v, lexical.idf, lambda t: t in lexical.df) for v in views), default=0.0)
    assert shrunk_share(known, PRIOR_MASS) == pytest.approx(expected_known)
    for chunk in lexical.chunks:
        terms = lexical.terms(chunk.id)
        cover = [mass_parts(v, terms.__contains__, lexical.idf) for v in views]
        expected = max((coverage(v, terms, lexical.idf) for v in views), default=0.0)
        assert shrunk_share(cover, PRIOR_MASS) == pytest.approx(expected), (question, chunk.id)


def test_a_larger_prior_mass_shrinks_a_short_question_more():
    """The prior's purpose: one found word out of one is weak evidence, most of a long question is not."""
    short, long = [(2.0, 2.0)], [(20.0, 24.0)]
    assert shrunk_share(short, 16) / shrunk_share(short, 4) < shrunk_share(long, 16) / shrunk_share(long, 4)
    assert shrunk_share([], 8) == 0.0


ENTRY = HitMeasure(True, 0.55, False, ((3.0, 10.0),), ((9.0, 10.0),), (0.40, 0.72), (0.81,), (0.5,))
SECTION = HitMeasure(False, 0.62, True, ((5.0, 10.0),), ((9.0, 10.0),))


def test_the_in_use_variant_is_the_retrievers_feature_tuple():
    assert features(ENTRY, "en", 8.0, "in_use") == (0.55, 3.0 / 18.0, 9.0 / 18.0, 0.0)
    assert features(SECTION, "en", 8.0, "in_use") == (0.62, 5.0 / 18.0, 9.0 / 18.0, 1.0)


def test_the_question_similarity_lifts_only_an_entry_and_only_up():
    assert features(ENTRY, "en", 8.0, "max_question_sim")[0] == 0.72
    assert features(HitMeasure(True, 0.9, False, (), (), (0.4,)), "en", 8.0, "max_question_sim")[0] == 0.9
    assert features(SECTION, "en", 8.0, "max_question_sim") == features(SECTION, "en", 8.0, "in_use")
    # the Chinese texts' USE similarity counts for a Chinese question only
    assert features(ENTRY, "zh", 8.0, "max_question_sim_zh_use")[0] == 0.81
    assert features(ENTRY, "en", 8.0, "max_question_sim_zh_use")[0] == 0.72


def test_the_fifth_features():
    assert features(ENTRY, "en", 8.0, "question_sim_feature")[4] == 0.72
    assert features(SECTION, "en", 8.0, "question_sim_feature")[4] == 0.0
    assert [features(h, "en", 8.0, "entry_indicator")[4] for h in (ENTRY, SECTION)] == [1.0, 0.0]
    assert all(len(features(ENTRY, "en", 8.0, v)) in (4, 5) for v in VARIANTS)
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        features(ENTRY, "en", 8.0, "nope")


def test_the_symptom_share_lifts_only_an_entry_and_only_up():
    lifted = HitMeasure(True, 0.55, False, ((3.0, 10.0),), ((9.0, 10.0),), symptom_parts=((6.0, 10.0),))
    assert features(lifted, "en", 8.0, "symptom_coverage")[1] == 6.0 / 18.0
    lower = HitMeasure(True, 0.55, False, ((3.0, 10.0),), ((9.0, 10.0),), symptom_parts=((1.0, 10.0),))
    assert features(lower, "en", 8.0, "symptom_coverage") == features(lower, "en", 8.0, "in_use")
    assert features(SECTION, "en", 8.0, "symptom_coverage") == features(SECTION, "en", 8.0, "in_use")
    assert features(lifted, "en", 8.0, "symptom_coverage_feature")[4] == 6.0 / 18.0
    assert features(SECTION, "en", 8.0, "symptom_coverage_feature")[4] == 0.0
