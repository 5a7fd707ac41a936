import pytest

from assistant.errors import LoadError
from assistant.ingest.loader import load_file
from assistant.ingest.seed_pages import parse_seed_page
from tests.conftest import SEED_PAGE


def test_the_seed_page_has_five_questions_and_no_page_chrome():
    blocks = parse_seed_page(SEED_PAGE.read_text(encoding="utf-8"), str(SEED_PAGE))
    assert [n for n, _, _ in blocks] == [1, 2, 3, 4, 5]
    assert "VLLM_USE_DEEP_GEMM=0" in blocks[1][2]
    last_answer = blocks[4][2]
    assert last_answer.endswith("仍然是安全的。")
    assert "相似推荐" not in last_answer


def test_seed_page_chunks_cite_each_question(tmp_path):
    chunks = load_file(SEED_PAGE, SEED_PAGE.parent)
    assert [c.kind for c in chunks] == ["qa"] * 5
    assert chunks[1].source.endswith("000_c4401e1cdcf7b498.txt#question-2")
    assert chunks[1].lang == "zh"
    assert "VLLM_USE_DEEP_GEMM=0" in chunks[1].dense_text  # identifiers survive the English view


def test_question_without_answer_is_an_error(tmp_path):
    page = tmp_path / "page.txt"
    page.write_text("Question 1\n\nWhy?\n\nAccepted Answer\n\nBecause.\n\nQuestion 2\n\nAnd this?\n", encoding="utf-8")
    with pytest.raises(LoadError, match="Question 2"):
        load_file(page, tmp_path)
