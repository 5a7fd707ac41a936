"""A vLLM release's own docs as a folder the eval ingests: what `make run` answers from, made scorable (I/O).

`make run` indexes the docs of the release it serves, read from that release's source distribution on the
package index (`docs/releases.md`). `python -m assistant eval --docs-release 0.33.0` scores the pipeline on
the same pages: they are written once under the wheel cache as `<version>/docs-tree/docs/<page>.md`, so the
ids of their sections read like those of the gate's docs (`docs/usage/troubleshooting.md#...`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from assistant.errors import ConfigError, ReleaseError, SyncError
from assistant.release.fetch import Progress
from assistant.release.sdist import download_sdist
from assistant.settings import REPO_ROOT, Settings
from assistant.sync.docs_archive import archive_pages

_DONE = ".complete"


def release_index_dir(version: str) -> Path:
    """The eval's index for vLLM `version`'s docs: not the gate's, whose docs would mix with the release's."""
    return REPO_ROOT / ".index" / f"eval-{version}"


def release_docs_dir(version: str, settings: Settings, progress: Progress = lambda _m: None) -> Path:
    """The folder holding `docs/` of vLLM `version`'s source distribution (downloaded and written on first use)."""
    target = settings.wheel_cache_dir / version / "docs-tree"
    if (target / _DONE).is_file():
        return target
    try:
        sdist = download_sdist(version, settings.wheel_cache_dir, progress, settings.package_index_url)
        pages = archive_pages(sdist.read_bytes(), "docs")
    except (ReleaseError, SyncError) as exc:
        raise ConfigError(f"vLLM {version}'s docs are not available: {exc}") from exc
    partial = target.with_name(target.name + ".part")
    shutil.rmtree(partial, ignore_errors=True)
    for rel, text in pages.items():
        path = partial / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (partial / _DONE).write_text(f"{len(pages)} pages of vLLM {version}'s docs\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    progress(f"vLLM {version}'s docs: {len(pages)} pages in {target}")
    return target
