"""The real vLLM 0.33.0 source distribution from the package index (47 MB, cached in `.data/wheels` beside the
wheel): it is found through PyPI's simple API, matches its published SHA-256, and its docs/ folder is the
release's documentation, cited at the release's URL. (Embedding all of it is `make run`'s first start, not a test.)"""

from __future__ import annotations

from assistant.eval.dataset import load_set
from assistant.release.sdist import download_sdist
from assistant.release_cli import EVAL_RELEASE
from assistant.settings import REPO_ROOT, Settings
from assistant.sync.docs_archive import archive_pages, page_chunks
from assistant.sync.sources import release_docs_source


def test_the_release_docs_come_from_its_source_distribution():
    said: list[str] = []
    path = download_sdist(EVAL_RELEASE, REPO_ROOT / ".data" / "wheels", said.append, Settings().package_index_url)
    assert path.name == f"vllm-{EVAL_RELEASE}.tar.gz" and path.stat().st_size > 10_000_000
    pages = archive_pages(path.read_bytes(), "docs")
    assert len(pages) >= 200, sorted(pages)[:10]
    assert {"usage/troubleshooting.md", "usage/faq.md", "configuration/conserving_memory.md"} <= set(pages)
    source = release_docs_source(EVAL_RELEASE)
    assert source is not None
    chunks = page_chunks(source, "usage/troubleshooting.md", pages["usage/troubleshooting.md"], None)
    assert len(chunks) >= 10
    base = f"https://docs.vllm.ai/en/v{EVAL_RELEASE}/usage/troubleshooting/"
    assert all(c.source.startswith(base) and c.data["version"] == EVAL_RELEASE for c in chunks)
    assert len({c.source for c in chunks}) >= 10  # each section cites its own anchor


def _words(text: str) -> str:
    return " ".join(text.split())  # line breaks and non-breaking spaces as one space


def test_each_negative_labelled_as_answered_by_the_releases_docs_quotes_a_section_of_them():
    """`answered_in` (eval/sets/negatives.jsonl) leaves a negative out of an eval on this release's docs: each label
    must name a page and heading of those docs and quote that page word for word."""
    path = download_sdist(EVAL_RELEASE, REPO_ROOT / ".data" / "wheels", lambda _m: None, Settings().package_index_url)
    pages = archive_pages(path.read_bytes(), "docs")
    labels = [(item.id, a) for item in load_set("negatives") for a in item.answered_in if a.release == EVAL_RELEASE]
    assert len(labels) >= 20
    for item_id, answered in labels:
        page, heading = answered.section.split("#", 1)
        assert page in pages, (item_id, page)
        headings = [_words(line.lstrip("#")) for line in pages[page].splitlines() if line.startswith("#")]
        assert any(h.startswith(_words(heading)) for h in headings), (item_id, heading)
        assert _words(answered.quote) in _words(pages[page]), (item_id, answered.quote)
