"""`python -m assistant sync` of releases end to end (the sync command calls `assistant.release.sync`):
a wheel through pip from a local index, a wheel file, a source tree; `releases` lists and diffs them."""

from __future__ import annotations

import subprocess
import sys

from assistant.cli import main
from assistant.settings import REPO_ROOT
from tests.helpers.env import clean_env
from tests.release.small_wheel import build_tree


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "assistant", *args],
        check=False,
        cwd=REPO_ROOT,
        env=clean_env(**(env or {})),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_sync_from_the_package_index_then_again_does_nothing(tmp_path, wheels):
    # pip itself, pointed at a local folder instead of PyPI: the same `pip download --no-deps` path.
    env = {
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels["0.99.0"].parent),
        "ASSISTANT_WHEEL_CACHE_DIR": str(tmp_path / "wheels"),
    }
    first = run(["sync", "vllm==0.99.0", "--index-dir", str(tmp_path / "idx")], env)
    assert first.returncode == 0, first.stderr
    assert "downloading vllm==0.99.0" in first.stderr  # progress
    assert "vLLM 0.99.0: 14 files read, 3 env vars, 9 flags, 11 raise/log sites" in first.stdout
    assert list((tmp_path / "wheels" / "0.99.0").glob("vllm-0.99.0-*.whl"))
    again = run(["sync", "vllm==0.99.0", "--index-dir", str(tmp_path / "idx")], env)
    assert again.returncode == 0 and "already indexed" in again.stdout
    assert "downloading" not in again.stderr
    listed = run(["releases", "--index-dir", str(tmp_path / "idx")])
    assert listed.stdout.startswith("0.99.0\t3 env vars\t9 flags\t11 sites")


def test_a_release_indexed_in_an_older_format_is_listed_as_stale_and_read_again_by_the_next_sync(tmp_path, wheels):
    import gzip
    import json

    idx = tmp_path / "idx"
    assert run(["sync", str(wheels["0.99.0"]), "--index-dir", str(idx)]).returncode == 0
    stored = idx / "releases" / "vllm-0.99.0.json.gz"
    with gzip.open(stored, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    with gzip.open(stored, "wt", encoding="utf-8") as fh:  # as an earlier version of the assistant wrote it
        json.dump({**data, "format": 1}, fh)
    listed = run(["releases", "--index-dir", str(idx)])
    assert listed.returncode == 0 and listed.stdout == "0.99.0\tindexed by an older version of the assistant: sync it again\n"
    diff = run(["releases", "--diff", "0.99.0", "0.99.0", "--index-dir", str(idx)])  # says why, not "not indexed"
    assert diff.returncode != 0 and "indexed by an older version of the assistant: sync it again" in diff.stderr
    assert "Traceback" not in diff.stderr and "not indexed" not in diff.stderr
    again = run(["sync", str(wheels["0.99.0"]), "--index-dir", str(idx)])
    assert again.returncode == 0 and "already indexed" not in again.stdout  # read again, not skipped
    assert run(["releases", "--index-dir", str(idx)]).stdout.startswith("0.99.0\t3 env vars\t9 flags")


def test_sync_a_wheel_file_and_a_source_tree_into_one_index(tmp_path, wheels, capsys):
    idx = str(tmp_path / "idx")
    assert main(["sync", str(wheels["0.98.0"]), "--index-dir", idx]) == 0
    tree = build_tree(tmp_path / "src", "0.99.0")
    assert main(["sync", str(tree), "--index-dir", idx]) == 0
    out = capsys.readouterr().out
    assert "vLLM 0.98.0:" in out and "vLLM 0.99.0:" in out
    assert main(["releases", "--diff", "0.98.0", "0.99.0", "--index-dir", idx]) == 0
    diff = capsys.readouterr().out
    assert "VLLM_ENGINE_ITERATION_TIMEOUT_S" in diff and "--kv-offload-gb" in diff


def test_bad_specs_are_clear_errors(tmp_path, capsys):
    idx = str(tmp_path / "idx")
    assert main(["sync", "not-a-release", "--index-dir", idx]) == 2  # neither a release nor a declared source
    assert "unknown source 'not-a-release'" in capsys.readouterr().err
    assert main(["sync", "--installed", "--index-dir", idx]) == 1  # no vllm in this environment
    assert "no vllm package is installed in this Python environment" in capsys.readouterr().out
    broken = tmp_path / "broken.whl"
    broken.write_bytes(b"not a zip")
    assert main(["sync", str(broken), "--index-dir", idx]) == 1
    assert "not a readable wheel" in capsys.readouterr().out


def test_pip_failure_is_reported(tmp_path):
    env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path), "ASSISTANT_WHEEL_CACHE_DIR": str(tmp_path / "w")}
    done = run(["sync", "vllm==0.97.0", "--index-dir", str(tmp_path / "idx")], env)
    assert done.returncode == 1
    assert "pip download vllm==0.97.0 failed:" in done.stdout
