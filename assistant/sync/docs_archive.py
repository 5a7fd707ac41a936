"""A repository's docs at a git ref, from the repository archive of that ref (GitHub's tarball endpoint), a local
archive, or a vLLM release's source distribution on the package index (`vllm-0.33.0.tar.gz` holds `docs/`).

The ref is first resolved to a commit with a conditional request: an unchanged ref costs one 304 and
nothing is downloaded. Each Markdown page is split like any docs folder; its chunks carry the ref and
cite the rendered page of that version (https://docs.vllm.ai/en/v0.31.0/usage/faq/#anchor).
"""

from __future__ import annotations

import dataclasses
import io
import re
import tarfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from assistant.errors import ReleaseError, SyncError
from assistant.ingest.markdown_docs import load_markdown
from assistant.models import Chunk
from assistant.release.sdist import download_sdist, sdist_name
from assistant.sync.api_pages import API_MODULES, api_pages
from assistant.sync.context import SyncContext
from assistant.sync.snippets import included_files, resolve_includes
from assistant.sync.sources import DocsSource
from assistant.text.vocab import RELEASE_TAG

_MD = (".md", ".markdown")
_MAX_MEMBER = 5_000_000
_TAG_VERSION = re.compile(rf"^v?({RELEASE_TAG})$")
# How an archive is read into pages. A sync cursor that read an archive with an older reader reads it again, though
# the archive is unchanged (2: the API reference pages and the source lines pages include).
READER = 2


def docs_version(ref: str) -> str:
    """The version segment of the rendered docs URL: a tag as is, 'latest' for the main branch."""
    return "latest" if ref in ("main", "master", "latest") else ref


def ref_version(ref: str) -> str | None:
    """The release a ref names (v0.31.0 -> 0.31.0), None for a branch."""
    m = _TAG_VERSION.match(ref)
    return m.group(1) if m else None


def page_url(template: str, ref: str, rel: str) -> str:
    """docs/usage/faq.md -> .../usage/faq/ ; a folder's README.md or index.md -> the folder's page."""
    path = PurePosixPath(rel)
    parts = list(path.with_suffix("").parts)
    if parts and parts[-1].lower() in ("readme", "index"):
        parts = parts[:-1]
    page = "/".join(parts) + "/" if parts else ""
    return template.format(version=docs_version(ref), page=page)


def origin_prefix(source: DocsSource) -> str:
    return f"docs:{source.repo}@{source.ref}:"


def _read_members(blob: bytes, wanted: Callable[[str], bool]) -> dict[str, str]:
    """{path under the top folder: text} of the tarball's files that `wanted` takes (UTF-8 text, not too large)."""
    out: dict[str, str] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:*") as tar:
            for member in tar:
                if not member.isfile() or member.size > _MAX_MEMBER:
                    continue
                parts = PurePosixPath(member.name).parts
                if len(parts) < 2 or ".." in parts or not wanted(rel := "/".join(parts[1:])):
                    continue
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                try:
                    out[rel] = handle.read().decode("utf-8-sig").replace("\r\n", "\n")
                except UnicodeDecodeError:
                    continue
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise SyncError(f"the docs archive is not a readable tar.gz: {exc}") from exc
    return out


def archive_pages(blob: bytes, folder: str) -> dict[str, str]:
    """{path under `folder`: text} of the Markdown files in a tarball with one folder on top: GitHub's
    (`owner-repo-sha/`) or a source distribution's (`vllm-0.33.0/`). With the docs folder, what the docs site renders
    from the source beside it, where the archive holds it: the API reference pages (`assistant/sync/api_pages.py`)
    and the source lines a page includes (`assistant/sync/snippets.py`)."""
    prefix = f"{folder}/"
    with_source = folder == "docs"
    found = _read_members(
        blob, lambda rel: (rel.startswith(prefix) and rel.lower().endswith(_MD)) or (with_source and rel in API_MODULES)
    )
    pages = {rel.removeprefix(prefix): text for rel, text in found.items() if rel.startswith(prefix)}
    if not pages:
        raise SyncError(f"the docs archive has no Markdown under {folder}/ (expected <top folder>/{folder}/...)")
    if not with_source:
        return pages
    wanted = set().union(*map(included_files, pages.values()))
    sources = _read_members(blob, wanted.__contains__) if wanted else {}
    pages = {rel: resolve_includes(text, sources) for rel, text in pages.items()}
    modules = {rel: text for rel, text in found.items() if rel in API_MODULES}
    return {**api_pages(modules), **pages}  # a page the docs folder has itself stands


def page_chunks(source: DocsSource, rel: str, text: str, commit: str | None) -> list[Chunk]:
    origin = f"{origin_prefix(source)}{rel}"
    url = page_url(source.url_template, source.ref, rel)
    chunks = load_markdown(text, PurePosixPath(rel), url)  # type: ignore[arg-type]
    extra = {
        "ref": source.ref,
        "version": ref_version(source.ref),
        "repo": source.repo,
        "path": f"{source.folder}/{rel}",
    }
    if commit:
        extra["commit"] = commit
    return [dataclasses.replace(c, origin=origin, data={**c.data, **extra}) for c in chunks]


def _fetch(source: DocsSource, ctx: SyncContext, again: bool = False) -> tuple[bytes, str] | None:
    """(archive, commit) when the ref moved since the last sync (or `again`: whether or not), None when unchanged."""
    client = ctx.github()
    cursor = ctx.cursor()
    try:
        ref = client.page(f"repos/{source.repo}/commits/{source.ref}", etag=None if again else cursor.get("etag"))
        if ref.status == 304:
            return None
        sha = ref.data["sha"]
        if sha == cursor.get("commit") and not again:
            ctx.checkpoint({**cursor, "etag": ref.etag})
            return None
        ctx.say(f"downloading {source.repo}@{source.ref} ({sha[:12]})")
        response = client.get(f"repos/{source.repo}/tarball/{sha}")
        if response.status_code != 200:
            raise SyncError(f"GitHub has no archive of {source.repo}@{source.ref} ({response.status_code})")
        ctx.notes.append(f"{source.ref} is at {sha[:12]}")
        return response.content, f"{sha}\n{ref.etag or ''}"
    finally:
        client.close()


def _release_archive(source: DocsSource, ctx: SyncContext) -> Path:
    """The release's source distribution from the package index (cached beside its wheel)."""
    version = ref_version(source.ref)
    assert version is not None  # the source's schema admits only a release tag here
    settings = ctx.settings
    try:
        return download_sdist(version, settings.wheel_cache_dir, ctx.say, settings.package_index_url)
    except ReleaseError as exc:
        raise SyncError(f"{source.name}: {exc}") from exc


def sync_docs(source: DocsSource, ctx: SyncContext) -> None:
    cursor = ctx.cursor()
    archive = source.archive
    again = cursor.get("reader") != READER  # read with an older reader: read it again
    if source.package_index:
        # A release's source distribution never changes once published: read it once (per reader).
        if cursor.get("archive") == sdist_name(str(ref_version(source.ref))) and not again:
            ctx.say(f"{source.ref} unchanged (its source distribution is already read)")
            return
        archive = _release_archive(source, ctx)
    if archive is not None:
        try:
            blob = archive.read_bytes()
        except OSError as exc:
            raise SyncError(f"{source.name}: cannot read the archive {archive}: {exc.strerror or exc}") from exc
        commit, etag = None, None
    else:
        fetched = _fetch(source, ctx, again)
        if fetched is None:
            ctx.say(f"{source.ref} unchanged")
            return
        blob, marker = fetched
        commit, etag = marker.split("\n", 1)
    pages = archive_pages(blob, source.folder)
    prefix = origin_prefix(source)
    for i, (rel, text) in enumerate(sorted(pages.items()), start=1):
        ctx.apply({f"{prefix}{rel}": page_chunks(source, rel, text, commit)})
        if i % 20 == 0 or i == len(pages):
            ctx.say(f"{i}/{len(pages)} pages of {source.ref}")
    ctx.remove(ctx.writer.origins(prefix) - {f"{prefix}{rel}" for rel in pages})
    done = {"archive": archive.name} if source.package_index and archive is not None else {}
    ctx.checkpoint({**cursor, "commit": commit, "etag": etag or None, "reader": READER, **done})
