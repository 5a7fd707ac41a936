"""The deterministic split between the queries the evidence model is fitted on and those the CI gate scores.

A question is held out when a hash of its key falls in one third of the range: stable across runs and
machines, independent of file order, and a new question lands on either side by its own id. A
rendering in another language (`pair`) shares its twin's key, so a Chinese question and its English
original are never on opposite sides. Near-misses are never fitted on, so every one of them is held out, and so is
every question of HELD_OUT_SETS (the questions about the curated entries, written from other threads than theirs).
Every question of FITTING_SETS (entry questions written for the fit, from yet other threads) is on the fitting side.
"""

from __future__ import annotations

import hashlib

from assistant.eval.dataset import FITTING_SETS, HELD_OUT_SETS, Item

HELD_OUT_SHARE = 3  # one question in three is held out
FOLDS = 5  # k of the k-fold cross-validation over the fitting side


def _bucket(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % n


def split_key(item: Item) -> str:
    """The id, or the smaller of the id and its twin's: both twins get the same key whichever names the other."""
    pair = getattr(item, "pair", None)
    return min(item.id, pair) if pair else item.id


def is_held_out(item: Item) -> bool:
    """True for the queries the fit never sees (the CI gate's): every near-miss and HELD_OUT_SETS item, no FITTING_SETS one."""
    if item.expect == "not_fix" or item.set in HELD_OUT_SETS:
        return True
    if item.set in FITTING_SETS:
        return False
    return _bucket("held-out:" + split_key(item), HELD_OUT_SHARE) == 0


def fold_of(item: Item, folds: int = FOLDS) -> int:
    """The cross-validation fold of a fitting-side query."""
    return _bucket("fold:" + split_key(item), folds)
