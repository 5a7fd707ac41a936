"""The real vLLM 0.33.0 source distribution from the package index (47 MB, cached in `.data/wheels` beside the
wheel): it is found through PyPI's simple API, matches its published SHA-256, and its docs/ folder is the
release's documentation, cited at the release's URL. (Embedding all of it is `make run`'s first start, not a test.)"""

from __future__ import annotations

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
