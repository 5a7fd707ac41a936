"""The releases an index knows: one compressed JSON file per release beside the Chroma store.

Code facts are kept out of the embedded pool on purpose: ten thousand raise sites would cost minutes
of embedding and would shift the calibrated evidence of the curated and documentation chunks. They
are matched by template and by name instead (see `match.py`).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

from assistant.errors import ReleaseError
from assistant.release.models import ReleaseFacts

_FORMAT = 1


class ReleaseStore:
    def __init__(self, index_dir: Path):
        self.root = Path(index_dir) / "releases"

    def _file(self, version: str) -> Path:
        return self.root / f"vllm-{version}.json.gz"

    def versions(self) -> list[str]:
        """Indexed releases, oldest first."""
        if not self.root.is_dir():
            return []
        found = [p.name[len("vllm-") : -len(".json.gz")] for p in self.root.glob("vllm-*.json.gz")]
        return sorted(found, key=version_key)

    def has(self, version: str) -> bool:
        return self._file(version).is_file()

    def revision(self) -> tuple[tuple[str, float], ...]:
        """Changes whenever a release is added, replaced or removed: readers reload on a change."""
        if not self.root.is_dir():
            return ()
        return tuple(sorted((p.name, p.stat().st_mtime) for p in self.root.glob("vllm-*.json.gz")))

    def save(self, facts: ReleaseFacts) -> Path:
        """Written to a temporary file and renamed: a reader never sees half a release."""
        self.root.mkdir(parents=True, exist_ok=True)
        target = self._file(facts.version)
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=5) as fh:
            json.dump({"format": _FORMAT, **facts.to_json()}, fh, ensure_ascii=False)
        os.replace(tmp, target)
        return target

    def load(self, version: str) -> ReleaseFacts:
        path = self._file(version)
        try:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            raise ReleaseError(f"cannot read the indexed release {path}: {exc}; sync it again") from exc
        if data.get("format") != _FORMAT:
            raise ReleaseError(f"{path} was written by another version of the assistant; sync it again")
        return ReleaseFacts.from_json(data)

    def remove(self, version: str) -> bool:
        path = self._file(version)
        if path.is_file():
            path.unlink()
            return True
        return False

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.glob("vllm-*.json.gz")) if self.root.is_dir() else 0


def version_key(version: str) -> tuple:
    """Sort key for release versions: 0.9.2 < 0.10.0 < 0.33.0rc1 < 0.33.0."""
    from packaging.version import InvalidVersion, Version

    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)
