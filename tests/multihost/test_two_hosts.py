"""Several hosts, one truth: two real `app.py` processes share one `chroma run` server and one PostgreSQL.

Each host has its own index folder (lexical cache, sync checkpoint) and its own, unused, SQLite path;
everything they must agree on lives in the two servers. Slack's Web API is the local fake the Slack
tests use; every request is real HTTP on loopback. The processes start once for the module, and the
last test kills one of them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from assistant.service import Assistant
from tests.conftest import make_settings
from tests.helpers.app_process import REPO, start_app
from tests.helpers.chroma import chroma_server
from tests.helpers.known import KNOWN
from tests.helpers.known import KNOWN_TITLE as ENTRY_TITLE
from tests.helpers.slack import BOT_ID, FakeSlackApi, event, mention, text_of
from tests.helpers.slack import signed_post as post_signed

NEW_ERROR = "FixtureKernelError: the fixture kernel cache is sealed"
NEW_ENTRY = f"""id: multihost-fixture-kernel-sealed
title: {{en: "Fixture kernel crash \\"{NEW_ERROR}\\""}}
question: {{en: "How do I fix \\"{NEW_ERROR}\\" when vllm serve starts?"}}
error_strings: ["{NEW_ERROR}"]
root_cause: {{en: "The fixture kernel cache was sealed by an earlier run (an entry written for this test)."}}
fix: {{en: "Remove the sealed fixture kernel cache folder and start the server again."}}
source: tests
"""
SYNC_EVERY_MINUTES = 0.05  # host A syncs every 3 s; host B never does on its own
FOLLOW_UP = "and what is the workaround?"


class Hosts:
    def __init__(self, tmp: Path, chroma_url: str, database_url: str, slack: FakeSlackApi):
        self.tmp, self.chroma_url, self.database_url, self.slack = tmp, chroma_url, database_url, slack
        self.extra = tmp / "extra-entries"
        self.extra.mkdir()
        self.sources = tmp / "sources.yaml"
        self.sources.write_text(f"sources:\n  - name: extra\n    kind: entries\n    path: {self.extra}\n", encoding="utf-8")
        self.procs: dict[str, subprocess.Popen] = {}
        self.urls: dict[str, str] = {}
        self.logs: dict[str, Path] = {}

    def env(self, name: str) -> dict[str, str]:
        return {
            **os.environ,
            "ASSISTANT_INDEX_DIR": str(self.tmp / f"host-{name}" / "index"),
            "ASSISTANT_FEEDBACK_DB": str(self.tmp / f"host-{name}" / "feedback.sqlite3"),  # must stay unused
            "ASSISTANT_CHROMA_URL": self.chroma_url,
            "ASSISTANT_DATABASE_URL": self.database_url,
            "ASSISTANT_SOURCES_FILE": str(self.sources),
            "ASSISTANT_SYNC_INTERVAL_MINUTES": str(SYNC_EVERY_MINUTES if name == "a" else 0),
            "ASSISTANT_SLACK_BOT_TOKEN": "xoxb-test",
            "ASSISTANT_SLACK_SIGNING_SECRET": self.slack.signing_secret,
            "ASSISTANT_SLACK_API_URL": self.slack.url,
        }

    def start(self, names: list[str]) -> None:
        def one(name: str) -> tuple[str, subprocess.Popen, str]:
            self.logs[name] = self.tmp / f"host-{name}.log"
            with self.logs[name].open("w") as log:
                proc, url = start_app(["--no-ui"], self.env(name), stdout=subprocess.DEVNULL, stderr=log, wait=300)
            return name, proc, url

        with ThreadPoolExecutor(len(names)) as pool:
            for name, proc, url in pool.map(one, names):
                self.procs[name], self.urls[name] = proc, url

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()

    def ask(self, name: str, question: str) -> dict:
        r = httpx.post(self.urls[name] + "/v1/ask", json={"question": question}, timeout=60)
        assert r.status_code == 200, r.text
        return r.json()

    def gap_report(self, name: str) -> dict:
        """`python -m assistant feedback --json` as an operator on host `name` runs it."""
        done = subprocess.run(
            [sys.executable, "-m", "assistant", "feedback", "--json", "--limit", "500"],
            cwd=REPO, env=self.env(name), capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory, postgres, embedder):
    tmp = tmp_path_factory.mktemp("multihost")
    slack = FakeSlackApi()
    with chroma_server(tmp / "chroma") as chroma_url:
        # The index is built once, before the hosts start (as a deploy does): they find it complete.
        Assistant(make_settings(tmp / "builder", chroma_url=chroma_url), embedder=embedder).ensure_index()
        h = Hosts(tmp, chroma_url, postgres.create_database("multihost"), slack)
        try:
            h.start(["a", "b"])
            yield h
        finally:
            h.stop()
            slack.close()


def _feedback_payload(post: dict, user: str, thread_ts: str) -> str:
    button = next(b for b in post["blocks"] if b["type"] == "actions")["elements"][1]
    payload = {
        "type": "block_actions",
        "team": {"id": "T1"},
        "user": {"id": user},
        "api_app_id": "A1",
        "channel": {"id": "C1"},
        "container": {"type": "message", "channel_id": "C1"},
        "trigger_id": "1.2",
        "message": {"ts": "900.1", "thread_ts": thread_ts, "text": post["text"], "bot_id": BOT_ID},
        "actions": [
            {"type": "button", "action_id": button["action_id"], "block_id": "feedback", "value": button["value"],
             "action_ts": "900.2"}
        ],
    }  # fmt: skip
    return urlencode({"payload": json.dumps(payload)})


def _answer_in_thread(hosts: Hosts, name: str, text: str, ts: str, thread_ts: str | None = None) -> dict:
    hosts.slack.reset()
    assert event(hosts.urls[name], mention(text, ts, thread_ts=thread_ts)).status_code == 200
    [post] = hosts.slack.wait_posts(1, timeout=60)
    assert post["thread_ts"] == (thread_ts or ts)
    return post


def test_feedback_given_through_one_host_is_in_the_other_hosts_gap_report(hosts: Hosts) -> None:
    post = _answer_in_thread(hosts, "b", KNOWN, "500.1")  # asked through host B ...
    hosts.slack.reset()
    r = post_signed(hosts.urls["a"], _feedback_payload(post, "U-feedback", "500.1"), "application/x-www-form-urlencoded")
    assert r.status_code == 200  # ... its feedback button pressed through host A, which knows the question
    [thanks] = hosts.slack.wait_posts(1, "chat.postEphemeral", timeout=30)
    assert thanks["text"] == "Thanks for the feedback!" and thanks["user"] == "U-feedback"
    gap = hosts.ask("a", "why is my model slow")
    assert gap["abstained"]

    report = hosts.gap_report("b")
    [fb] = [f for f in report["feedback"] if f["user"] == "U-feedback"]
    assert fb["face"] == "slack" and fb["rating"] == "down" and KNOWN in fb["question"]
    assert "why is my model slow" in [g["question"] for g in report["gaps"]]
    assert not any((hosts.tmp / f"host-{n}" / "feedback.sqlite3").exists() for n in "ab")  # nothing went to SQLite


@pytest.mark.parametrize(("first", "second"), [("a", "b"), ("b", "a")])
def test_a_slack_follow_up_reaching_either_host_sees_the_first_turn(hosts: Hosts, first: str, second: str) -> None:
    thread = "610.1" if first == "a" else "620.1"
    alone = _answer_in_thread(hosts, second, FOLLOW_UP, thread.replace(".1", ".9"))
    assert "I don't know" in alone["text"]  # without the thread, the follow-up alone is not answerable
    _answer_in_thread(hosts, first, KNOWN, thread)
    follow = _answer_in_thread(hosts, second, FOLLOW_UP, thread.replace(".1", ".5"), thread_ts=thread)
    assert ENTRY_TITLE in text_of(follow) and "I don't know" not in follow["text"]


def _cites_new_entry(hosts: Hosts, name: str) -> bool:
    return "multihost-fixture-kernel-sealed" in [c["id"] for c in hosts.ask(name, NEW_ERROR)["citations"]]


def test_a_sync_on_one_host_makes_the_new_generation_live_on_both(hosts: Hosts) -> None:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from assistant.index.store import live_name

    assert not _cites_new_entry(hosts, "a") and not _cites_new_entry(hosts, "b")
    (hosts.extra / "multihost-fixture-kernel-sealed.yaml").write_text(NEW_ENTRY, encoding="utf-8")
    seen: dict[str, float] = {}
    started = time.monotonic()
    while len(seen) < 2:  # host A's schedule syncs within 3 s; host B follows the pointer within 5 s
        for name in "ab":
            if name not in seen and _cites_new_entry(hosts, name):
                seen[name] = time.monotonic() - started
        assert time.monotonic() - started < 90, f"live on {sorted(seen)} only"
        time.sleep(0.5)
    port = int(hosts.chroma_url.rsplit(":", 1)[1])
    client = chromadb.HttpClient(host="127.0.0.1", port=port, settings=ChromaSettings(anonymized_telemetry=False))
    assert live_name(client, "vllm_troubleshooting").startswith("vllm_troubleshooting-g")  # a new generation
    log_b = hosts.logs["b"].read_text()
    assert "scheduled sync" not in log_b  # host B never ran the sync: it only followed the pointer
    print(f"new generation live on A after {seen['a']:.1f} s, on B after {seen['b']:.1f} s")


def test_killing_one_host_under_load_loses_no_feedback(hosts: Hosts) -> None:
    post = _answer_in_thread(hosts, "a", KNOWN, "700.1")
    users = [f"U-load-{i:03d}" for i in range(60)]
    acked: dict[str, str] = {}
    retried: list[str] = []
    lock = threading.Lock()
    killed = threading.Event()

    def press(i: int, user: str) -> None:
        body = _feedback_payload(post, user, "700.1")
        for host in ("a" if i % 2 == 0 else "b", "b"):  # a failed request is retried on the other host, as a proxy does
            try:
                r = post_signed(hosts.urls[host], body, "application/x-www-form-urlencoded")
            except httpx.TransportError:
                with lock:
                    retried.append(user)
                continue
            if r.status_code == 200:
                with lock:
                    acked[user] = host
                return
        raise AssertionError(f"{user}: no host acknowledged the feedback")

    def kill_a_soon() -> None:
        while len(acked) < 15:
            time.sleep(0.01)
        hosts.procs["a"].send_signal(signal.SIGKILL)  # mid-load: some of A's requests are in flight
        killed.set()

    killer = threading.Thread(target=kill_a_soon)
    killer.start()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda iu: press(*iu), enumerate(users)))
    killer.join(30)
    assert killed.is_set() and hosts.procs["a"].wait(timeout=30) == -signal.SIGKILL
    assert sorted(acked) == users  # every press was acknowledged by one host or the other

    stored = [f["user"] for f in hosts.gap_report("b")["feedback"] if f["user"].startswith("U-load-")]
    assert set(stored) == set(users), f"lost: {sorted(set(users) - set(stored))}"
    on_a = sum(1 for h in acked.values() if h == "a")
    print(f"{len(users)} presses: {on_a} acknowledged by A before the kill, {len(retried)} retried on B, "
          f"{len(stored) - len(set(stored))} stored twice")  # fmt: skip
