"""Fusion of per-channel scores into one ranking (pure).

Relative score fusion: each channel's scores are min-max normalized over the candidates, then
combined with weights. Unlike reciprocal-rank fusion it keeps the margin: a lexical match that is
twice as strong as the next one (an exact error string, a model name) is not flattened into
"rank 1", so a noisy paste that confuses the dense channel still surfaces the right entry.
"""

from __future__ import annotations

from collections.abc import Mapping

# Channel weights per question language. "dense": MiniLM (English only), "lexical": BM25, "use": the
# multilingual USE model (`Settings.use_channel`). Without USE, a Chinese question leans on the lexical side:
# MiniLM reads only its glossary rendering.
WEIGHTS = {"en": {"dense": 0.5, "lexical": 0.5}, "zh": {"dense": 0.35, "lexical": 0.65}}
# With USE: chosen by `eval/fit_fusion.py` on the fitting side of the eval split only, the mean MRR@10 over the
# gate's corpus and vLLM 0.33.0's docs (eval/README.md, "The USE channel"). Chinese: 0.639 -> 0.673. English:
# no combination gained 0.01 over the weights without USE (best +0.002), so English questions keep them and
# are not embedded by USE at all.
WEIGHTS_USE = {
    "en": {"dense": 0.5, "lexical": 0.5, "use": 0.0},
    "zh": {"dense": 0.65, "lexical": 0.35, "use": 0.75},
}


def channel_weights(lang: str, with_use: bool) -> dict[str, float]:
    """The weights to fuse a question's channels with (English's for a language without its own)."""
    table = WEIGHTS_USE if with_use else WEIGHTS
    return dict(table.get(lang, table["en"]))


def normalize(scores: Mapping[str, float]) -> dict[str, float]:
    """Min-max to 0..1; a channel with one distinct value gives 1.0 to all."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return {k: 1.0 if hi > 0 else 0.0 for k in scores}
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def relative_score_fusion(
    channels: Mapping[str, Mapping[str, float]], weights: Mapping[str, float]
) -> dict[str, float]:
    """Weighted sum of normalized channel scores; a candidate missing from a channel scores 0 there."""
    fused: dict[str, float] = {}
    for name, scores in channels.items():
        w = weights.get(name, 1.0)
        for doc_id, s in normalize(scores).items():
            fused[doc_id] = fused.get(doc_id, 0.0) + w * s
    for doc_id in {d for scores in channels.values() for d in scores}:
        fused.setdefault(doc_id, 0.0)
    return fused


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Ids by descending score, ties broken by id for a stable order."""
    return sorted(scores, key=lambda i: (-scores[i], i))
