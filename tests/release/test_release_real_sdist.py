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


def test_the_inference_parameters_reference_is_rendered_from_the_releases_source():
    """The docs site renders `vllm.SamplingParams`'s reference from the source (mkdocstrings); the docs folder holds
    none of it. Read from the same sdist, the class is a section at the site's own anchor (cut into parts), each
    documented parameter with its default as the release's source writes it."""
    path = download_sdist(EVAL_RELEASE, REPO_ROOT / ".data" / "wheels", lambda _m: None, Settings().package_index_url)
    pages = archive_pages(path.read_bytes(), "docs")
    source = release_docs_source(EVAL_RELEASE)
    assert source is not None
    rel = "api/vllm/sampling_params.md"
    chunks = page_chunks(source, rel, pages[rel], None)
    cls = f"https://docs.vllm.ai/en/v{EVAL_RELEASE}/api/vllm/sampling_params/#vllm.sampling_params.SamplingParams"
    parts = [c for c in chunks if c.source == cls]
    assert len(parts) > 1  # the class is long: cut into parts, each citing its anchor
    penalty = next(c for c in parts if "`SamplingParams.repetition_penalty: float = 1.0`" in c.dense_text)
    assert "Values > 1 encourage the model to use new tokens" in penalty.dense_text
    assert any("`SamplingParams.max_tokens: int | None = 16`" in c.dense_text for c in parts)
    assert "api/vllm/pooling_params.md" in pages


def test_the_openai_servers_extra_parameters_are_the_source_lines_the_page_includes():
    path = download_sdist(EVAL_RELEASE, REPO_ROOT / ".data" / "wheels", lambda _m: None, Settings().package_index_url)
    page = archive_pages(path.read_bytes(), "docs")["serving/online_serving/openai_compatible_server.md"]
    extra = page[page.index("#### Extra parameters") :]
    assert "    repetition_penalty: float | None = None" in extra
    assert '--8<-- "vllm/entrypoints/openai/chat_completion/protocol.py' not in page
