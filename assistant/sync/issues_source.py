"""Syncing a repository's issues: a `since` cursor over the listing sorted by update time, ETags, resume.

The listing is walked oldest update first; after each page the cursor moves to the newest update
applied, so a killed or rate-limited run resumes where it stopped. When a listing brings nothing new
its ETag is kept: the next run asks with `If-None-Match` and a 304 ends it without another request.
A full listing every `full_every_hours` notices issues deleted, transferred or filtered out.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from assistant.errors import RateLimited
from assistant.sync.context import SyncContext
from assistant.sync.github import GitHubClient, when
from assistant.sync.issues import IssueCursor, issue_chunks, resolve
from assistant.sync.sources import GitHubIssuesSource


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def origin_prefix(source: GitHubIssuesSource) -> str:
    return f"github:{source.repo}#"


class IssueSync:
    def __init__(self, source: GitHubIssuesSource, ctx: SyncContext, client: GitHubClient):
        self.source = source
        self.ctx = ctx
        self.client = client
        self.cursor = IssueCursor.from_dict(ctx.cursor())

    def _params(self, since: str | None) -> dict[str, Any]:
        params: dict[str, Any] = {"state": self.source.state, "sort": "updated", "direction": "asc", "per_page": 100}
        floor = _iso(self.ctx.clock() - self.source.max_age_days * 86400) if self.source.max_age_days else None
        since = max(s for s in (since, floor) if s) if (since or floor) else None
        if since:
            params["since"] = since
        if self.source.labels:
            params["labels"] = ",".join(self.source.labels)
        return params

    def _fetch_one(self, issue: dict[str, Any]) -> list:
        number = issue["number"]
        base = f"repos/{self.source.repo}/issues/{number}"
        comments = list(self.client.all_pages(f"{base}/comments", {"per_page": 100})) if issue.get("comments") else []
        timeline = (
            list(self.client.all_pages(f"{base}/timeline", {"per_page": 100})) if issue["state"] == "closed" else []
        )
        origin = f"{origin_prefix(self.source)}{number}"
        return issue_chunks(self.source.repo, issue, resolve(issue, comments, timeline), origin)

    def _listing(self, since: str | None, etag: str | None, full: bool, listed: set[str]) -> tuple[bool, str | None]:
        """Walk one listing from `since`; (whether anything new was applied, the first page's ETag)."""
        page = self.client.page(f"repos/{self.source.repo}/issues", self._params(since), etag)
        if page.status == 304:
            return False, etag
        first_etag = page.etag
        changed = False
        while True:
            items = [i for i in page.data if "pull_request" not in i]  # the issues API lists pull requests too
            for issue in items:
                key = str(issue["number"])
                listed.add(key)
                if self.cursor.seen.get(key) == issue["updated_at"]:
                    continue  # the boundary of the previous listing, or unchanged (full listing)
                self.ctx.apply({f"{origin_prefix(self.source)}{key}": self._fetch_one(issue)})
                self.cursor.seen[key] = issue["updated_at"]
                changed = True
            if items:
                newest = max(i["updated_at"] for i in items)
                if full:  # a full listing resumes from here too, remembering what it listed
                    self.cursor.full_since = max(self.cursor.full_since or newest, newest)
                    self.cursor.full_listed = sorted(listed, key=int)
                else:
                    self.cursor.since = max(self.cursor.since or newest, newest)
            self.ctx.checkpoint(self.cursor.as_dict())
            self.ctx.say(f"{len(listed)} issues listed")
            if not page.next_url:
                return changed, first_etag
            page = self.client.page(page.next_url)

    def run(self) -> None:
        now = self.ctx.clock()
        full = self.cursor.full_at is None or now - self.cursor.full_at > self.source.full_every_hours * 3600
        try:
            if full or self.cursor.full_listed is not None:
                listed = set(self.cursor.full_listed or ())
                self._listing(self.cursor.full_since, None, True, listed)
                gone = [k for k in self.cursor.seen if k not in listed]
                self.ctx.remove({f"{origin_prefix(self.source)}{k}" for k in gone})
                for k in gone:
                    del self.cursor.seen[k]
                self.cursor.since = max(self.cursor.seen.values(), default=None)
                self.cursor.etag = None
                self.cursor.full_at = now
                self.cursor.full_since, self.cursor.full_listed = None, None
                self.ctx.checkpoint(self.cursor.as_dict())
            # Incremental listings until one brings nothing new; its ETag makes the next run a 304.
            while True:
                since = self.cursor.since
                changed, etag = self._listing(since, self.cursor.etag, False, set())
                if not changed and self.cursor.since == since:
                    self.cursor.etag = etag
                    self.ctx.checkpoint(self.cursor.as_dict())
                    return
                self.cursor.etag = None
        except RateLimited as exc:
            resume = self.cursor.full_since if self.cursor.full_listed is not None else self.cursor.since
            self.ctx.notes.append(f"stopped: {exc}; the next sync resumes from {resume or 'the start'}")
            self.ctx.source_state.last_error = str(exc)
            raise


def sync_issues(source: GitHubIssuesSource, ctx: SyncContext) -> None:
    client = ctx.github()
    try:
        IssueSync(source, ctx, client).run()
    finally:
        client.close()


__all__ = ["sync_issues", "when"]
