"""Fixture content for the fake GitHub (written for these tests, not copied from real issues) and the
docs archive, built from ../shared/vllm-docs in GitHub's tarball layout."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from tests.conftest import VLLM_DOCS
from tests.sync.fake_github import FakeGitHub, FakeRepo, closed_event, comment, cross_reference, issue

REPO = "example-org/example-llm"
DOCS_REPO = "vllm-project/vllm"
DOCS_REF = "v0.31.0"
DOCS_SHA = "3f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a"

SWAP_ERROR = "RuntimeError: swap_blocks: destination block table is frozen"
ENV_SECTION = """### Your current environment

<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
==============================
       PyTorch Info
==============================
PyTorch version              : 2.9.0+cu128
==============================
       CUDA / GPU Info
==============================
GPU models and configuration : GPU 0: NVIDIA L4
==============================
vLLM Info
==============================
vLLM Version                 : 0.31.0
```
</details>
"""


def populate(fake: FakeGitHub) -> None:
    fill(fake.repo(REPO))


def fill(r: FakeRepo) -> None:
    """The fixture issues: resolved ones (maintainer answer + merged PR, reporter-confirmed answer, closing
    commit), not planned, closed without an answer, open, a pull request, and one without the bug label."""
    body2 = (
        ENV_SECTION
        + "\n### 🐛 Describe the bug\n\nRunning `vllm serve example-org/tiny-chat-1b --swap-space 8` under load "
        "crashes after a few minutes:\n\n```\nERROR 01-05 10:00:00 engine.py:100] " + SWAP_ERROR + "\n```\n"
    )
    r.issues[2] = issue(
        REPO,
        2,
        f"[Bug]: server crashes with {SWAP_ERROR}",
        body2,
        state="closed",
        state_reason="completed",
        updated_at="2026-01-10T10:00:00Z",
        comments=2,
    )
    r.comments[2] = [
        comment(REPO, 2, 1001, "reporter", "Same crash with `--swap-space 4`."),
        comment(
            REPO,
            2,
            1002,
            "core-dev",
            "The block table is frozen while the fixture scheduler swaps a preempted request. Until the fix "
            "ships, start the server with `--fixture-preempt recompute`; the fix is in the linked PR.",
            association="MEMBER",
        ),
    ]
    r.timelines[2] = [
        cross_reference(REPO, 2050, "Unfreeze the block table before swapping", "2026-01-09T12:00:00Z"),
        closed_event(None),
    ]
    r.issues[3] = issue(
        REPO,
        3,
        "[Bug]: punch card input is not supported",
        "Please read my punch cards.",
        state="closed",
        state_reason="not_planned",
        updated_at="2026-01-11T10:00:00Z",
        comments=1,
    )
    r.comments[3] = [comment(REPO, 3, 1003, "core-dev", "Not planned.", association="MEMBER")]
    r.issues[4] = issue(
        REPO,
        4,
        "[Bug]: ImportError: libfixture.so.3: cannot open shared object file",
        "Importing the package fails:\n\n```\nImportError: libfixture.so.3: cannot open shared object "
        "file: No such file or directory\n```\n",
        state="closed",
        state_reason="completed",
        updated_at="2026-01-12T10:00:00Z",
        comments=2,
    )
    r.comments[4] = [
        comment(
            REPO,
            4,
            1004,
            "helper",
            "Install the runtime wheel that ships the library: `pip install example-fixture-runtime==2.1`.",
        ),
        comment(REPO, 4, 1005, "reporter", "Thanks, that fixed it!"),
    ]
    r.issues[5] = issue(
        REPO,
        5,
        "[Bug]: WARNING scheduler queue stalled for 30s with 8 concurrent streams",
        "With 8 streams the log shows `WARNING scheduler: queue stalled for 30s` and throughput drops.",
        updated_at="2026-01-13T10:00:00Z",
    )
    r.issues[6] = issue(
        REPO,
        6,
        "[Bug]: something odd",
        "It was odd, then it was not.",
        state="closed",
        state_reason="completed",
        updated_at="2026-01-14T10:00:00Z",
    )
    r.issues[7] = issue(
        REPO,
        7,
        "Fix the odd thing",
        "A pull request.",
        state="closed",
        state_reason=None,
        updated_at="2026-01-15T10:00:00Z",
        pull_request=True,
    )
    r.issues[8] = issue(
        REPO,
        8,
        "[Bug]: AssertionError: rope_fixture_theta must be positive",
        "Loading a config with `rope_fixture_theta: 0` fails with\n"
        "`AssertionError: rope_fixture_theta must be positive`.",
        state="closed",
        state_reason="completed",
        updated_at="2026-01-16T10:00:00Z",
    )
    r.timelines[8] = [closed_event("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", REPO)]
    r.issues[9] = issue(
        REPO,
        9,
        "[Docs]: typo in the README",
        "A typo.",
        state="open",
        updated_at="2026-01-17T10:00:00Z",
        labels=("documentation",),
    )


DOCS_FOLDERS = ("usage", "configuration")  # a part of the copy keeps each sync's embedding short


def docs_tarball(top: str, folders: tuple[str, ...] = DOCS_FOLDERS, files: dict[str, str] | None = None) -> bytes:
    """A tar.gz shaped like GitHub's tarball: `owner-repo-sha/` on top, the repository's docs/ inside (and `files`,
    {path under the top folder: text}, beside them)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path in sorted(p for f in folders for p in (VLLM_DOCS / "docs" / f).rglob("*.md")):
            tar.add(path, arcname=f"{top}/docs/{path.relative_to(VLLM_DOCS / 'docs').as_posix()}")
        for rel, text in {"README.md": "# vLLM\n", **(files or {})}.items():
            info = tarfile.TarInfo(f"{top}/{rel}")
            data = text.encode()
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def add_docs(fake: FakeGitHub) -> None:
    d = fake.repo(DOCS_REPO)
    d.refs[DOCS_REF] = DOCS_SHA
    d.tarballs[DOCS_SHA] = docs_tarball(f"vllm-project-vllm-{DOCS_SHA[:7]}")


def write_sources(path: Path, *, full_every_hours: float = 24.0, extra: str = "") -> Path:
    path.write_text(
        f"""sources:
  - name: issues
    kind: github_issues
    repo: {REPO}
    state: all
    labels: [bug]
    full_every_hours: {full_every_hours}
  - name: docs-{DOCS_REF}
    kind: docs
    repo: {DOCS_REPO}
    ref: {DOCS_REF}
{extra}""",
        encoding="utf-8",
    )
    return path


@pytest.fixture()
def fake_github():
    if not VLLM_DOCS.is_dir():
        pytest.fail(f"{VLLM_DOCS} is missing: the docs archive is built from it")
    with FakeGitHub() as fake:
        populate(fake)
        add_docs(fake)
        yield fake
