"""GitHub Discussions as knowledge: answered discussions, through the GraphQL API (REST has none).

An answered discussion becomes the same two chunks as a resolved issue: the problem (title, error
lines, setup) citing the discussion, and the resolution citing the chosen answer. Unanswered ones are
not answer material. Listing runs newest update first and stops at the stored `since` cursor; a full
listing every `full_every_hours` notices deleted discussions. GraphQL needs a token.
"""

from __future__ import annotations

from typing import Any

from assistant.errors import RateLimited, SyncError
from assistant.sync.context import SyncContext
from assistant.sync.issues import Resolution, issue_chunks
from assistant.sync.sources import GitHubDiscussionsSource

QUERY = """
query($owner: String!, $name: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    discussions(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      pageInfo { hasNextPage endCursor }
      nodes {
        number title url body updatedAt closed isAnswered
        category { name }
        labels(first: 20) { nodes { name } }
        answer { url body author { login } }
      }
    }
  }
}
"""


def origin_prefix(source: GitHubDiscussionsSource) -> str:
    return f"github-discussions:{source.repo}#"


def discussion_chunks(repo: str, node: dict[str, Any], origin: str) -> list:
    """An answered discussion as a resolved issue: its chosen answer is the resolution."""
    answer = node.get("answer")
    if not node.get("isAnswered") or not answer:
        return []
    as_issue = {
        "number": node["number"],
        "html_url": node["url"],
        "title": node["title"],
        "body": node.get("body") or "",
        "state": "closed" if node.get("closed") else "open",
        "state_reason": None,
        "updated_at": node["updatedAt"],
        "closed_at": None,
        "labels": [label["name"] for label in (node.get("labels") or {}).get("nodes") or []],
    }
    comment = {"body": answer.get("body") or "", "html_url": answer["url"]}
    return issue_chunks(repo, as_issue, Resolution("resolved", comment=comment), origin)


def _wanted(source: GitHubDiscussionsSource, node: dict[str, Any]) -> bool:
    category = (node.get("category") or {}).get("name")
    return not source.categories or category in source.categories


def sync_discussions(source: GitHubDiscussionsSource, ctx: SyncContext) -> None:
    if not ctx.settings.github_token:
        raise SyncError(f"{source.name}: GitHub's GraphQL API (discussions) needs a token: set GITHUB_TOKEN")
    client = ctx.github()
    cursor = ctx.cursor()
    seen: dict[str, str] = dict(cursor.get("seen") or {})
    now = ctx.clock()
    full = cursor.get("full_at") is None or now - cursor["full_at"] > source.full_every_hours * 3600
    since = None if full else cursor.get("since")
    owner, name = source.repo.split("/")
    listed: set[str] = set()
    newest = cursor.get("since")
    after = None
    try:
        while True:
            data = client.graphql(QUERY, {"owner": owner, "name": name, "first": 50, "after": after})
            repo = (data.get("repository") or {}) if isinstance(data, dict) else {}
            if not repo:
                raise SyncError(f"{source.name}: GitHub has no repository {source.repo} (or the token cannot read it)")
            page = repo["discussions"]
            stop = False
            for node in page["nodes"]:
                if since and node["updatedAt"] < since:
                    stop = True
                    break
                key = str(node["number"])
                newest = max(newest or node["updatedAt"], node["updatedAt"])
                if not _wanted(source, node):
                    continue
                listed.add(key)
                if seen.get(key) == node["updatedAt"]:
                    continue
                ctx.apply(
                    {
                        f"{origin_prefix(source)}{key}": discussion_chunks(
                            source.repo, node, f"{origin_prefix(source)}{key}"
                        )
                    }
                )
                seen[key] = node["updatedAt"]
                ctx.checkpoint({**cursor, "seen": seen})
            if stop or not page["pageInfo"]["hasNextPage"]:
                break
            after = page["pageInfo"]["endCursor"]
            ctx.say(f"{len(listed)} discussions listed")
    except RateLimited as exc:
        ctx.notes.append(f"stopped: {exc}; the next sync goes on from where it stopped")
        raise
    finally:
        client.close()
    if full:
        gone = [k for k in seen if k not in listed]
        ctx.remove({f"{origin_prefix(source)}{k}" for k in gone})
        for k in gone:
            del seen[k]
    ctx.checkpoint({"since": newest, "seen": seen, "full_at": now if full else cursor.get("full_at")})
