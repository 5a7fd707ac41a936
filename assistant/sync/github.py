"""A small GitHub REST client: token, `Link` pagination, ETag conditional requests, rate limits, retries.

Rate limits (403/429 with `Retry-After`, or `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset`) are
waited out when the wait is short; a longer one raises `RateLimited` with the time to retry, and the
caller stops cleanly at its last checkpoint. 5xx responses and dropped connections are retried with
exponential backoff.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from assistant.errors import RateLimited, SyncError

log = logging.getLogger("assistant.sync")
_LINK = re.compile(r'<([^>]+)>;\s*rel="([^"]+)"')


def next_link(header: str | None) -> str | None:
    """The `rel="next"` URL of a `Link` header, if any."""
    for url, rel in _LINK.findall(header or ""):
        if rel == "next":
            return url
    return None


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class Page:
    status: int  # 200, or 304 when the ETag still matched
    data: Any
    etag: str | None
    next_url: str | None


class GitHubClient:
    def __init__(
        self,
        api_url: str,
        token: str | None = None,
        *,
        max_wait: float = 60.0,
        retries: int = 4,
        backoff: float = 1.0,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        on_request: Callable[[], None] = lambda: None,
    ):
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.api_url = api_url.rstrip("/")
        self._http = httpx.Client(headers=headers, timeout=timeout, follow_redirects=True)
        self.max_wait = max_wait
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep
        self.clock = clock
        self.on_request = on_request

    def close(self) -> None:
        self._http.close()

    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self.api_url}/{path.lstrip('/')}"

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds to wait if this response is a rate limit, else None."""
        if response.status_code not in (403, 429):
            return None
        retry_after = response.headers.get("Retry-After")
        if retry_after and retry_after.strip().isdigit():
            return float(retry_after)
        reset = response.headers.get("X-RateLimit-Reset")
        if response.headers.get("X-RateLimit-Remaining") == "0" and reset and reset.isdigit():
            return max(0.0, float(reset) - self.clock())
        if response.status_code == 429:
            return 60.0
        return None

    def get(self, path: str, params: dict[str, Any] | None = None, etag: str | None = None) -> httpx.Response:
        return self._send("GET", path, params=params, headers={"If-None-Match": etag} if etag else {})

    def graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The `data` of a GraphQL query; a RATE_LIMITED error is handled like a REST rate limit."""
        while True:
            response = self._send("POST", "graphql", json={"query": query, "variables": variables})
            body = response.json()
            errors = body.get("errors") or []
            if any(e.get("type") == "RATE_LIMITED" for e in errors):
                reset = response.headers.get("X-RateLimit-Reset", "")
                wait = max(0.0, float(reset) - self.clock()) if reset.isdigit() else 60.0
                if wait > self.max_wait:
                    raise RateLimited(
                        f"GitHub rate limit reached; retry after {when(self.clock() + wait)}", self.clock() + wait
                    )
                self.sleep(wait)
                continue
            if errors and not body.get("data"):
                raise SyncError(f"GitHub GraphQL error: {errors[0].get('message', errors[0])}")
            return body.get("data") or {}

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        url = self.url(path)
        attempt = 0
        while True:
            self.on_request()
            try:
                response = self._http.request(method, url, **kwargs)
            except httpx.TransportError as exc:
                if attempt >= self.retries:
                    raise SyncError(f"GitHub at {self.api_url} is unreachable ({exc}); try again later") from exc
                self.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            wait = self._rate_limit_wait(response)
            if wait is not None:
                retry_at = self.clock() + wait
                if wait > self.max_wait:
                    raise RateLimited(f"GitHub rate limit reached; retry after {when(retry_at)}", retry_at)
                log.info("rate limited; waiting", extra={"seconds": round(wait, 1)})
                self.sleep(wait)
                continue
            if response.status_code >= 500:
                if attempt >= self.retries:
                    raise SyncError(
                        f"GitHub answered {response.status_code} to {url} {attempt + 1} times; try again later"
                    )
                self.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            if response.status_code == 401:
                raise SyncError("GitHub rejected the token (401): check GITHUB_TOKEN / ASSISTANT_GITHUB_TOKEN")
            if response.status_code not in (200, 304) and response.status_code != 404:
                detail = response.text[:200].replace("\n", " ")
                raise SyncError(f"GitHub answered {response.status_code} to {url}: {detail}")
            return response

    def page(self, path: str, params: dict[str, Any] | None = None, etag: str | None = None) -> Page:
        response = self.get(path, params, etag)
        if response.status_code == 404:
            raise SyncError(f"GitHub has no {self.url(path)} (404): check the repository name and the token's access")
        if response.status_code == 304:
            return Page(304, None, etag, None)
        return Page(200, response.json(), response.headers.get("ETag"), next_link(response.headers.get("Link")))

    def all_pages(self, path: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        """Every item of a paginated list, following `Link: rel="next"`."""
        page = self.page(path, params)
        while True:
            yield from page.data
            if not page.next_url:
                return
            page = self.page(page.next_url)
