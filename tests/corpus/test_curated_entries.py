"""Every curated entry, checked: it loads, cites a URL (or a file that exists), names only flags and env vars the
release it applies to has, has its text in both languages, and shares no error string with another entry unless a
condition tells them apart. A failure names the entry and what is wrong with it.

The release check reads the real vLLM 0.33.0 wheel (the one tests/release/test_release_real_wheel.py syncs), only
its env and config files: `pip download` once into the wheel cache, then about a second.
"""

from __future__ import annotations

import pytest

from assistant.ingest.entries import parse_entry
from assistant.ingest.entry_checks import (
    error_named_problems,
    reference_problems,
    release_problems,
    removal_version_problems,
    shared_error_problems,
    source_problems,
)
from assistant.release.fetch import _open_wheel, download_wheel
from assistant.release.names import ReleaseNames, release_names
from assistant.release_cli import EVAL_RELEASE
from assistant.settings import REPO_ROOT, Settings
from tests.conftest import SHARED

ENTRIES_DIR = REPO_ROOT / "corpus" / "entries"
FILES = sorted(ENTRIES_DIR.glob("*.yaml"))
# The releases the suite indexes; an entry that applies to one must name only what that release has.
INDEXED = (EVAL_RELEASE,)


@pytest.fixture(scope="module")
def entries():
    return [parse_entry(p.read_text(encoding="utf-8"), str(p)) for p in FILES]


@pytest.fixture(scope="module", params=INDEXED)
def release(request) -> ReleaseNames:
    wheel = download_wheel(request.param, Settings().wheel_cache_dir, lambda _m: None)
    return release_names(_open_wheel(wheel, request.param))


def _exists(path: str) -> bool:
    """A path source, relative to the repository; `../shared/...` is the shared folder the suite reads the seed from."""
    if path.startswith("../shared/"):
        return (SHARED / path.removeprefix("../shared/")).is_file()
    return (REPO_ROOT / path).is_file()


def test_every_entry_loads_under_its_file_name(entries):
    assert len(entries) == len(FILES) >= 6
    assert [e.id for e in entries] == [p.stem for p in FILES]


def test_every_entry_cites_a_url_or_a_file_that_exists(entries):
    problems = [p for e in entries for p in source_problems(e, _exists) + reference_problems(e)]
    assert not problems, "\n".join(problems)


def test_every_entry_has_its_text_in_english_and_chinese(entries):
    problems = []
    for e in entries:
        for field in ("title", "question", "root_cause", "fix"):
            value = getattr(e, field)
            problems += [f"{e.id}: {field}.{lang} is empty" for lang in ("en", "zh") if not getattr(value, lang).strip()]
        problems += [f"{e.id}: symptoms.{lang} is empty" for lang in ("en", "zh") if not getattr(e.symptoms, lang)]
        if e.workarounds.en and not e.workarounds.zh:
            problems.append(f"{e.id}: workarounds.zh is empty")
    assert not problems, "\n".join(problems)


def test_every_flag_and_env_var_an_entry_names_exists_in_the_release_it_applies_to(entries, release):
    assert len(release.flags) >= 250 and len(release.env_vars) >= 250  # the wheel was read, not an empty stand-in
    problems = [p for e in entries for p in release_problems(e, release)]
    assert not problems, "\n".join(problems)


def test_no_error_string_is_shared_without_a_condition_that_tells_the_entries_apart(entries):
    problems = shared_error_problems(entries)
    assert not problems, "\n".join(problems)


def test_an_entry_known_by_its_message_quotes_a_full_one(entries):
    problems = [p for e in entries for p in error_named_problems(e)]
    assert not problems, "\n".join(problems)


def test_the_release_check_reads_real_names(release):
    """A name from each kind the entries use, so an extraction that lost one kind cannot pass the check above."""
    assert release.has_flag("--gpu-memory-utilization") and release.has_flag("--no-enable-prefix-caching")
    assert release.has_env("VLLM_USE_DEEP_GEMM") and not release.has_env("VLLM_NOT_A_REAL_VARIABLE")
    assert not release.has_flag("--not-a-real-flag")



def test_an_error_that_names_a_removed_flag_says_the_release_it_began_in(entries):
    problems = [p for e in entries for p in removal_version_problems(e)]
    assert not problems, "\n".join(problems)
