"""Where a release's source comes from: a wheel from the package index (pip download), a local wheel,
a source tree, or the installed package. Never installs or imports vLLM (its import needs CUDA PyTorch).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import ReleaseError
from assistant.release.extract import wanted
from assistant.release.models import ReleaseSpec

Progress = Callable[[str], None]

_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?(?:(?:rc|\.post|\.dev)\d+)?$")
_WHEEL_NAME = re.compile(r"^vllm-([^-]+)-.*\.whl$")
_VERSION_FILE = re.compile(
    r"""^(?:__version__|version)\s*(?::\s*str\s*)?=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""", re.MULTILINE
)


def parse_spec(text: str) -> ReleaseSpec:
    """`vllm==0.33.0`, `0.33.0`, a `.whl` path or a folder holding `vllm/`; `--installed` is `installed`."""
    text = text.strip()
    if text == "installed":
        return ReleaseSpec("installed", "")
    m = re.fullmatch(r"(?:vllm\s*==\s*)?v?(\S+)", text)
    if m and _VERSION.match(m.group(1)) and not Path(text).exists():
        return ReleaseSpec("pypi", m.group(1), m.group(1))
    path = Path(text).expanduser()
    if path.suffix == ".whl":
        if not path.is_file():
            raise ReleaseError(f"{text}: no such wheel file")
        wm = _WHEEL_NAME.match(path.name)
        return ReleaseSpec("wheel", str(path.resolve()), wm.group(1) if wm else None)
    if path.is_dir():
        if not (path / "vllm").is_dir():
            raise ReleaseError(f"{text}: not a vLLM source tree (no vllm/ folder inside)")
        return ReleaseSpec("tree", str(path.resolve()))
    raise ReleaseError(
        f"cannot read {text!r} as a release: give vllm==X.Y.Z (or X.Y.Z), a path to a vllm .whl file, "
        "a source tree holding vllm/, or --installed"
    )


def normalize_version(version: str) -> str:
    """A release as its git tag names it: `v0.33.0` and `0.33.0` are the same; local suffixes (+cu129) dropped."""
    return version.strip().lstrip("v").split("+", 1)[0]


def release_version(release: str) -> str:
    """The version a listed release names: `vllm==0.33.0`, `v0.33.0` and `0.33.0` are all `0.33.0`."""
    return normalize_version(release.strip().removeprefix("vllm=="))


def download_wheel(version: str, cache_dir: Path, progress: Progress, timeout: float = 900) -> Path:
    """The wheel of `vllm==version`, from the cache or downloaded with `pip download --no-deps` into it."""
    target = cache_dir / version
    found = sorted(target.glob(f"vllm-{version}-*.whl")) if target.is_dir() else []
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    progress(f"downloading vllm=={version} from the package index (pip download --no-deps, about 330 MB)")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--progress-bar", "off",
           "--disable-pip-version-check", f"vllm=={version}", "-d", str(target)]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ReleaseError(f"pip download vllm=={version} took longer than {timeout:.0f}s") from exc
    found = sorted(target.glob(f"vllm-{version}-*.whl"))
    if done.returncode != 0 or not found:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel was written"]
        raise ReleaseError(f"pip download vllm=={version} failed: {last[0]}")
    size = found[0].stat().st_size / 1e6
    progress(f"downloaded {found[0].name} ({size:.0f} MB)")
    return found[0]


@dataclass(frozen=True)
class SourceFiles:
    """The release's Python files, read lazily; `version` as the source itself states it."""

    version: str
    origin: str
    paths: tuple[str, ...]
    _read: Callable[[str], bytes]

    def read(self, path: str) -> str:
        return self._read(path).decode("utf-8", errors="replace")

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for p in self.paths:
            yield p, self.read(p)


def _version_from_text(text: str) -> str | None:
    m = _VERSION_FILE.search(text)
    return normalize_version(m.group(1)) if m else None


def _open_wheel(path: Path, version: str | None) -> SourceFiles:
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ReleaseError(f"{path}: not a readable wheel ({exc})") from exc
    names = zf.namelist()
    if version is None:
        for name in names:
            if name.endswith(".dist-info/METADATA") and name.startswith("vllm-"):
                m = re.search(r"^Version:\s*(\S+)", zf.read(name).decode("utf-8", "replace"), re.MULTILINE)
                version = normalize_version(m.group(1)) if m else None
        if version is None and "vllm/_version.py" in names:
            version = _version_from_text(zf.read("vllm/_version.py").decode("utf-8", "replace"))
    if version is None:
        raise ReleaseError(f"{path}: cannot tell which vLLM version this wheel is (no dist-info METADATA)")
    paths = tuple(sorted(n for n in names if wanted(n)))
    if not paths:
        raise ReleaseError(f"{path}: holds no vllm/*.py files")
    return SourceFiles(normalize_version(version), str(path), paths, zf.read)


def _open_tree(root: Path, version: str | None) -> SourceFiles:
    if version is None:
        for candidate in ("vllm/_version.py", "vllm/version.py"):
            f = root / candidate
            if f.is_file():
                version = _version_from_text(f.read_text(encoding="utf-8", errors="replace"))
                if version:
                    break
    if version is None:
        raise ReleaseError(f"{root}: cannot tell which vLLM version this is (no vllm/_version.py stating it)")
    paths = tuple(sorted(p.relative_to(root).as_posix() for p in (root / "vllm").rglob("*.py")))
    paths = tuple(p for p in paths if wanted(p))
    return SourceFiles(normalize_version(version), str(root), paths, lambda p: (root / p).read_bytes())


def open_source(spec: ReleaseSpec, cache_dir: Path, progress: Progress, as_version: str | None = None) -> SourceFiles:
    """The files of the release a spec names, downloading its wheel when needed."""
    version = as_version or spec.version
    if spec.kind == "pypi":
        return _open_wheel(download_wheel(spec.value, cache_dir, progress), version)
    if spec.kind == "wheel":
        return _open_wheel(Path(spec.value), version)
    if spec.kind == "tree":
        return _open_tree(Path(spec.value), version)
    found = importlib.util.find_spec("vllm")  # locates the package without importing it
    if found is None or not found.submodule_search_locations:
        raise ReleaseError("--installed: no vllm package is installed in this Python environment")
    root = Path(next(iter(found.submodule_search_locations))).parent
    try:
        version = version or importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        pass
    return _open_tree(root, version)
