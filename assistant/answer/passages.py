"""Which paragraphs of a documentation section address the question (pure, given block similarities).

A docs section is often long and about several things; its first paragraph is usually an
introduction. The answer leads with the paragraph that addresses the user's problem: scored by the
meaning of the question (the query embedding against each paragraph, supplied by the caller) and by
the question's words found in it, with a code block or a table read together with the sentence that
introduces it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assistant.ingest.markdown_docs import announces, is_code_or_table, is_list
from assistant.text.tokenize import tokenize

# Dense similarity of the question to each block: supplied by the caller (the embedding model).
BlockScorer = Callable[[Sequence[str]], Sequence[float]]

_DENSE_WEIGHT = 0.6  # meaning counts more than shared words; shared words break ties and catch flags


def _overlap(block: str, wanted: frozenset[str]) -> float:
    if not wanted:
        return 0.0
    return len(wanted & set(tokenize(block))) / len(wanted)


def block_scores(blocks: Sequence[str], query_tokens: Sequence[str], dense: Sequence[float] | None) -> list[float]:
    """A 0..1 score per block: dense similarity min-max scaled over the section, plus the share of question words."""
    wanted = frozenset(t for t in query_tokens if len(t) > 1 and not t.isdigit())
    lexical = [_overlap(b, wanted) for b in blocks]
    if not dense:
        return lexical
    lo, hi = min(dense), max(dense)
    scaled = [(d - lo) / (hi - lo) if hi > lo else 1.0 for d in dense]
    return [_DENSE_WEIGHT * d + (1 - _DENSE_WEIGHT) * x for d, x in zip(scaled, lexical)]


def _with_context(blocks: Sequence[str], i: int) -> list[int]:
    """Block `i` with what it cannot be read without: the paragraph that introduces a code block, table or list,
    the block a paragraph announces ("run this:", "consider the following actions:"), and the list right after a
    paragraph (the steps that say how: "you can use precompiled wheels" then "* Enable it with ...")."""
    block = blocks[i]
    if (is_code_or_table(block) or is_list(block)) and i > 0:
        before = blocks[i - 1]
        if announces(before) or (is_code_or_table(block) and not is_code_or_table(before) and not is_list(before)):
            return [i - 1, i]
    if i + 1 < len(blocks) and (
        is_code_or_table(blocks[i + 1]) or announces(block) or (is_list(blocks[i + 1]) and not is_list(block))
    ):
        return [i, i + 1]
    return [i]


def select(blocks: Sequence[str], scores: Sequence[float], limit: int) -> list[int]:
    """Block indices to show, the best first; then the others that fit, in page order.

    Each block comes with its context (`_with_context`): a code block, table or list that scores best brings the
    paragraph that introduces it, and a paragraph that announces what follows brings the block after it.
    """
    if not blocks:
        return []
    best = max(range(len(blocks)), key=lambda i: (scores[i], -i))
    lead = _with_context(blocks, best)
    size = sum(len(blocks[i]) for i in lead)
    rest: list[int] = []
    for i in sorted(range(len(blocks)), key=lambda i: -scores[i]):
        if i in lead or i in rest:
            continue
        if scores[i] <= 0 and rest:
            break
        group = [j for j in _with_context(blocks, i) if j not in lead and j not in rest]
        extra = sum(len(blocks[j]) for j in group)
        if size + extra > limit:
            continue
        rest.extend(group)
        size += extra
    return lead + sorted(rest)
