"""A vLLM release's source distribution (`vllm-X.Y.Z.tar.gz`) from the package index: its `docs/` folder is
that release's documentation, so the docs come from where the wheel comes from, with no GitHub access.

The file is found through the index's simple API (PEP 691 JSON, or the PEP 503 HTML page), downloaded to
the wheel cache under a temporary name and kept only when its SHA-256 matches the one the index states.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import httpx

from assistant.errors import ReleaseError
from assistant.release.fetch import Progress

_JSON = "application/vnd.pypi.simple.v1+json"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class SdistFile:
    name: str
    url: str
    sha256: str | None


def sdist_name(version: str) -> str:
    return f"vllm-{version}.tar.gz"


def _from_json(data: dict, name: str, base: str) -> SdistFile | None:
    for f in data.get("files") or []:
        if f.get("filename") == name and f.get("url"):
            return SdistFile(name, urljoin(base, f["url"]), (f.get("hashes") or {}).get("sha256"))
    return None


def _from_html(text: str, name: str, base: str) -> SdistFile | None:
    for href in re.findall(r"""<a\s[^>]*href=["']([^"']+)["']""", text, re.IGNORECASE):
        href = html.unescape(href)
        url, _, fragment = href.partition("#")
        if url.rsplit("/", 1)[-1] == name:
            m = re.match(r"sha256=([0-9a-fA-F]{64})$", fragment)
            return SdistFile(name, urljoin(base, url), m.group(1).lower() if m else None)
    return None


def find_sdist(version: str, index_url: str, client: httpx.Client) -> SdistFile:
    """Where the index keeps `vllm-version.tar.gz`, with its hash; ReleaseError when it has none."""
    page = index_url.rstrip("/") + "/vllm/"
    try:
        r = client.get(page, headers={"Accept": f"{_JSON}, text/html;q=0.1"})
    except httpx.HTTPError as exc:
        raise ReleaseError(f"cannot reach the package index at {index_url}: {exc}") from exc
    if r.status_code != 200:
        raise ReleaseError(f"the package index at {index_url} answered {r.status_code} for vllm")
    name = sdist_name(version)
    is_json = r.headers.get("content-type", "").split(";")[0].strip() == _JSON
    try:
        found = _from_json(r.json(), name, page) if is_json else _from_html(r.text, name, page)
    except ValueError as exc:
        raise ReleaseError(f"the package index at {index_url} sent an unreadable page for vllm: {exc}") from exc
    if found is None:
        raise ReleaseError(f"the package index at {index_url} has no source distribution {name}")
    return found


def download_sdist(version: str, cache_dir: Path, progress: Progress, index_url: str, timeout: float = 600) -> Path:
    """The cached `vllm-version.tar.gz`, or downloaded into `cache_dir/version/` (hash-checked)."""
    target = cache_dir / version / sdist_name(version)
    if target.is_file():
        return target
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        found = find_sdist(version, index_url, client)
        progress(f"downloading {found.name} (vLLM {version}'s docs) from the package index")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        digest = hashlib.sha256()
        try:
            with client.stream("GET", found.url) as r, partial.open("wb") as out:
                if r.status_code != 200:
                    raise ReleaseError(f"downloading {found.name} failed: the index answered {r.status_code}")
                for block in r.iter_bytes(_CHUNK):
                    digest.update(block)
                    out.write(block)
        except httpx.HTTPError as exc:
            partial.unlink(missing_ok=True)
            raise ReleaseError(f"downloading {found.name} failed: {exc}") from exc
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    if found.sha256 and digest.hexdigest() != found.sha256.lower():
        partial.unlink(missing_ok=True)
        raise ReleaseError(f"{found.name} from the package index does not match its SHA-256: not kept")
    partial.replace(target)
    progress(f"downloaded {found.name} ({target.stat().st_size / 1e6:.0f} MB)")
    return target
