"""How much a chunk is about the question: the score abstention is decided on (pure).

Four views: dense cosine similarity (meaning), IDF-weighted term coverage (the question's specific
words, identifiers and error strings found in the chunk), how much of the question the corpus knows
at all, and whether both channels independently put the chunk in their top 3. The weights and the cut-off (`Settings.min_confidence`) are calibrated on the eval
data by `eval/calibrate.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from assistant.text.signals import SUMMARY_CHARS

# IDF mass every question is taken to carry beyond the words it has: a share is found / (total + PRIOR_MASS).
# A question of one or two informative words (or a Chinese question whose English view is one glossary word)
# says too little for "all of it is covered" to be evidence; a long, specific question is barely affected.
# Chosen with the weights by 5-fold cross-validation (eval/calibration.md); the largest IDF here is about 6.4.
PRIOR_MASS = 8.0


def informative(tokens: Iterable[str]) -> set[str]:
    """The query tokens the shares count: distinct, longer than one character, not a number."""
    return {t for t in tokens if len(t) > 1 and not t.isdigit()}


def coverage(query_tokens: Iterable[str], chunk_terms: frozenset[str], idf: Callable[[str], float]) -> float:
    """IDF-weighted share of the query's distinct informative tokens that the chunk contains (shrunk by PRIOR_MASS)."""
    terms = informative(query_tokens)
    if not terms:
        return 0.0
    total = sum(idf(t) for t in terms)
    found = sum(idf(t) for t in terms if t in chunk_terms)
    return found / (total + PRIOR_MASS)


def known_share(query_tokens: Iterable[str], idf: Callable[[str], float], known: Callable[[str], bool]) -> float:
    """IDF-weighted share of the query's informative tokens that occur anywhere in the corpus (shrunk by PRIOR_MASS).

    A question about something the knowledge base never mentions (another product, an uncovered
    feature) is made of words the corpus lacks, whatever chunk comes out on top.
    """
    terms = informative(query_tokens)
    total = sum(idf(t) for t in terms)
    return sum(idf(t) for t in terms if known(t)) / (total + PRIOR_MASS)


# Logistic model over the views, fitted by `eval/calibrate.py` with 5-fold cross-validation on the fitting
# side of the eval split only (answerable vs off-topic questions; the held-out third is never used, see
# eval/calibration.md); its output is a probability that the chunk answers the question.
WEIGHTS = (5.89, 7.45, 4.81, 1.63)  # cosine, coverage, known share, channel agreement
BIAS = -8.02
# The same four and the problem share (`Hit.problem`: the problem's own tokens the chunk holds, no command line nor
# setup term), fitted the same way; used with `Settings.problem_evidence` (eval/problem_share.md).
PROBLEM_WEIGHTS = (5.95, 2.93, 4.40, 1.84, 1.46)  # cosine, coverage, known share, channel agreement, problem share
PROBLEM_BIAS = -8.05


# A message longer than the summary that is embedded of it (`signals.salient_text`) is a pasted report or log rather
# than a question. Pastes have their own bar, `Settings.min_confidence_paste`.
PASTE_CHARS = SUMMARY_CHARS


def is_paste(text: str) -> bool:
    return len(text.strip()) > PASTE_CHARS


def min_confidence_for(
    text: str, question_bar: float, paste_bar: float, unnamed_bar: float = 0.0, unnamed: bool = False
) -> float:
    """The evidence an answer needs: a paste's bar is its own (calibrated on pastes, see eval/calibrate.py); a message
    that shows no sign of vLLM (`unnamed`: `Query.vllm_unnamed`, which reads the user's earlier turns too) needs at
    least `unnamed_bar`: over real threads such a message is more often another product's problem than one a vLLM
    source fixes (eval/README.md, session 40)."""
    bar = paste_bar if is_paste(text) else question_bar
    return max(bar, unnamed_bar) if unnamed else bar


def evidence(cosine: float, cover: float, known: float, agree: bool, problem: float | None = None) -> float:
    """Probability-like 0..1 score that a chunk is about the question (with `problem`, the problem-share model)."""
    x = (cosine, cover, known, float(agree))
    weights, bias = (WEIGHTS, BIAS) if problem is None else (PROBLEM_WEIGHTS, PROBLEM_BIAS)
    z = bias + sum(w * v for w, v in zip(weights, x if problem is None else (*x, problem)))
    return 1.0 / (1.0 + math.exp(-z))
