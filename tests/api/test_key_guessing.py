"""Key guessing against `python app.py` as shipped: one failed-key limit per client address for every way a
key is tried (Bearer header, session cookie, /login), X-Forwarded-For believed only from the proxies
`forwarded_allow_ips` names, and `/login` redirecting only to paths on this server.

Each check talks from its own loopback address (127.0.0.2, 127.0.0.3, ...: Linux routes all of 127/8 to
`lo`), so the clients' buckets are really separate, as two users' would be; only the X-Forwarded-For check
uses 127.0.0.1.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assistant.api.redirects import safe_next
from tests.helpers.app_process import start_app

KEY = "k-right-0123456789"
LIMIT = 5  # ASSISTANT_RATE_LIMIT_PER_MINUTE, as in the report
ASK = {"question": "RuntimeError: not home_path.empty()"}


def _env(faces_index: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")},
        "ASSISTANT_INDEX_DIR": str(faces_index),
        "ASSISTANT_FEEDBACK_DB": str(tmp_path / "fb.sqlite3"),
        "ASSISTANT_VLLM_RELEASES": "[]",
        "ASSISTANT_API_KEYS": f'["{KEY}"]',
        "ASSISTANT_RATE_LIMIT_PER_MINUTE": str(LIMIT),
        **extra,
    }


@pytest.fixture(scope="module")
def app_url(faces_index: Path, api_assistant, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """app.py with keys and a limit of 5, the UI mounted (GET /ui/config is one of the guessed routes)."""
    proc, base = start_app([], _env(faces_index, tmp_path_factory.mktemp("guess")), stdout=subprocess.DEVNULL)
    try:
        yield base
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def client_from(base: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=30, transport=httpx.HTTPTransport(local_address=address))


def test_wrong_bearer_keys_are_limited_per_client_and_the_right_key_of_another_client_still_works(app_url) -> None:
    wrong = {"Authorization": "Bearer guess"}
    with client_from(app_url, "127.0.0.2") as guesser, client_from(app_url, "127.0.0.3") as user:
        statuses = [guesser.post("/v1/ask", json=ASK, headers=wrong).status_code for _ in range(30)]
        statuses += [guesser.get("/ui/config", headers=wrong).status_code for _ in range(30)]
        assert statuses.count(401) == LIMIT and statuses.count(429) == 60 - LIMIT, statuses
        limited = guesser.get("/ui/config", headers=wrong)
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert "too many wrong keys" in limited.json()["error"]["message"]
        # While locked out, the right key from the guesser's address is refused too: answering it would tell
        # the guesser which guess was right.
        assert guesser.post("/v1/ask", json=ASK, headers={"Authorization": f"Bearer {KEY}"}).status_code == 429
        # Another client is not locked out by those guesses.
        ok = user.post("/v1/ask", json=ASK, headers={"Authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200, ok.text


def test_right_keys_never_spend_the_failed_key_budget(app_url) -> None:
    with client_from(app_url, "127.0.0.4") as user:
        for _ in range(3 * LIMIT):
            assert user.get("/ui/config", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
        wrong = [user.get("/ui/config", headers={"Authorization": "Bearer typo"}).status_code for _ in range(LIMIT)]
        assert wrong == [401] * LIMIT  # the earlier successes took nothing from the budget
        assert user.get("/ui/config", headers={"Authorization": "Bearer typo"}).status_code == 429


def test_bearer_cookie_and_login_share_one_budget(app_url) -> None:
    with client_from(app_url, "127.0.0.5") as guesser:
        assert guesser.get("/ui/config", headers={"Authorization": "Bearer a"}).status_code == 401
        assert guesser.get("/ui/config", headers={"Cookie": "assistant_session=forged"}).status_code == 401
        assert guesser.post("/login", data={"key": "b", "next": "/ui/"}).status_code == 401
        assert guesser.get("/ui/config", headers={"Cookie": "assistant_session=forged2"}).status_code == 401
        assert guesser.post("/login", data={"key": "c", "next": "/ui/"}).status_code == 401
        login = guesser.post("/login", data={"key": "d", "next": "/ui/"})
        assert login.status_code == 429 and "too many wrong keys" in login.text and login.headers["retry-after"]
        assert guesser.get("/ui/config", headers={"Authorization": "Bearer e"}).status_code == 429
        # No key at all is no guess: the browser still gets the login form, not a lock-out.
        page = guesser.get("/ui/", headers={"Accept": "text/html"})
        assert page.status_code == 401 and 'action="/login"' in page.text


def test_a_new_x_forwarded_for_per_try_does_not_reset_the_login_limit(app_url) -> None:
    # From 127.0.0.1 itself: the address uvicorn trusts as a proxy unless told otherwise.
    with client_from(app_url, "127.0.0.1") as guesser:
        statuses = [
            guesser.post(
                "/login", data={"key": f"guess-{i}", "next": "/ui/"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}
            ).status_code
            for i in range(2 * LIMIT)
        ]
    assert statuses == [401] * LIMIT + [429] * LIMIT


def test_x_forwarded_for_is_believed_from_a_named_proxy(faces_index: Path, api_assistant, tmp_path: Path) -> None:
    """The setting reaches uvicorn: from a trusted proxy each forwarded client has its own budget, and the
    proxy's own address is never the one limited."""
    env = _env(faces_index, tmp_path, ASSISTANT_FORWARDED_ALLOW_IPS='["127.0.0.7"]')
    proc, base = start_app(["--no-ui"], env, stdout=subprocess.DEVNULL)
    try:
        with client_from(base, "127.0.0.7") as proxy:
            for client in ("198.51.100.1", "198.51.100.2"):
                tried = [
                    proxy.post("/v1/ask", json=ASK, headers={"Authorization": "Bearer x", "X-Forwarded-For": client})
                    for _ in range(LIMIT + 1)
                ]
                assert [r.status_code for r in tried] == [401] * LIMIT + [429], client
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


# --- where /login sends the browser -----------------------------------------------------------------------

OFF_ORIGIN = [
    "/%09/127.0.0.1:7898/",  # a tab, decoded: browsers drop it and read `//127.0.0.1:7898/`
    "/\t/127.0.0.1:7898/",
    "//evil.example/",
    "/\\evil.example/",
    "/%5Cevil.example/",
    "/%2F/evil.example/",
    "/%252F%252Fevil.example/",
    "https://evil.example/",
    "javascript:alert(1)",
    "ui/",
    "/ui/\r\nX-Injected: 1",
    "/ui/%0D%0AX:1",
    "/ui/\x85",
    "",
]


@pytest.mark.parametrize("target", OFF_ORIGIN, ids=[repr(t) for t in OFF_ORIGIN])
def test_safe_next_refuses_anything_but_a_same_origin_path(target: str) -> None:
    assert safe_next(target) == "/ui/"


@pytest.mark.parametrize("target", ["/ui/", "/ui/?__theme=dark", "/docs", "/ui/%C3%A9t%C3%A9", "/a%2Fb"])
def test_safe_next_keeps_same_origin_paths(target: str) -> None:
    assert safe_next(target) == target


def test_login_never_redirects_off_origin_over_http(app_url) -> None:
    with client_from(app_url, "127.0.0.8") as browser:
        for raw in ("/%09/127.0.0.1:7898/", "/%2509/127.0.0.1:7898/", "/ui/%0D%0AX:1", "/%5C%5Cevil.example/"):
            body = f"key={KEY}&next={raw}"  # written as a browser's form would send it
            r = browser.post(
                "/login", content=body, headers={"Content-Type": "application/x-www-form-urlencoded"}
            )
            assert r.status_code == 303 and r.headers["location"] == "/ui/", (raw, r.headers)
            assert "x" not in {k.lower() for k in r.headers}  # no header smuggled in
            page = browser.get("/login", params={"next": httpx.QueryParams(body).get("next")})
            assert page.status_code == 200 and 'name="next" value="/ui/"' in page.text, raw
        kept = browser.post("/login", data={"key": KEY, "next": "/ui/?__theme=dark"})
        assert kept.status_code == 303 and kept.headers["location"] == "/ui/?__theme=dark"
        assert browser.get("/healthz").status_code == 200  # the connection and the server are fine
