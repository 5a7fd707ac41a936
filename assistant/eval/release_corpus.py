"""The eval's release corpus: the index `make run` serves for a vLLM release, built by the same call (I/O).

`make run` indexes the curated entries, the code facts of each release `vllm_releases` lists (env vars, flags,
raise and log sites, read from its wheel) and that release's docs (from its source distribution on the package
index, cited at `https://docs.vllm.ai/en/vX.Y.Z/<page>/#<anchor>`): `Assistant.prepare_index`, which the server's
start-up calls. `python -m assistant eval --docs-release 0.33.0` and `tests/eval/test_gate_release.py` build their
index with that same method, in an index folder of their own (`.index/makerun-<version>`), so what they score is
what a user of `make run` gets and the two cannot drift apart.

The labels of the eval sets name a section as `docs/<page>.md#<anchor>` (the page's path in the release's `docs/`);
`served_label` turns one into the id `make run` cites.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from assistant.errors import ConfigError, ReleaseError, SyncError
from assistant.index.embedder import every_core
from assistant.models import Chunk
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings
from assistant.sync.docs_archive import archive_pages, page_chunks, page_url
from assistant.sync.sources import DocsSource, release_docs_source

Progress = Callable[[str], None]
_PART = re.compile(r"~\d+$")  # a long section's second, third, ... part


def release_index_dir(version: str) -> Path:
    """The eval's copy of `make run`'s index for vLLM `version` (not the gate's, nor the server's own `.index`)."""
    return REPO_ROOT / ".index" / f"makerun-{version}"


def release_settings(settings: Settings, version: str, index_dir: Path | None = None) -> Settings:
    """`settings` as `make run` serves vLLM `version`: that release's code facts and docs, in the eval's folder."""
    return settings.with_overrides(
        index_dir=index_dir or release_index_dir(version), vllm_releases=[version], release_docs=True
    )


def build_release_index(
    assistant: Assistant, progress: Progress = lambda _m: None, paragraph_vectors: bool = True
) -> None:
    """Bring the eval's release index up to what `make run` would serve now, then load it.

    The curated corpus is ingested first (incrementally: an edited entry is re-embedded, a cached index gets it
    too; on an empty index this is what the first start of `make run` does), then `Assistant.prepare_index`, the
    server's own start-up step, adds the release's code facts and docs. A release that cannot be read fails the
    eval instead of scoring a smaller corpus than the one users get. Built on every core (`every_core`): no
    question is answered until it is done, so the one-thread rule of served queries does not apply.

    `paragraph_vectors=False` leaves out the server's last background step, the paragraph vectors of every docs
    section (about 40 % of the build): the answers are the same without them, as each answer embeds the paragraphs
    it reaches instead, and only its time differs. For scorers that time nothing (the CI gate)."""
    with every_core():
        _build_release_index(assistant, progress, paragraph_vectors)


def _build_release_index(assistant: Assistant, progress: Progress, paragraph_vectors: bool = True) -> None:
    settings = assistant.settings
    report = assistant.ingest(
        [settings.corpus_dir], progress=lambda m: None if m.startswith("skipped") else progress(m)
    )
    progress(f"release index, curated corpus: {report.summary()}")
    prepared = assistant.prepare_index(progress=progress)
    if prepared.docs_error is not None:
        raise ConfigError(f"the release docs could not be indexed: {prepared.docs_error}")
    if prepared.docs is not None and not prepared.docs.ok:
        raise ConfigError(f"the release docs could not be indexed:\n{prepared.docs.summary()}")
    from assistant.release.fetch import release_version

    have = assistant.releases.store.versions()
    missing = [v for v in settings.vllm_releases if release_version(v) not in have]
    if missing:
        raise ConfigError(f"the code facts of vLLM {', '.join(missing)} are not in {settings.index_dir}")
    # The server stores the USE vectors of the release's sections in the background once ready (the channel joins
    # when every chunk has one), then their paragraph vectors: score that state, what users get after the first
    # minutes. The answers are the same without the paragraph vectors (embedded at query time instead), but each
    # answer would then time the embedding of the paragraphs it reaches, which no user of a filled index waits for.
    filled = assistant.ensure_use_vectors(progress=progress)
    if filled:
        progress(f"release index: stored the USE vectors of {filled} chunks")
    sections = assistant.ensure_block_vectors(progress=progress) if paragraph_vectors else 0
    if sections:
        progress(f"release index: stored the paragraph vectors of {sections} docs sections")
    assistant.warm_up()
    progress(
        f"release index: {assistant.retriever.lexical.n_docs} chunks, code facts of "
        f"{', '.join(settings.vllm_releases)} ({settings.index_dir})"
    )


def served_label(label: str, version: str) -> str:
    """`docs/<page>.md#anchor` as `make run` cites that section of vLLM `version`'s docs; other labels unchanged.

    A page label (no `#`) becomes the page's URL, which `judged_ids` matches against every section of the page."""
    if not label.startswith("docs/"):
        return label
    page, _, anchor = label.partition("#")
    template = DocsSource.model_fields["url_template"].default
    url = page_url(template, f"v{version}", page.removeprefix("docs/"))
    return f"{url}#{anchor}" if anchor else url


def release_pages(version: str, settings: Settings, progress: Progress = lambda _m: None) -> dict[str, str]:
    """{path under docs/: text} of vLLM `version`'s source distribution (downloaded once into the wheel cache)."""
    from assistant.release.sdist import download_sdist

    try:
        sdist = download_sdist(version, settings.wheel_cache_dir, progress, settings.package_index_url)
        return archive_pages(sdist.read_bytes(), "docs")
    except (ReleaseError, SyncError) as exc:
        raise ConfigError(f"vLLM {version}'s docs are not available: {exc}") from exc


def release_sections(pages: dict[str, str], version: str) -> dict[str, list[Chunk]]:
    """Each section id `make run` cites for these pages -> its chunks (a long section's `~N` parts), split by the
    sync's own `page_chunks`: the check of a label reads the chunks the index holds."""
    source = release_docs_source(version)
    if source is None:
        raise ConfigError(f"{version!r} is not a release whose docs are on the package index")
    sections: dict[str, list[Chunk]] = {}
    for rel, text in sorted(pages.items()):
        for chunk in page_chunks(source, rel, text, None):
            sections.setdefault(_PART.sub("", chunk.id), []).append(chunk)
    return sections
