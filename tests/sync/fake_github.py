"""A local HTTP server standing in for GitHub's REST API, with GitHub's response shapes.

Serves a repository's issues (sorted by update, `since`, `labels`, `state`, `Link` pagination,
ETag / If-None-Match -> 304), issue comments, issue timelines (cross-referenced pull requests,
closing commits), a ref's commit and the repository tarball (302 to a codeload URL, like GitHub).
Failures are scripted: a rate-limit 403 with its headers, or a 502. Every request is recorded, with
whether it was conditional, so tests can count them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from tests.helpers.server import LoopbackHTTP

WEB = "https://github.com"


@dataclass
class Request:
    path: str
    query: str
    conditional: bool
    status: int


@dataclass
class Failure:
    path_part: str  # injected into the first requests whose path and query contain this
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    times: int = 1


@dataclass
class FakeRepo:
    owner: str
    name: str
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    timelines: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # ref -> commit sha
    tarballs: dict[str, bytes] = field(default_factory=dict)  # sha -> tar.gz bytes
    discussions: list[dict[str, Any]] = field(default_factory=list)  # GraphQL Discussion nodes

    @property
    def full(self) -> str:
        return f"{self.owner}/{self.name}"


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client killed while its request was held (tests/sync/test_sync_kill.py) is expected, not an error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeGitHub(LoopbackHTTP):
    def __init__(self, page_size: int = 2):
        self.page_size = page_size  # GitHub caps per_page at 100; a small cap exercises pagination
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[Request] = []
        self.failures: list[Failure] = []
        self.holds: dict[str, tuple[threading.Event, threading.Event]] = {}  # path part -> (arrived, release)
        self._nth: tuple[int, threading.Event, threading.Event] | None = None  # see hold_request
        self._seen = 0  # requests routed so far (held or not)
        self.graphql_rate_limited = 0  # answer this many GraphQL queries with a RATE_LIMITED error
        self._lock = threading.Lock()
        super().__init__(self._handler(), _Server)

    @property
    def url(self) -> str:
        return self.root

    # ---- content
    def repo(self, full: str) -> FakeRepo:
        owner, name = full.split("/")
        return self.repos.setdefault(full, FakeRepo(owner, name))

    def fail(self, path_part: str, status: int, headers: dict[str, str] | None = None, times: int = 1) -> None:
        body = {
            "message": "API rate limit exceeded" if status in (403, 429) else "Server Error",
            "documentation_url": "https://docs.github.com/rest",
        }
        with self._lock:
            self.failures.append(Failure(path_part, status, headers or {}, body, times))

    def hold(self, path_part: str) -> tuple[threading.Event, threading.Event]:
        """Hold requests whose path contains `path_part` until `release` is set; `arrived` tells one came."""
        events = (threading.Event(), threading.Event())
        self.holds[path_part] = events
        return events

    def hold_request(self, n: int) -> tuple[threading.Event, threading.Event]:
        """Hold the `n`-th GET request from now (1-based) until `release` is set; `arrived` tells it came. A client
        blocked there cannot move on, so a test can act (kill it) at exactly that point."""
        events = (threading.Event(), threading.Event())
        with self._lock:
            self._nth, self._seen = (n, *events), 0
        return events

    def counts(self) -> dict[str, int]:
        with self._lock:
            reqs = list(self.requests)
        return {
            "total": len(reqs),
            "conditional": sum(r.conditional for r in reqs),
            "not_modified": sum(r.status == 304 for r in reqs),
            "unconditional": sum(not r.conditional for r in reqs),
        }

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()

    # ---- HTTP
    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                parsed = urlparse(self.path)
                conditional = "If-None-Match" in self.headers
                status, headers, body = fake._route(parsed.path, parse_qs(parsed.query), self.headers, self.path)
                with fake._lock:
                    fake.requests.append(Request(parsed.path, parsed.query, conditional, status))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                payload = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else b"")
                if status != 304:
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(payload)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status, headers, body = fake._graphql(self.path, json.loads(raw or b"{}"), self.headers)
                with fake._lock:
                    fake.requests.append(Request(self.path, "", False, status))
                payload = json.dumps(body).encode()
                self.send_response(status)
                for k, v in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def _graphql(self, path: str, request: dict[str, Any], headers) -> tuple[int, dict[str, str], Any]:
        """Answers the repository.discussions query like GitHub's GraphQL API (newest update first, cursors)."""
        if path != "/graphql":
            return 404, {}, {"message": "Not Found"}
        if not headers.get("Authorization"):
            return 401, {}, {"message": "This endpoint requires you to be authenticated."}
        if self.graphql_rate_limited > 0:
            self.graphql_rate_limited -= 1
            limit = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1800003600", "X-RateLimit-Resource": "graphql"}
            return 200, limit, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded."}]}
        v = request.get("variables") or {}
        repo = self.repos.get(f"{v.get('owner')}/{v.get('name')}")
        if repo is None:
            return 200, {}, {"data": {"repository": None}, "errors": [{"type": "NOT_FOUND", "message": "not found"}]}
        nodes = sorted(repo.discussions, key=lambda d: d["updatedAt"], reverse=True)
        start = int(v["after"].removeprefix("cursor:")) if v.get("after") else 0
        first = min(int(v.get("first", 50)), self.page_size)
        page = copy.deepcopy(nodes[start : start + first])
        info = {"hasNextPage": start + first < len(nodes), "endCursor": f"cursor:{start + len(page)}"}
        return 200, {}, {"data": {"repository": {"discussions": {"pageInfo": info, "nodes": page}}}}

    def _injected(self, path: str):
        with self._lock:
            for f in self.failures:
                if f.times > 0 and f.path_part in path:
                    f.times -= 1
                    return f.status, {"Content-Type": "application/json", **f.headers}, f.body
        return None

    def _route(self, path: str, query: dict[str, list[str]], headers, raw: str) -> tuple[int, dict[str, str], Any]:
        with self._lock:
            self._seen += 1
            nth = self._nth if self._nth is not None and self._nth[0] == self._seen else None
        if nth is not None:
            nth[1].set()
            nth[2].wait(timeout=120)
        for part, (arrived, release) in list(self.holds.items()):
            if part in raw:
                arrived.set()
                release.wait(timeout=120)
        failure = self._injected(raw)
        if failure:
            return failure
        parts = path.strip("/").split("/")
        if parts[0] == "codeload" and len(parts) == 5:  # /codeload/owner/repo/legacy.tar.gz/sha
            repo = self.repos.get(f"{parts[1]}/{parts[2]}")
            blob = repo.tarballs.get(parts[4]) if repo else None
            if blob is None:
                return 404, {}, {"message": "Not Found"}
            return 200, {"Content-Type": "application/x-gzip"}, blob
        if len(parts) < 4 or parts[0] != "repos" or f"{parts[1]}/{parts[2]}" not in self.repos:
            return 404, {"Content-Type": "application/json"}, {"message": "Not Found"}
        repo = self.repos[f"{parts[1]}/{parts[2]}"]
        rest = parts[3:]
        if rest == ["issues"]:
            return self._listing(repo, path, query, headers)
        if len(rest) == 3 and rest[0] == "issues" and rest[2] in ("comments", "timeline"):
            number = int(rest[1])
            items = (repo.comments if rest[2] == "comments" else repo.timelines).get(number, [])
            return self._paged(path, query, headers, copy.deepcopy(items))
        if len(rest) == 2 and rest[0] == "commits":
            sha = repo.refs.get(rest[1])
            if sha is None:
                return 404, {"Content-Type": "application/json"}, {"message": "No commit found for SHA: " + rest[1]}
            body = {
                "sha": sha,
                "url": f"{self.url}/repos/{repo.full}/commits/{sha}",
                "html_url": f"{WEB}/{repo.full}/commit/{sha}",
                "commit": {"message": "docs"},
            }
            return self._with_etag(200, {}, body, headers)
        if len(rest) == 2 and rest[0] == "tarball":
            ref = rest[1]
            sha = repo.refs.get(ref, ref)
            return 302, {"Location": f"{self.url}/codeload/{repo.full}/legacy.tar.gz/{sha}"}, None
        return 404, {"Content-Type": "application/json"}, {"message": "Not Found"}

    def _with_etag(self, status: int, extra: dict[str, str], body: Any, headers) -> tuple[int, dict[str, str], Any]:
        etag = 'W/"' + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:32] + '"'
        out = {
            "Content-Type": "application/json; charset=utf-8",
            "ETag": etag,
            **extra,
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
        }
        if headers.get("If-None-Match") == etag:
            return 304, {"ETag": etag}, None
        return status, out, body

    def _paged(self, path: str, query: dict[str, list[str]], headers, items: list) -> tuple[int, dict[str, str], Any]:
        per_page = min(int(query.get("per_page", ["30"])[0]), self.page_size)
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(items) // per_page))
        body = items[(page - 1) * per_page : page * per_page]
        links = []
        flat = {k: v[0] for k, v in query.items()}
        if page < last:
            links.append(f'<{self.url}{path}?{urlencode({**flat, "page": page + 1})}>; rel="next"')
            links.append(f'<{self.url}{path}?{urlencode({**flat, "page": last})}>; rel="last"')
        if page > 1:
            links.insert(0, f'<{self.url}{path}?{urlencode({**flat, "page": page - 1})}>; rel="prev"')
            links.append(f'<{self.url}{path}?{urlencode({**flat, "page": 1})}>; rel="first"')
        return self._with_etag(200, {"Link": ", ".join(links)} if links else {}, body, headers)

    def _listing(self, repo: FakeRepo, path: str, query: dict[str, list[str]], headers):
        state = query.get("state", ["open"])[0]
        since = query.get("since", [None])[0]
        labels = [x for x in query.get("labels", [""])[0].split(",") if x]
        items = []
        for issue in repo.issues.values():
            if state != "all" and issue["state"] != state:
                continue
            if since and issue["updated_at"] < since:
                continue
            names = {label["name"] for label in issue["labels"]}
            if any(label not in names for label in labels):
                continue
            items.append(copy.deepcopy(issue))
        reverse = query.get("direction", ["desc"])[0] == "desc"
        items.sort(key=lambda i: (i["updated_at"], i["number"]), reverse=reverse)
        return self._paged(path, query, headers, items)


# ---- GitHub-shaped objects
def user(login: str, uid: int = 1) -> dict[str, Any]:
    return {
        "login": login,
        "id": uid,
        "node_id": f"U_{uid}",
        "type": "User",
        "site_admin": False,
        "html_url": f"{WEB}/{login}",
    }


def issue(
    repo: str,
    number: int,
    title: str,
    body: str,
    *,
    state: str = "open",
    state_reason: str | None = None,
    updated_at: str,
    author: str = "reporter",
    labels: tuple[str, ...] = ("bug",),
    comments: int = 0,
    pull_request: bool = False,
) -> dict[str, Any]:
    api = f"https://api.github.com/repos/{repo}/issues/{number}"
    out = {
        "url": api,
        "repository_url": f"https://api.github.com/repos/{repo}",
        "comments_url": f"{api}/comments",
        "timeline_url": f"{api}/timeline",
        "html_url": f"{WEB}/{repo}/{'pull' if pull_request else 'issues'}/{number}",
        "id": 900000 + number,
        "node_id": f"I_{number}",
        "number": number,
        "title": title,
        "user": user(author),
        "labels": [{"id": i, "name": n, "color": "d73a4a", "default": False} for i, n in enumerate(labels)],
        "state": state,
        "state_reason": state_reason,
        "locked": False,
        "comments": comments,
        "created_at": "2026-01-05T10:00:00Z",
        "updated_at": updated_at,
        "closed_at": updated_at if state == "closed" else None,
        "author_association": "NONE",
        "body": body,
        "reactions": {"total_count": 0, "+1": 0, "-1": 0},
    }
    if pull_request:
        out["pull_request"] = {
            "url": api.replace("/issues/", "/pulls/"),
            "html_url": out["html_url"],
            "merged_at": updated_at,
        }
    return out


def comment(
    repo: str, number: int, cid: int, login: str, body: str, association: str = "NONE", at: str = "2026-01-06T10:00:00Z"
) -> dict[str, Any]:
    return {
        "url": f"https://api.github.com/repos/{repo}/issues/comments/{cid}",
        "html_url": f"{WEB}/{repo}/issues/{number}#issuecomment-{cid}",
        "issue_url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "id": cid,
        "node_id": f"IC_{cid}",
        "user": user(login, cid),
        "created_at": at,
        "updated_at": at,
        "author_association": association,
        "body": body,
        "reactions": {"total_count": 0},
    }


def cross_reference(repo: str, pr_number: int, title: str, merged_at: str | None) -> dict[str, Any]:
    return {
        "event": "cross-referenced",
        "actor": user("maintainer", 7),
        "created_at": merged_at or "2026-01-07T10:00:00Z",
        "updated_at": merged_at or "2026-01-07T10:00:00Z",
        "source": {
            "type": "issue",
            "issue": {
                "number": pr_number,
                "title": title,
                "state": "closed" if merged_at else "open",
                "html_url": f"{WEB}/{repo}/pull/{pr_number}",
                "pull_request": {
                    "url": f"https://api.github.com/repos/{repo}/pulls/{pr_number}",
                    "html_url": f"{WEB}/{repo}/pull/{pr_number}",
                    "merged_at": merged_at,
                },
            },
        },
    }


def closed_event(commit_sha: str | None = None, repo: str = "") -> dict[str, Any]:
    return {
        "event": "closed",
        "actor": user("maintainer", 7),
        "commit_id": commit_sha,
        "commit_url": f"https://api.github.com/repos/{repo}/commits/{commit_sha}" if commit_sha else None,
        "created_at": "2026-01-08T10:00:00Z",
        "state_reason": "completed",
    }


def discussion(
    repo: str,
    number: int,
    title: str,
    body: str,
    *,
    updated_at: str,
    category: str,
    answer: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """A GraphQL Discussion node as the discussions query selects it."""
    url = f"{WEB}/{repo}/discussions/{number}"
    return {
        "number": number,
        "title": title,
        "url": url,
        "body": body,
        "updatedAt": updated_at,
        "closed": False,
        "isAnswered": answer is not None,
        "category": {"name": category},
        "labels": {"nodes": []},
        "answer": {"url": f"{url}#discussioncomment-{answer[1]}", "body": answer[0], "author": {"login": "core-dev"}}
        if answer
        else None,
    }
