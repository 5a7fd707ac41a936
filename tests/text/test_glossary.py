"""The zh→en glossary gives a Chinese question the English words its sources use."""

import pytest

from assistant.text.glossary import english_view, translate_terms


@pytest.mark.parametrize(
    "text, words",
    [
        ("多卡推理卡在 NCCL 初始化不动了", {"multi-GPU", "stuck", "NCCL"}),
        ("离线推理的时候怎么限制输出", {"offline", "constrain"}),
        ("每次结果都有细微差别", {"each run", "difference"}),
        ("显存不足", {"out of memory"}),
    ],
)
def test_general_vocabulary_reaches_english(text, words):
    view = english_view(text)
    assert all(w in view for w in words), view


def test_longest_term_wins_and_each_rendering_once():
    assert translate_terms("非法内存访问") == ["illegal memory access"]
    assert translate_terms("报错 报错") == ["error"]
