"""Fitting the page-kind priors: a kind that is the answer just below another kind's distractor is lifted, a kind
seen in one question stays near 1, and re-ranking keeps the retriever's two groups apart."""

import math

import pytest

from assistant.eval.dataset import Item
from dataclasses import replace

from assistant.eval.kind_priors import (
    STRENGTHS,
    Candidates,
    chosen_strength,
    cross_validated,
    figures,
    fit,
    ranks,
    strengths_by_language,
)
from assistant.models import Chunk


def _chunk(cid: str) -> Chunk:
    return Chunk(id=cid, kind="doc", title=cid, source=cid, origin=cid, dense_text=cid, lexical_text=cid)


def _question(i: int, rows: list[tuple[str, float, str]], relevant: str, elsewhere=()) -> Candidates:
    item = Item(id=f"q-{i}", set="docs", query="q", lang="en", expect="answer", relevant=(relevant,))
    group = tuple((_chunk(f"{i}-{name}"), score, kind) for name, score, kind in rows)
    other = tuple((_chunk(f"{i}-{name}"), score, kind) for name, score, kind in elsewhere)
    return Candidates(item, (group, other))


def _design_above_troubleshooting(n: int = 40) -> list[Candidates]:
    """A design note scores just above the troubleshooting section that answers; features trail both."""
    rows = [("design", 1.0, "design"), ("fix", 0.9, "troubleshooting"), ("f1", 0.5, "feature"), ("f2", 0.4, "feature")]
    return [_question(i, rows, f"{i}-fix") for i in range(n)]


def test_the_kind_that_answers_just_below_a_distractor_is_lifted_over_it():
    questions = _design_above_troubleshooting()
    assert figures(questions, {})[1] == 0.0  # hit@1 without priors
    priors = fit(questions, lam=1.0)
    assert priors["troubleshooting"] / priors["design"] > 1 / 0.9
    assert figures(questions, priors)[:2] == (1.0, 1.0)
    assert cross_validated(questions, 1.0, folds=5)[1] == 1.0  # out of fold too: every fold has the same pattern


def test_a_kind_seen_in_one_question_stays_near_neutral_while_a_frequent_one_moves():
    questions = _design_above_troubleshooting()
    rare = [("cli", 1.0, "feature"), ("ref", 0.9, "reference"), ("x", 0.3, "usage")]
    questions.append(_question(99, rare, "99-ref"))
    priors = fit(questions, lam=30.0)
    assert abs(priors.get("reference", 1.0) - 1.0) < 0.05
    assert priors["troubleshooting"] / priors["design"] > 1.1


def test_a_stronger_pull_keeps_every_prior_closer_to_one():
    questions = _design_above_troubleshooting()
    weak, strong = fit(questions, lam=1.0), fit(questions, lam=100.0)
    assert abs(strong["troubleshooting"] - 1) < abs(weak["troubleshooting"] - 1)
    assert abs(strong["design"] - 1) < abs(weak["design"] - 1)


def test_questions_without_a_labelled_candidate_give_no_prior():
    rows = [("a", 1.0, "design"), ("b", 0.5, "feature")]
    assert fit([_question(i, rows, "nowhere") for i in range(10)], lam=1.0) == {}


def test_reranking_under_priors_keeps_the_other_platforms_sections_after_the_rest():
    # The answer is a section for another platform (the retriever's second group): no prior lifts it above the first.
    q = _question(0, [("a", 0.2, "design")], "0-b", elsewhere=[("b", 1.0, "troubleshooting")])
    assert ranks(q, {"design": 0.01, "troubleshooting": 100.0}) == pytest.approx((0.5, 0.0, 1.0))


def test_entries_get_no_prior_keep_their_slot_and_the_pages_priors_are_centred():
    # An entry leads, two design pages beat the troubleshooting section that answers, a feature guide trails: the
    # fit lifts troubleshooting over design, names no prior for the entry, and the pages' log-priors, weighted by how
    # often each kind is a candidate (design twice, troubleshooting and feature once), sum to 0. Ranked as the
    # retriever does, the answer takes the first page slot, and the entry keeps the first slot.
    rows = [("entry", 1.0, "entry"), ("p1", 0.95, "design"), ("p2", 0.9, "design"), ("guide", 0.8, "troubleshooting"),
            ("f", 0.3, "feature")]  # fmt: skip
    questions = [_question(i, rows, f"{i}-guide") for i in range(30)]
    priors = fit(questions, lam=1.0)
    assert "entry" not in priors
    assert priors["design"] < 1 < priors["troubleshooting"]
    centre = 2 * math.log(priors["design"]) + math.log(priors["troubleshooting"]) + math.log(priors.get("feature", 1))
    assert centre == pytest.approx(0.0, abs=5e-3)  # the priors are rounded to 3 decimals
    assert ranks(questions[0], priors) == pytest.approx((0.5, 0.0, 1.0))
    assert ranks(questions[0], {"troubleshooting": 100.0}) == pytest.approx((0.5, 0.0, 1.0))  # never past the entry


def test_questions_answered_by_an_entry_say_nothing_about_the_pages():
    # Pages never move past an entry, so a question whose answer is its entry gives the likelihood nothing to fit.
    rows = [("p1", 1.0, "design"), ("entry", 0.9, "entry"), ("guide", 0.3, "troubleshooting")]
    assert fit([_question(i, rows, f"{i}-entry") for i in range(30)], lam=1.0) == {}


def test_a_language_the_priors_hurt_out_of_fold_gets_strength_zero_and_one_they_help_keeps_them():
    # English questions: troubleshooting answers just below a design note (the priors lift it). Chinese ones, fewer:
    # the design note answers and a troubleshooting section scores just below it, so the same priors push it down.
    english = _design_above_troubleshooting(40)
    rows = [("fix", 1.0, "design"), ("other", 0.95, "troubleshooting"), ("f1", 0.5, "feature")]
    chinese = [replace(_question(100 + i, rows, f"{100 + i}-fix"), lang="zh") for i in range(15)]
    table = strengths_by_language(english + chinese, [english + chinese], lam=1.0, folds=5)
    assert set(table) == {"en", "zh"} and set(table["zh"]) == set(STRENGTHS)
    assert chosen_strength(table["en"]) > 0 and table["en"][1.0] == 1.0 > table["en"][0.0]
    assert chosen_strength(table["zh"]) == 0.0 and table["zh"][0.0] == 1.0  # no prior: every answer first
    assert chosen_strength({0.0: 0.5, 0.5: 0.5, 1.0: 0.4}) == 0.0  # a tie: the weaker strength
