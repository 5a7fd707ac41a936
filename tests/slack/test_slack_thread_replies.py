"""What people reply in a thread where the bot abstained is kept (through the real Bolt app), for drafts."""

from __future__ import annotations

from tests.helpers.slack import BOT_USER, assert_only_the_sentinel_is_answered, event, mention
from tests.helpers.wait import wait_until

UNKNOWN = "How long should I proof sourdough bread at 24C?"


def _reply(text: str, ts: str, thread_ts: str, user: str = "U9") -> dict:
    return {
        "type": "message",
        "channel_type": "channel",
        "user": user,
        "text": text,
        "ts": ts,
        "thread_ts": thread_ts,
        "channel": "C1",
    }


def _gap_of(store, question: str, replies: int):
    """The gap of `question` once it holds `replies` replies (the events are handled after Slack is acked)."""

    def found():
        gaps = [g for g in store.answered_gaps() if g.question.question == question and len(g.replies) >= replies]
        return gaps[0] if gaps else None

    return wait_until(found, 20, lambda: f"no gap for {question!r} with {replies} replies: {store.answered_gaps()}")


def test_a_persons_reply_in_an_abstained_thread_is_kept(bot, fake) -> None:
    url, api, _ = bot
    event(url, mention(UNKNOWN, "600.1"))
    fake.wait_posts(1)  # the bot abstains in the thread
    assert event(url, _reply("About 4 hours at 24C.", "600.5", "600.1")).status_code == 200
    # A question to the bot (Slack sends it as an app_mention too, which answers it), not an answer to keep.
    assert event(url, _reply(f"<@{BOT_USER}> and at 20C?", "600.6", "600.1")).status_code == 200
    assert event(url, _reply("unrelated", "700.2", "700.1")).status_code == 200
    gap = _gap_of(api.state.store, UNKNOWN, 1)
    assert gap.conversation == "slack:C1:600.1"
    assert [(r.user, r.text) for r in gap.replies] == [("U9", "About 4 hours at 24C.")]
    assert_only_the_sentinel_is_answered(url, fake, before=1)  # the bot stays quiet about people's replies


def test_the_bot_knows_its_own_id_from_auth_test(bot, fake) -> None:
    """A reply that mentions the bot (by the user id Slack's auth.test gave it) is a question, not an answer to
    keep; one that mentions someone else is kept. A bot that took its id from anywhere else would keep both."""
    url, api, slack = bot
    question = "How long should I proof rye bread at 22C?"
    event(url, mention(question, "610.1"))
    fake.wait_posts(1)
    assert event(url, _reply(f"<@{slack.bot_user}> what about spelt?", "610.2", "610.1")).status_code == 200
    assert event(url, _reply("<@U5> knows: about 3 hours.", "610.3", "610.1")).status_code == 200
    assert_only_the_sentinel_is_answered(url, fake, before=1)  # both events were handled by now
    gap = _gap_of(api.state.store, question, 1)
    assert [r.text for r in gap.replies] == ["<@U5> knows: about 3 hours."]
