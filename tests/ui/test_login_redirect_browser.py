"""A real browser logging in through a crafted link stays on this server (the open redirect of issue 23).

The link `/login?next=/%09/127.0.0.1:<port>/` pre-fills the form; Chromium drops the tab of a `Location:
/\t/127.0.0.1:<port>/` and would go to `//127.0.0.1:<port>/`, another origin. A second local server stands in
for the attacker's, so a followed redirect would be seen.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from typing import ClassVar
from urllib.parse import urlsplit

import pytest

from assistant.app import create_app
from tests.helpers.server import ServerThread

KEY = "k-browser-0123456789"


class _Elsewhere(BaseHTTPRequestHandler):
    visits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Elsewhere.visits.append(self.path)
        body = b"<html><body>another origin</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args) -> None:
        pass


@pytest.fixture
def elsewhere():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    Thread(target=server.serve_forever, daemon=True).start()
    _Elsewhere.visits.clear()
    yield server.server_address[1]
    server.shutdown()


def test_a_crafted_login_link_lands_on_this_servers_ui(browser, ui_server, elsewhere: int) -> None:
    _, api = ui_server
    settings = api.state.settings.with_overrides(api_keys=[KEY])
    keyed = create_app(settings, api.state.assistant)
    with ServerThread(keyed) as server:
        server.wait_ready()
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{server.url}/login?next=/%09/127.0.0.1:{elsewhere}/")
        assert page.input_value('input[name="next"]') == "/ui/"  # the form is not pre-filled with the target
        page.fill("#key", KEY)
        page.click('button[type="submit"]')
        page.wait_for_url(f"{server.url}/ui/")
        page.wait_for_selector("#question textarea")
        # The same target posted by hand (not through the pre-filled form) is refused as well.
        page.goto(f"{server.url}/login")
        page.evaluate(
            "t => { document.querySelector('input[name=next]').value = t; }", f"/\t/127.0.0.1:{elsewhere}/"
        )
        page.fill("#key", KEY)
        page.click('button[type="submit"]')
        page.wait_for_url(f"{server.url}/ui/")
        context.close()
    assert urlsplit(page.url).port == server.port
    assert _Elsewhere.visits == []
