"""The held-out split is deterministic, keeps twins together, holds out every near-miss, and is about a third."""

from assistant.eval.dataset import FITTING_SETS, HELD_OUT_SETS, Item, load_sets
from assistant.eval.split import fold_of, is_held_out


def _item(id_: str, expect: str = "answer", pair: str | None = None) -> Item:
    return Item(id=id_, set="docs", query="q", lang="en", expect=expect, pair=pair)


def test_same_answer_every_time_and_twins_on_one_side():
    ids = [f"doc-{i:02d}" for i in range(60)]
    assert [is_held_out(_item(i)) for i in ids] == [is_held_out(_item(i)) for i in ids]
    for i in ids:
        twin = _item("zh-" + i, pair=i)
        assert is_held_out(twin) == is_held_out(_item(i)) == is_held_out(_item(i, pair="zh-" + i))
        assert fold_of(twin) == fold_of(_item(i))


def test_every_near_miss_is_held_out():
    assert all(is_held_out(_item(f"near-{i}", expect="not_fix")) for i in range(50))


def test_the_real_sets_hold_out_about_a_third():
    split = (*HELD_OUT_SETS, *FITTING_SETS)  # the sets on one side whole
    fitted = [i for name, items in load_sets("all").items() if name not in split for i in items]
    share = sum(map(is_held_out, fitted)) / len(fitted)
    assert 0.25 <= share <= 0.42, f"{share:.2f} held out"
    for name, items in load_sets("all").items():  # each set on both sides (a hash, so not exactly a third)
        if name not in split:
            assert 0 < sum(map(is_held_out, items)) < len(items), name


def test_the_entry_questions_are_held_out_whole():
    """The questions about the curated entries are the gate's out-of-sample test: no one of them is ever fitted on."""
    sets = load_sets(["entry_questions", "entry_near_miss"])
    assert all(is_held_out(i) for items in sets.values() for i in items)
    assert is_held_out(Item(id="doc-00", set="entry_questions", query="q", lang="en", expect="answer"))
    assert not all(is_held_out(_item(f"doc-{i:02d}")) for i in range(10))  # the same ids in docs are split


def test_the_fitting_entry_questions_are_fitted_on_whole():
    """The entry questions written for the fit are never in the gate's held-out split, whatever their ids hash to."""
    fit = load_sets(["entry_questions_fit"])["entry_questions_fit"]
    assert fit and not any(map(is_held_out, fit))
    ids = [f"doc-{i:02d}" for i in range(10)]
    assert any(is_held_out(_item(i)) for i in ids)  # the same ids in docs are split ...
    assert not any(is_held_out(Item(id=i, set="entry_questions_fit", query="q", lang="en", expect="answer")) for i in ids)
