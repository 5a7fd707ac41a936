"""GitHub Discussions through the GraphQL API of the fake GitHub: answered ones become knowledge."""

from __future__ import annotations

from assistant.index.store import ChromaStore
from assistant.sync.runner import run_sync
from assistant.sync.sources import GitHubDiscussionsSource
from tests.conftest import make_settings
from tests.sync.fake_github import FakeGitHub, discussion

REPO = "example-org/example-llm"
WEB = f"https://github.com/{REPO}/discussions"


def _fill(fake: FakeGitHub) -> None:
    r = fake.repo(REPO)
    r.discussions = [
        discussion(
            REPO,
            31,
            "How do I stop `ValueError: fixture_batch must be even`?",
            "Serving with `--fixture-batch 3` fails:\n\n```\nValueError: fixture_batch must be even\n```",
            updated_at="2026-02-01T00:00:00Z",
            category="Q&A",
            answer=("Use an even value, e.g. `--fixture-batch 4`.", 501),
        ),
        discussion(
            REPO,
            32,
            "Ideas for the roadmap",
            "What next?",
            updated_at="2026-02-02T00:00:00Z",
            category="Ideas",
            answer=("Faster everything.", 502),
        ),
        discussion(REPO, 33, "Why is it slow?", "It is slow.", updated_at="2026-02-03T00:00:00Z", category="Q&A"),
    ]


def test_answered_discussions_are_indexed_with_their_answer(tmp_path, embedder):
    with FakeGitHub() as fake:
        _fill(fake)
        settings = make_settings(tmp_path / "i", github_api_url=fake.url, github_token="ghp_example")
        source = GitHubDiscussionsSource(kind="github_discussions", name="qa", repo=REPO, categories=["Q&A"])
        report = run_sync(settings, [source], embedder=lambda: embedder)
        assert report.ok and report.results[0].counts.added == 2
        chunks = {c.id: c for c in ChromaStore(settings).iter_chunks()}
        assert set(chunks) == {f"{WEB}/31", f"{WEB}/31#discussioncomment-501"}
        assert "--fixture-batch 4" in chunks[f"{WEB}/31#discussioncomment-501"].data["resolution"]
        fake.reset_counts()
        again = run_sync(settings, [source], embedder=lambda: embedder)
        assert again.ok and not again.wrote and fake.counts()["total"] == 1


def test_discussions_need_a_token_and_a_rate_limit_stops_cleanly(tmp_path, embedder):
    with FakeGitHub() as fake:
        _fill(fake)
        source = GitHubDiscussionsSource(kind="github_discussions", name="qa", repo=REPO)
        settings = make_settings(tmp_path / "i", github_api_url=fake.url, github_token=None)  # GITHUB_TOKEN ignored
        (result,) = run_sync(settings, [source], embedder=lambda: embedder).results
        assert result.status == "failed" and "needs a token: set GITHUB_TOKEN" in result.error
        fake.graphql_rate_limited = 1
        settings = settings.with_overrides(github_token="ghp_example")
        (result,) = run_sync(settings, [source], embedder=lambda: embedder, clock=lambda: 1_800_000_000.0).results
        assert result.status == "partial" and "retry after" in result.error
