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

# Bumped whenever extraction reads more (2: BooleanOptionalAction flags are booleans; `vllm --version`; 3: which
# flags have a `--no-<flag>` form; 4: the names it accepts: architectures, quantization methods, parsers). A file of
# an older format is not indexed for the readers, and `has` is False for it, so the next sync or start reads it again.
_FORMAT = 4


class ReleaseStore:
    def __init__(self, index_dir: Path):
        self.root = Path(index_dir) / "releases"

    def _file(self, version: str) -> Path:
        return self.root / f"vllm-{version}.json.gz"

    def _files(self) -> list[str]:
        if not self.root.is_dir():
            return []
        found = [p.name[len("vllm-") : -len(".json.gz")] for p in self.root.glob("vllm-*.json.gz")]
        return sorted(found, key=version_key)

    def versions(self) -> list[str]:
        """Indexed releases, oldest first (in this assistant's format)."""
        return [v for v in self._files() if self.has(v)]

    def stale(self) -> list[str]:
        """Releases indexed by an older version of the assistant: sync them again."""
        return [v for v in self._files() if not self.has(v)]

    def has(self, version: str) -> bool:
        """Whether the release is indexed in this assistant's format (the file's first bytes say which)."""
        try:
            with gzip.open(self._file(version), "rt", encoding="utf-8") as fh:
                head = fh.read(24)
        except (OSError, EOFError, UnicodeDecodeError):
            return False
        return head.replace(" ", "").startswith(f'{{"format":{_FORMAT},')

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
