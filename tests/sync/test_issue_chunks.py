"""Which issues are answer material and what their chunks say (pure: GitHub-shaped dicts in, chunks out)."""

from assistant.sync.issues import environment, issue_chunks, resolve
from tests.sync.conftest import ENV_SECTION, REPO, SWAP_ERROR, fill
from tests.sync.fake_github import FakeRepo, closed_event, comment, cross_reference, issue


def _fixture(number: int):
    r = FakeRepo(*REPO.split("/"))
    fill(r)
    return r.issues[number], r.comments.get(number, []), r.timelines.get(number, [])


def test_environment_comes_from_the_bug_templates_collect_env_section():
    env = environment(ENV_SECTION + "\n`vllm serve example-org/tiny-chat-1b --swap-space 8`")
    assert (env.vllm_version, env.gpu, env.model) == ("0.31.0", "NVIDIA L4", "example-org/tiny-chat-1b")
    assert environment("nothing here") == environment("")


def test_a_closed_issue_with_a_merged_pr_and_a_maintainer_answer_is_resolved_by_both():
    i, comments, timeline = _fixture(2)
    res = resolve(i, comments, timeline)
    assert res.status == "resolved"
    assert res.comment["id"] == 1002  # the maintainer's, not the reporter's "same here"
    assert res.fix_prs == (f"https://github.com/{REPO}/pull/2050",)
    problem, resolution = issue_chunks(REPO, i, res, f"github:{REPO}#2")
    assert problem.id == problem.source == f"https://github.com/{REPO}/issues/2"
    assert SWAP_ERROR in problem.data["problem"] and "vLLM version: 0.31.0" in problem.data["problem"]
    assert resolution.source == f"https://github.com/{REPO}/issues/2#issuecomment-1002"
    assert "--fixture-preempt recompute" in resolution.data["resolution"]
    assert "Fixed by https://github.com/example-org/example-llm/pull/2050" in resolution.data["resolution"]
    assert {c.origin for c in (problem, resolution)} == {f"github:{REPO}#2"}


def test_the_comment_the_reporter_confirmed_is_the_answer():
    i, comments, timeline = _fixture(4)
    res = resolve(i, comments, timeline)
    assert res.status == "resolved" and res.comment["id"] == 1004


def test_a_closing_commit_is_a_linked_fix():
    i, comments, timeline = _fixture(8)
    res = resolve(i, comments, timeline)
    assert res.status == "resolved" and res.commit and not res.comment
    chunks = issue_chunks(REPO, i, res, "o")
    assert chunks[1].id == f"https://github.com/{REPO}/issues/8#resolution"  # a commit may close several issues


def test_not_planned_and_unanswered_closed_issues_are_not_answer_material():
    for number, reason in ((3, "not_planned"), (6, "without a linked fix")):
        i, comments, timeline = _fixture(number)
        res = resolve(i, comments, timeline)
        assert res.status == "skip" and reason in res.reason
        assert issue_chunks(REPO, i, res, "o") == []


def test_an_open_issue_is_a_known_open_issue_without_a_resolution():
    i, comments, timeline = _fixture(5)
    (chunk,) = issue_chunks(REPO, i, resolve(i, comments, timeline), "o")
    assert chunk.data["status"] == "open" and "resolution" not in chunk.data


def test_an_unmerged_pr_is_not_a_fix():
    i = issue(REPO, 40, "t", "b", state="closed", state_reason="completed", updated_at="2026-01-01T00:00:00Z")
    timeline = [cross_reference(REPO, 41, "attempt", None), closed_event(None)]
    assert resolve(i, [], timeline).status == "skip"
    answer = comment(REPO, 40, 5, "someone", "try this", association="CONTRIBUTOR")
    assert resolve(i, [answer], timeline).status == "skip"  # neither a maintainer nor confirmed
