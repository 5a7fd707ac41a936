"""What people reply in a thread where the bot abstained is kept (through the real Bolt app), for drafts."""

from __future__ import annotations

import time

from tests.slack.test_slack_bot import BOT_USER, event, mention

UNKNOWN = "How long should I proof sourdough bread at 24C?"


def _wait_gaps(store, n: int, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while len(gaps := store.answered_gaps()) < n:
        assert time.monotonic() < deadline, gaps
        time.sleep(0.05)
    return gaps


def test_a_persons_reply_in_an_abstained_thread_is_kept(bot, fake) -> None:
    url, api, _ = bot
    event(url, mention(UNKNOWN, "600.1"))
    fake.wait_posts(1)  # the bot abstains in the thread
    reply = {
        "type": "message",
        "channel_type": "channel",
        "user": "U9",
        "text": "About 4 hours at 24C.",
        "ts": "600.5",
        "thread_ts": "600.1",
        "channel": "C1",
    }
    assert event(url, reply).status_code == 200
    to_bot = {
        "type": "message",
        "channel_type": "channel",
        "user": "U9",
        "text": f"<@{BOT_USER}> and at 20C?",
        "ts": "600.6",
        "thread_ts": "600.1",
        "channel": "C1",
    }
    assert event(url, to_bot).status_code == 200  # a question to the bot (app_mention answers it), not an answer
    elsewhere = {
        "type": "message",
        "channel_type": "channel",
        "user": "U9",
        "text": "unrelated",
        "ts": "700.2",
        "thread_ts": "700.1",
        "channel": "C1",
    }
    assert event(url, elsewhere).status_code == 200
    [gap] = [g for g in _wait_gaps(api.state.store, 1) if g.question.question == UNKNOWN]
    assert gap.conversation == "slack:C1:600.1"
    assert [(r.user, r.text) for r in gap.replies] == [("U9", "About 4 hours at 24C.")]
    assert fake.posts()[1:] == []  # the bot stays quiet about people's replies
