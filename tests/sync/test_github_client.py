"""The GitHub client against the local fake: Link pagination, ETag 304, rate limits, 5xx retries."""

import pytest

from assistant.errors import RateLimited, SyncError
from assistant.sync.github import GitHubClient, next_link
from tests.sync.conftest import REPO


@pytest.fixture()
def client(fake_github):
    waits: list[float] = []
    c = GitHubClient(fake_github.url, "ghp_example", max_wait=60, backoff=0.5, sleep=waits.append, clock=lambda: 1000.0)
    c.waits = waits
    yield c
    c.close()


def test_link_header_parsing():
    header = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"'
    assert next_link(header) == "https://api.github.com/x?page=2"
    assert next_link('<https://api.github.com/x?page=1>; rel="prev"') is None
    assert next_link(None) is None


def test_every_page_is_followed_through_link_headers(client, fake_github):
    items = list(client.all_pages(f"repos/{REPO}/issues", {"state": "all", "sort": "updated", "direction": "asc"}))
    assert [i["number"] for i in items] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert fake_github.counts()["total"] == 4  # 8 items, 2 a page


def test_an_unchanged_page_answers_304_to_its_etag(client, fake_github):
    first = client.page(f"repos/{REPO}/issues", {"state": "all"})
    again = client.page(f"repos/{REPO}/issues", {"state": "all"}, etag=first.etag)
    assert first.status == 200 and again.status == 304 and again.data is None
    fake_github.repos[REPO].issues[9]["title"] = "edited"
    fake_github.repos[REPO].issues[9]["updated_at"] = "2026-02-01T00:00:00Z"
    changed = client.page(f"repos/{REPO}/issues", {"state": "all", "direction": "desc"}, etag=first.etag)
    assert changed.status == 200 and changed.data[0]["title"] == "edited"


def test_a_short_rate_limit_is_waited_out(client, fake_github):
    fake_github.fail("/issues", 403, {"Retry-After": "7"})
    page = client.page(f"repos/{REPO}/issues", {"state": "all"})
    assert page.status == 200 and client.waits == [7.0]


def test_a_long_rate_limit_stops_with_the_time_to_retry(client, fake_github):
    headers = {
        "X-RateLimit-Limit": "60",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Used": "60",
        "X-RateLimit-Reset": str(1000 + 3600),
        "X-RateLimit-Resource": "core",
    }
    fake_github.fail("/issues", 403, headers)
    with pytest.raises(RateLimited) as err:
        client.page(f"repos/{REPO}/issues", {"state": "all"})
    assert err.value.retry_at == 4600.0
    assert "retry after 1970-01-01 01:16:40 UTC" in str(err.value)
    assert client.waits == []


def test_5xx_is_retried_with_backoff_then_given_up(client, fake_github):
    fake_github.fail("/issues", 502, times=2)
    assert client.page(f"repos/{REPO}/issues", {"state": "all"}).status == 200
    assert client.waits == [0.5, 1.0]
    fake_github.fail("/issues", 502, times=10)
    with pytest.raises(SyncError, match="GitHub answered 502 .* 5 times; try again later"):
        client.page(f"repos/{REPO}/issues", {"state": "all"})


def test_a_forbidden_request_without_rate_limit_headers_is_an_error(client, fake_github):
    fake_github.fail("/issues", 403, {"X-RateLimit-Remaining": "4000"})
    with pytest.raises(SyncError, match="GitHub answered 403"):
        client.page(f"repos/{REPO}/issues")


def test_the_token_is_sent_as_a_bearer(client, fake_github):
    seen = []
    original = fake_github._route

    def spy(path, query, headers, raw):
        seen.append(headers.get("Authorization"))
        return original(path, query, headers, raw)

    fake_github._route = spy
    client.page(f"repos/{REPO}/issues")
    assert seen == ["Bearer ghp_example"]
