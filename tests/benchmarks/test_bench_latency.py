"""bench_latency measures questions the process has not seen: its two halves share no text any cache is keyed by."""

from __future__ import annotations

import importlib.util
from collections import Counter

from assistant.retrieval.query import analyze
from assistant.settings import REPO_ROOT

_spec = importlib.util.spec_from_file_location("bench_latency", REPO_ROOT / "benchmarks" / "bench_latency.py")
bench_latency = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_latency)


def _embedded_texts(queries: list[tuple[str, str]]) -> set[str]:
    """The texts a question's vectors are cached under: MiniLM's (dense_text) and USE's (focus_text)."""
    return {t for _, q in queries for query in [analyze(q)] for t in (query.dense_text, query.focus_text) if t}


def test_the_halves_of_the_eval_sets_are_disjoint_and_mixed_alike():
    queries = bench_latency.load_queries(0)
    first, second = bench_latency.halves(queries)
    assert {q for _, q in first}.isdisjoint(q for _, q in second)
    assert {q for _, q in first} | {q for _, q in second} == {q for _, q in queries}
    # the warm-up half holds no question's cached text of the measured half: every measured question is embedded
    assert _embedded_texts(first).isdisjoint(_embedded_texts(second))
    a, b = Counter(name for name, _ in first), Counter(name for name, _ in second)
    assert set(a) == set(b) == set(bench_latency.SETS)
    assert all(abs(a[s] - b[s]) <= max(2, a[s] // 10) for s in a), (a, b)


def test_a_text_in_two_sets_goes_to_one_half():
    queries = [("seed", "q1"), ("seed", "q2"), ("docs", "q3"), ("docs", "q2"), ("docs", "q4")]
    first, second = bench_latency.halves(queries)
    assert [q for _, q in first].count("q2") + [q for _, q in second].count("q2") == 2
    assert ("q2" in {q for _, q in first}) != ("q2" in {q for _, q in second})
