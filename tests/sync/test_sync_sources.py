"""Sync with the fake GitHub and the docs archive into a real Chroma with the real model."""

from __future__ import annotations

import pytest

from assistant.index.store import ChromaStore
from assistant.service import Assistant
from assistant.sync.runner import run_sync, state_path
from assistant.sync.sources import load_sources
from assistant.sync.state import SyncState
from tests.conftest import make_settings
from tests.sync.conftest import DOCS_REF, REPO, SWAP_ERROR, add_docs, populate, write_sources
from tests.sync.fake_github import FakeGitHub, comment

ISSUE = f"https://github.com/{REPO}/issues"


def _sync(settings, sources, embedder, **kw):
    return run_sync(settings, sources, embedder=lambda: embedder, **kw)


@pytest.fixture(scope="module")
def synced(tmp_path_factory, embedder):
    """One fake GitHub and one index, synced once: the tests below read them (and sync again with no change)."""
    tmp = tmp_path_factory.mktemp("sync")
    with FakeGitHub() as fake:
        populate(fake)
        add_docs(fake)
        settings = make_settings(tmp / "index", github_api_url=fake.url, github_backoff=0.0)
        sources = load_sources(write_sources(tmp / "sources.yaml"))
        report = _sync(settings, sources, embedder)
        yield fake, settings, sources, report


def test_issues_and_versioned_docs_are_indexed(synced):
    _fake, settings, _sources, report = synced
    assert report.ok and report.generation
    by = {r.name: r for r in report.results}
    assert by["issues"].counts.added == 7  # #2, #4, #8: problem + resolution; #5 open: problem only
    assert by[f"docs-{DOCS_REF}"].counts.added > 50
    chunks = {c.id: c for c in ChromaStore(settings).iter_chunks()}
    assert {f"{ISSUE}/2", f"{ISSUE}/2#issuecomment-1002", f"{ISSUE}/4#issuecomment-1004", f"{ISSUE}/5"} <= set(chunks)
    assert not any(cid.startswith((f"{ISSUE}/3", f"{ISSUE}/6", f"{ISSUE}/9")) for cid in chunks)
    assert not any("/pull/7" in cid for cid in chunks)
    docs = [c for c in chunks.values() if c.kind == "doc"]
    assert all(c.source.startswith(f"https://docs.vllm.ai/en/{DOCS_REF}/") for c in docs)
    assert all(c.data["ref"] == DOCS_REF and c.data["version"] == "0.31.0" for c in docs)
    faq = [c for c in docs if c.data["path"] == "docs/usage/faq.md"]
    assert faq and faq[0].source.startswith("https://docs.vllm.ai/en/v0.31.0/usage/faq/")


def test_a_question_with_the_issues_error_is_answered_with_its_resolution(synced, embedder):
    _fake, settings, _sources, _report = synced
    answer = Assistant(settings, embedder=embedder).ask(f"vllm serve crashed: {SWAP_ERROR}")
    assert not answer.abstained
    sources = [c.source for c in answer.citations]
    assert f"{ISSUE}/2" in sources and f"{ISSUE}/2#issuecomment-1002" in sources
    assert "--fixture-preempt recompute" in answer.body
    assert "https://github.com/example-org/example-llm/pull/2050" in answer.body


def test_an_open_issue_is_cited_as_a_known_open_issue(synced, embedder):
    _fake, settings, _sources, _report = synced
    answer = Assistant(settings, embedder=embedder).ask("WARNING scheduler: queue stalled for 30s with 8 streams")
    assert answer.citations[0].source == f"{ISSUE}/5"
    assert "Known open issue" in answer.body and "no resolution recorded yet" in answer.body


def test_a_second_sync_with_nothing_changed_makes_only_conditional_requests_and_writes_nothing(synced, embedder):
    fake, settings, sources, _report = synced
    store = ChromaStore(settings)
    before = (store.name, store.revision(), store.hashes())
    fake.reset_counts()
    report = _sync(settings, sources, embedder)
    counts = fake.counts()
    assert counts["total"] == 2 and counts["conditional"] == 2 and counts["not_modified"] == 2  # issues + docs ref
    assert report.ok and not report.wrote and report.generation is None
    store = ChromaStore(settings)
    assert (store.name, store.revision(), store.hashes()) == before


def test_dry_run_says_what_would_change_and_writes_nothing(synced, embedder):
    fake, settings, sources, _report = synced
    fake.repos[REPO].issues[4]["updated_at"] = "2026-03-01T00:00:00Z"
    fake.repos[REPO].comments[4][0]["body"] += " Restart the server afterwards."
    before = ChromaStore(settings).hashes()
    report = _sync(settings, sources, embedder, dry_run=True)
    assert report.dry_run and report.results[0].counts.updated == 2  # problem (updated_at) and resolution
    assert ChromaStore(settings).hashes() == before
    assert SyncState.load(state_path(settings)).staging is None


@pytest.fixture()
def issues_only(tmp_path, fake_github):
    settings = make_settings(tmp_path / "index", github_api_url=fake_github.url, github_backoff=0.0)
    sources = [s for s in load_sources(write_sources(tmp_path / "s.yaml", full_every_hours=1.0)) if s.name == "issues"]
    return fake_github, settings, sources


def test_edits_reopenings_and_deletions_show_on_the_next_sync(issues_only, embedder):
    fake, settings, sources = issues_only
    clock = [1_800_000_000.0]
    _sync(settings, sources, embedder, clock=lambda: clock[0])
    repo = fake.repos[REPO]
    repo.issues[2]["title"] = "[Bug]: swap crash under load (edited)"
    repo.issues[2]["updated_at"] = "2026-02-01T00:00:00Z"
    repo.issues[4] |= {"state": "open", "state_reason": "reopened", "updated_at": "2026-02-02T00:00:00Z"}
    repo.comments[5] = [comment(REPO, 5, 2001, "core-dev", "Reproduced; looking into it.", association="MEMBER")]
    repo.issues[5] |= {"comments": 1, "updated_at": "2026-02-03T00:00:00Z"}
    report = _sync(settings, sources, embedder, clock=lambda: clock[0])
    chunks = {c.id: c for c in ChromaStore(settings).iter_chunks()}
    assert chunks[f"{ISSUE}/2"].title.endswith("(edited) (#2)")
    assert chunks[f"{ISSUE}/4"].data["status"] == "open" and f"{ISSUE}/4#issuecomment-1004" not in chunks
    assert report.results[0].counts.removed == 1
    del repo.issues[8]  # deleted: only a full listing notices
    clock[0] += 2 * 3600
    report = _sync(settings, sources, embedder, clock=lambda: clock[0])
    assert not any(cid.startswith(f"{ISSUE}/8") for cid in ChromaStore(settings).hashes())
    assert report.results[0].counts.removed == 2


def test_a_rate_limit_stops_cleanly_with_the_time_to_retry_and_the_next_run_resumes(issues_only, embedder):
    fake, settings, sources = issues_only
    fake.fail("page=3", 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1800003600"})
    report = _sync(settings, sources, embedder, clock=lambda: 1_800_000_000.0)
    (result,) = report.results
    assert result.status == "partial" and "retry after 2027-01-15 09:00:00 UTC" in result.error
    assert "the next sync resumes from 2026-01-13T10:00:00Z" in result.notes[-1]
    assert report.generation  # what was fetched before the limit is published
    state = SyncState.load(state_path(settings)).sources["issues"]
    assert state.cursor["full_since"] == "2026-01-13T10:00:00Z"  # the newest update applied (page 2 of 4)
    assert state.last_success is None and "retry after" in state.last_error
    ids = set(ChromaStore(settings).hashes())
    assert f"{ISSUE}/5" in ids and f"{ISSUE}/8" not in ids
    fake.reset_counts()
    report = _sync(settings, sources, embedder, clock=lambda: 1_800_003_700.0)
    assert report.ok and report.results[0].counts.added == 2  # #8: problem and resolution
    assert f"{ISSUE}/8" in set(ChromaStore(settings).hashes())
    listed = [r for r in fake.requests if r.path.endswith("/issues")]
    assert "since=2026-01-13T10%3A00%3A00Z" in listed[0].query  # resumed from the cursor, not from the start


def test_a_failing_source_keeps_what_it_had_and_the_others_still_sync(tmp_path, fake_github, embedder):
    settings = make_settings(tmp_path / "index", github_api_url=fake_github.url, github_backoff=0.0)
    sources = [s for s in load_sources(write_sources(tmp_path / "s.yaml")) if s.name == "issues"]
    _sync(settings, sources, embedder)
    before = ChromaStore(settings).hashes()
    fake_github.repos[REPO].issues[2]["updated_at"] = "2026-04-01T00:00:00Z"
    fake_github.fail("/issues", 502, times=100)
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "x.yaml").write_text(
        "id: sync-test-entry\ntitle: {en: A test entry}\nroot_cause: {en: A cause.}\nfix: {en: A fix.}\n"
        "source: tests\n",
        encoding="utf-8",
    )
    from assistant.sync.sources import EntriesSource

    folder = EntriesSource(kind="entries", name="local", path=entries)
    report = _sync(settings, [*sources, folder], embedder)
    status = {r.name: r.status for r in report.results}
    assert status == {"issues": "failed", "local": "ok"}
    after = ChromaStore(settings).hashes()
    assert {k: v for k, v in after.items() if k != "sync-test-entry"} == before
    state = SyncState.load(state_path(settings))
    assert state.sources["issues"].last_error and state.sources["local"].last_success


def test_a_user_on_a_synced_release_is_answered_from_that_releases_docs(tmp_path, embedder):
    from tests.sync.conftest import DOCS_REPO, docs_tarball

    with FakeGitHub() as fake:
        docs = fake.repo(DOCS_REPO)
        for ref, sha in (("v0.30.0", "a" * 40), ("v0.31.0", "b" * 40)):
            docs.refs[ref] = sha
            docs.tarballs[sha] = docs_tarball(f"vllm-project-vllm-{sha[:7]}", folders=("usage",))
        (tmp_path / "s.yaml").write_text(
            "sources:\n"
            + "".join(
                f"  - {{name: docs-{r}, kind: docs, repo: {DOCS_REPO}, ref: {r}}}\n" for r in ("v0.30.0", "v0.31.0")
            ),
            encoding="utf-8",
        )
        settings = make_settings(tmp_path / "index", github_api_url=fake.url)
        assert _sync(settings, load_sources(tmp_path / "s.yaml"), embedder).ok
    assistant = Assistant(settings, embedder=embedder)
    question = "vllm {} hangs at startup, how do I get more logging to debug the hang?"
    for version, expected in (("0.30.0", "v0.30.0"), ("v0.31.0", "v0.31.0"), ("0.31", "v0.31.0")):
        answer = assistant.ask(question.format(version))
        cited = [c.source for c in answer.citations if "docs.vllm.ai" in c.source]
        assert cited and all(f"/en/{expected}/" in s for s in cited), (version, cited)
        assert all(f"/en/{expected}/" in h.chunk.source for h in answer.hits if h.chunk.kind == "doc")
