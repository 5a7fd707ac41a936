"""Candidate evidence features for curated-entry hits, for `eval/entry_evidence_study.py` (pure).

Why: a user who asks about a known problem in their own words shares few words with the entry, so its lexical share
(`evidence.coverage`) is low; the entry's own question, title and symptoms are written the way a user asks, so the
dense similarity of the question to *them* might be the evidence the whole-entry cosine misses. These functions turn
what the study measured once per hit (the coverage's found/total IDF mass per query view, the question's similarity
to each of the entry's question-shaped texts) into the feature tuples of each variant, so that every variant (and
every PRIOR_MASS) is scored by the same cross-validation without retrieving again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from assistant.retrieval.evidence import informative

# (found, total): the IDF mass of a query view's informative tokens that a chunk (or the corpus) has, and in all
Parts = tuple[float, float]


def mass_parts(tokens: Iterable[str], has: Callable[[str], bool], idf: Callable[[str], float]) -> Parts:
    """The found and total IDF mass of a view's informative tokens (what coverage divides, before the prior)."""
    terms = informative(tokens)
    return sum(idf(t) for t in terms if has(t)), sum(idf(t) for t in terms)


def shrunk_share(views: Sequence[Parts], prior_mass: float) -> float:
    """The best view's found / (total + prior_mass): `evidence.coverage` (and `known_share`) at another prior mass."""
    return max((found / (total + prior_mass) for found, total in views), default=0.0)


@dataclass(frozen=True)
class HitMeasure:
    """What one retrieved hit was measured as, once."""

    is_entry: bool
    cosine: float  # MiniLM cosine to the whole chunk (the feature in use)
    agree: bool
    cover_parts: tuple[Parts, ...]  # per query view: the chunk's found and the view's total IDF mass
    known_parts: tuple[Parts, ...]  # per query view: the corpus's found and the total
    question_sim: tuple[float, ...] = ()  # entry: MiniLM cosine to its English title, question and each symptom
    use_sim_zh: tuple[float, ...] = ()  # entry: USE cosine to its Chinese title, question and symptoms
    use_sim_en: tuple[float, ...] = ()  # entry: USE cosine to its English ones
    symptom_parts: tuple[Parts, ...] = ()  # entry, per query view: its title, question and symptoms' found IDF mass


VARIANTS = (
    "in_use",
    "max_question_sim",
    "max_question_sim_zh_use",
    "question_sim_feature",
    "entry_indicator",
    "symptom_coverage",
    "symptom_coverage_feature",
)


def features(hit: HitMeasure, lang: str, prior_mass: float, variant: str) -> tuple[float, ...]:
    """The evidence features of a hit under `variant`:

    - in_use: (cosine, coverage, known share, agreement), evidence.py's;
    - max_question_sim: an entry's cosine is the best of its whole-text cosine and its question-shaped texts';
    - max_question_sim_zh_use: the same, and for a Chinese question also the USE similarity to the entry's Chinese texts;
    - question_sim_feature: the best question-shaped similarity as a fifth feature (0 for a docs section);
    - entry_indicator: a fifth feature, 1 for an entry hit (lets the model weigh entries apart);
    - symptom_coverage: an entry's coverage is the best of its whole-text coverage and the share of the question's
      IDF mass its title, question and symptoms (both languages) hold: the words a user describes the problem with,
      not those of its fix or root cause;
    - symptom_coverage_feature: that symptom share as a fifth feature (0 for a docs section).
    """
    base = [hit.cosine, shrunk_share(hit.cover_parts, prior_mass), shrunk_share(hit.known_parts, prior_mass),
            float(hit.agree)]  # fmt: skip
    best_question = max(hit.question_sim, default=0.0)
    if variant == "in_use":
        return tuple(base)
    if variant == "max_question_sim":
        return (max(hit.cosine, best_question) if hit.is_entry else hit.cosine, *base[1:])
    if variant == "max_question_sim_zh_use":
        zh = max(hit.use_sim_zh, default=0.0) if lang == "zh" else 0.0
        return (max(hit.cosine, best_question, zh) if hit.is_entry else hit.cosine, *base[1:])
    if variant == "question_sim_feature":
        return (*base, best_question if hit.is_entry else 0.0)
    if variant == "entry_indicator":
        return (*base, float(hit.is_entry))
    symptom = shrunk_share(hit.symptom_parts, prior_mass) if hit.is_entry else 0.0
    if variant == "symptom_coverage":
        return (base[0], max(base[1], symptom), *base[2:])
    if variant == "symptom_coverage_feature":
        return (*base, symptom)
    raise ValueError(f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
