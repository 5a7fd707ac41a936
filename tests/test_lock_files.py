"""The lock files agree with pyproject.toml: a dependency added without `make lock` fails here, by name.

(The installs check the rest: `pip install --require-hashes` refuses a file whose hash changed, and `pip check`
refuses a locked set that does not satisfy itself.)
"""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from assistant.settings import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", re.MULTILINE)


def pins(name: str) -> dict[str, Version]:
    text = (REPO_ROOT / name).read_text(encoding="utf-8")
    return {canonicalize_name(n): Version(v) for n, v in PIN.findall(text)}


def hashed_entries(name: str) -> list[str]:
    """Each `pkg==version ...` entry with its continuation lines, as pip reads it."""
    text = (REPO_ROOT / name).read_text(encoding="utf-8")
    return [e for e in re.split(r"\n(?=[A-Za-z0-9])", text) if PIN.match(e)]


RUN = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
DEV = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]]


@pytest.mark.parametrize(("lock", "requirements"), [("requirements.lock", RUN), ("requirements-dev.lock", RUN + DEV)])
def test_every_dependency_is_pinned_within_its_range(lock: str, requirements: list[Requirement]) -> None:
    pinned = pins(lock)
    problems = []
    for req in requirements:
        version = pinned.get(canonicalize_name(req.name))
        if version is None:
            problems.append(f"{req.name} is not in {lock}")
        elif not req.specifier.contains(version, prereleases=True):
            problems.append(f"{req.name}=={version} in {lock} is outside {req.specifier}")
    assert not problems, "; ".join(problems) + ": run `make lock` and commit the lock files"


def test_run_and_dev_pin_the_same_versions() -> None:
    run, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    assert {n: (v, dev.get(n)) for n, v in run.items() if dev.get(n) != v} == {}


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock"])
def test_every_pin_carries_a_hash(lock: str) -> None:
    entries = hashed_entries(lock)
    assert entries and [e.split()[0] for e in entries if "--hash=sha256:" not in e] == []


def test_torch_is_the_local_cpu_build() -> None:
    assert pins("requirements-dev.lock")["torch"] == Version("2.13.0+cpu")
