"""GitHub issues as knowledge (pure): which ones have a resolution, and the chunks they become.

Answer material is an issue closed as completed with a linked fix (a merged pull request that
references it, or a closing commit) or a comment recognised as the answer (the one the reporter
confirmed, else the last maintainer comment). Open issues become a "known open issue" chunk with
their status. Anything else (closed as not planned, closed without an answer) is not indexed.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from assistant.models import Chunk
from assistant.text.signals import extract_signals

_MAINTAINERS = {"OWNER", "MEMBER", "COLLABORATOR"}
_CONFIRMS = re.compile(
    r"\b(?:(?:that|this|it)\s+(?:fixed|fixes|solved|solves|resolved|worked|works)|works now|fixed it|"
    r"solved it|problem solved|issue resolved|confirmed (?:fixed|working))\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"^\s*vLLM Version\s*:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
_GPU_LINE = re.compile(r"^\s*GPU models and configuration\s*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_GPU_N = re.compile(r"^\s*GPU \d+\s*:\s*(.+?)\s*$", re.MULTILINE)
_MODEL = re.compile(
    r"(?:vllm serve|--model(?:=|\s+)|\bmodel\s*=\s*['\"])\s*([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)", re.IGNORECASE
)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_MAX_PROBLEM = 2500
_MAX_RESOLUTION = 2500


@dataclass(frozen=True)
class Environment:
    vllm_version: str | None = None
    gpu: str | None = None
    model: str | None = None

    def lines(self) -> list[str]:
        out = []
        if self.vllm_version:
            out.append(f"vLLM version: {self.vllm_version}")
        if self.gpu:
            out.append(f"GPU: {self.gpu}")
        if self.model:
            out.append(f"Model: {self.model}")
        return out


@dataclass(frozen=True)
class Resolution:
    status: str  # "resolved", "open", or "skip" (not answer material)
    comment: dict[str, Any] | None = None  # the answering comment
    fix_prs: tuple[str, ...] = ()  # html URLs of merged pull requests that reference the issue
    commit: str | None = None  # html URL of the closing commit
    reason: str = ""


def environment(body: str) -> Environment:
    """vLLM version, GPU and model from the bug template's environment section (collect_env output)."""
    version = _VERSION.search(body)
    gpu = None
    line = _GPU_LINE.search(body)
    if line:
        gpu = line.group(1).strip() or None
        if not gpu or gpu.lower().startswith("gpu 0"):
            first = _GPU_N.search(body, line.end() if not gpu else line.start())
            gpu = (first.group(1) if first else gpu) or None
        if gpu and gpu.lower().startswith("gpu 0:"):
            gpu = gpu.split(":", 1)[1].strip()
    if gpu is None:
        found = extract_signals(body).gpus
        gpu = found[0] if found else None
    model = _MODEL.search(body)
    return Environment(version.group(1) if version else None, gpu, model.group(1) if model else None)


def error_lines(text: str) -> list[str]:
    return list(extract_signals(text).messages)


def _clean(text: str | None) -> str:
    return _HTML_COMMENT.sub("", text or "").replace("\r\n", "\n").strip()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def linked_fixes(timeline: list[dict[str, Any]]) -> tuple[tuple[str, ...], str | None]:
    """Merged pull requests that cross-reference the issue, and the commit that closed it."""
    prs: list[str] = []
    commit = None
    for event in timeline:
        kind = event.get("event")
        if kind == "cross-referenced":
            issue = (event.get("source") or {}).get("issue") or {}
            pr = issue.get("pull_request") or {}
            if pr.get("merged_at") and issue.get("html_url"):
                prs.append(issue["html_url"])
        elif kind == "closed" and event.get("commit_id"):
            commit = event.get("commit_url") or event["commit_id"]
    return tuple(dict.fromkeys(prs)), commit


def answering_comment(issue: dict[str, Any], comments: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The comment the reporter confirmed ("that fixed it"), else the last maintainer comment."""
    reporter = (issue.get("user") or {}).get("login")
    for i, comment in enumerate(comments):
        if (comment.get("user") or {}).get("login") == reporter and _CONFIRMS.search(comment.get("body") or ""):
            for earlier in reversed(comments[:i]):
                if (earlier.get("user") or {}).get("login") != reporter:
                    return earlier
    for comment in reversed(comments):
        if (comment.get("user") or {}).get("login") != reporter and comment.get("author_association") in _MAINTAINERS:
            return comment
    return None


def resolve(issue: dict[str, Any], comments: list[dict[str, Any]], timeline: list[dict[str, Any]]) -> Resolution:
    if issue.get("state") == "open":
        return Resolution("open", reason="open")
    if issue.get("state_reason") not in (None, "completed"):
        return Resolution("skip", reason=f"closed as {issue.get('state_reason')}")
    prs, commit = linked_fixes(timeline)
    comment = answering_comment(issue, comments)
    if not (prs or commit or comment):
        return Resolution("skip", reason="closed without a linked fix or an answering comment")
    return Resolution("resolved", comment, prs, commit)


def issue_chunks(repo: str, issue: dict[str, Any], resolution: Resolution, origin: str) -> list[Chunk]:
    """The problem chunk (title, error lines, setup) and, for a resolved issue, the resolution chunk."""
    if resolution.status == "skip":
        return []
    number = issue["number"]
    url = issue["html_url"]
    title = f"{issue['title']} (#{number})"
    body = _clean(issue.get("body"))
    env = environment(body)
    errors = error_lines(f"{issue['title']}\n{body}")
    labels = [label["name"] if isinstance(label, dict) else str(label) for label in issue.get("labels") or []]
    problem = "\n".join([*errors[:5], *env.lines()]) or _clip(body, 600)
    resolution_text, resolution_url = _resolution_text(resolution)
    # A pull request may fix several issues: only a comment URL is unique to this issue.
    resolution_id = resolution_url if resolution.comment is not None else f"{url}#resolution"
    data: dict[str, Any] = {
        "repo": repo,
        "number": number,
        "url": url,
        "status": resolution.status,
        "state": issue.get("state"),
        "state_reason": issue.get("state_reason"),
        "updated_at": issue.get("updated_at"),
        "closed_at": issue.get("closed_at"),
        "labels": labels,
        "errors": errors[:5],
        "environment": {"vllm_version": env.vllm_version, "gpu": env.gpu, "model": env.model},
        "problem": problem,
        "role": "problem",
    }
    if resolution.status == "resolved":
        data |= {
            "resolution": resolution_text,
            "resolution_url": resolution_url,
            "resolution_id": resolution_id,
            "fix_prs": list(resolution.fix_prs),
        }
    body_excerpt = _clip(body, _MAX_PROBLEM)
    chunks = [
        Chunk(
            id=url,
            kind="issue",
            title=title,
            source=url,
            origin=origin,
            dense_text="\n".join([title, *errors[:5], *env.lines(), body_excerpt])[:_MAX_PROBLEM],
            lexical_text="\n".join([title, body_excerpt, " ".join(labels)]),
            data=data,
        )
    ]
    if resolution.status == "resolved":
        chunks.append(
            Chunk(
                id=resolution_id,
                kind="issue",
                title=f"Resolution of {title}",
                source=resolution_url,
                origin=origin,
                dense_text=f"{title}\n{resolution_text}"[:_MAX_RESOLUTION],
                lexical_text=f"{title}\n{resolution_text}",
                data={**data, "role": "resolution"},
            )
        )
    return chunks


def _resolution_text(resolution: Resolution) -> tuple[str, str]:
    """What resolved it, and the URL that shows it (the answering comment, else the fix)."""
    parts = []
    url = ""
    if resolution.comment is not None:
        parts.append(_clip(_clean(resolution.comment.get("body")), _MAX_RESOLUTION))
        url = resolution.comment.get("html_url", "")
    if resolution.fix_prs:
        parts.append("Fixed by " + ", ".join(resolution.fix_prs))
        url = url or resolution.fix_prs[0]
    elif resolution.commit:
        parts.append(f"Closed by commit {resolution.commit}")
        url = url or resolution.commit
    return "\n\n".join(p for p in parts if p), url


@dataclass
class IssueCursor:
    """Where the issue listing stopped, what each issue looked like, and the listing's ETag."""

    since: str | None = None
    etag: str | None = None  # of the first listing page for `since`
    seen: dict[str, str] = field(default_factory=dict)  # issue number -> updated_at indexed
    full_at: float | None = None  # when the last full listing (deletion check) completed
    full_since: str | None = None  # a full listing in progress: the newest update it applied
    full_listed: list[str] | None = None  # ... and the issues it listed so far

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> IssueCursor:
        fields = ("since", "etag", "full_at", "full_since", "full_listed")
        return cls(seen=dict(d.get("seen") or {}), **{f: d.get(f) for f in fields})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
