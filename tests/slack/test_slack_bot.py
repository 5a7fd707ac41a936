"""Signed requests to the real Bolt app over HTTP; what it posts is recorded by a local Slack Web API."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import httpx
import pytest
from slack_sdk.signature import SignatureVerifier

from assistant.slack.handlers import USAGE

# The fake Slack (tests/slack/conftest.py) answers auth.test with this bot identity and signs with this secret.
BOT_USER, BOT_ID, SECRET = "UBOT", "BBOT", "test-signing-secret"

KNOWN = "RuntimeError: not home_path.empty()"
ENTRY_TITLE = "DeepGEMM crash"


def _post(
    url: str, body: str, content_type: str, *, secret: str = SECRET, ts: int | None = None, headers: dict | None = None
) -> httpx.Response:
    ts = int(time.time()) if ts is None else ts
    sig = SignatureVerifier(secret).generate_signature(timestamp=str(ts), body=body)
    hdrs = {"content-type": content_type, "x-slack-request-timestamp": str(ts), "x-slack-signature": sig}
    if headers is not None:
        hdrs = headers
    return httpx.post(url + "/slack/events", content=body, headers=hdrs, timeout=30)


def event(url: str, ev: dict, **kw) -> httpx.Response:
    body = json.dumps(
        {
            "type": "event_callback",
            "team_id": "T1",
            "api_app_id": "A1",
            "event": ev,
            "event_id": f"Ev{time.monotonic_ns()}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": "T1", "user_id": BOT_USER, "is_bot": True}],
        }
    )
    return _post(url, body, "application/json", **kw)


def mention(text: str, ts: str, thread_ts: str | None = None, channel: str = "C1") -> dict:
    ev = {"type": "app_mention", "user": "U1", "text": f"<@{BOT_USER}> {text}", "ts": ts, "channel": channel}
    if thread_ts:
        ev["thread_ts"] = thread_ts
    return ev


def _text_of(post: dict) -> str:
    return json.dumps(post.get("blocks", [])) + post.get("text", "")


def assert_only_the_sentinel_is_answered(url: str, fake) -> None:
    """After requests that must be ignored, a valid mention that must be answered; then nothing else was posted.

    The sentinel asks the same question, so an answer to the ignored requests, started earlier, would have been
    posted by the time the sentinel's is: the test waits for a reply instead of sleeping and hoping.
    """
    assert event(url, mention(KNOWN, "999.1", channel="CSENTINEL")).status_code == 200
    posts = fake.wait_posts(1)
    assert [(p["channel"], p["thread_ts"]) for p in posts] == [("CSENTINEL", "999.1")], posts


def test_fake_slack_identity_matches(fake) -> None:
    assert (fake.bot_user, fake.bot_id, fake.signing_secret) == (BOT_USER, BOT_ID, SECRET)


def test_mention_is_answered_in_a_thread_with_citations_and_feedback_buttons(bot, fake) -> None:
    url = bot[0]
    assert event(url, mention(KNOWN, "100.1")).status_code == 200
    [post] = fake.wait_posts(1)
    assert post["channel"] == "C1" and post["thread_ts"] == "100.1"
    blocks = post["blocks"]
    assert "VLLM_USE_DEEP_GEMM=0" in json.dumps(blocks)
    context = [b for b in blocks if b["type"] == "context"]
    assert "[1]" in context[0]["elements"][0]["text"] and ENTRY_TITLE in context[0]["elements"][0]["text"]
    actions = next(b for b in blocks if b["type"] == "actions")
    assert [e["action_id"] for e in actions["elements"]] == ["feedback_up", "feedback_down"]
    assert "**" not in json.dumps(blocks)  # Slack mrkdwn, not Markdown


def test_follow_up_in_the_thread_uses_it_as_context(bot, fake) -> None:
    url = bot[0]
    event(url, mention("and what is the workaround?", "200.1"))
    [alone] = fake.wait_posts(1)
    assert "I don't know" in alone["text"]
    event(url, mention(KNOWN, "300.1"))
    fake.wait_posts(2)
    event(url, mention("and what is the workaround?", "300.5", thread_ts="300.1"))
    follow = fake.wait_posts(3)[2]
    assert follow["thread_ts"] == "300.1"
    assert ENTRY_TITLE in _text_of(follow) and "I don't know" not in follow["text"]


def test_direct_message_is_answered(bot, fake) -> None:
    ev = {"type": "message", "channel_type": "im", "user": "U1", "text": KNOWN, "ts": "400.1", "channel": "D1"}
    assert event(bot[0], ev).status_code == 200
    [post] = fake.wait_posts(1)
    assert post["channel"] == "D1" and post["thread_ts"] == "400.1" and ENTRY_TITLE in _text_of(post)


def test_a_chinese_answer_shows_its_sources_once(bot, fake) -> None:
    event(bot[0], mention("启动 FP8 模型报错 not home_path.empty()，怎么解决？", "420.1"))
    [post] = fake.wait_posts(1)
    blocks = json.dumps(post["blocks"], ensure_ascii=False)
    assert "解决方法" in blocks and "VLLM_USE_DEEP_GEMM=0" in blocks  # answered, in Chinese
    assert blocks.count("corpus/entries/deepgemm-fp8-home-path-empty.yaml") == 1
    assert blocks.count("来源") == 1 and "Sources" not in blocks
    context = [b for b in post["blocks"] if b["type"] == "context"]
    assert context[0]["elements"][0]["text"].startswith("*来源*\n[1] ")


def test_unknown_problem_gets_i_dont_know(bot, fake) -> None:
    event(bot[0], mention("How long should I proof sourdough bread?", "450.1"))
    [post] = fake.wait_posts(1)
    assert post["blocks"][0]["type"] == "header" and "I don't know" in post["blocks"][0]["text"]["text"]
    assert any(g.question == "How long should I proof sourdough bread?" for g in bot[1].state.store.gaps())


def test_the_bot_never_answers_itself(bot, fake) -> None:
    url = bot[0]
    own = [
        {
            "type": "message",
            "channel_type": "im",
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "text": KNOWN,
            "ts": "500.1",
            "channel": "D1",
        },
        {
            "type": "message",
            "channel_type": "im",
            "subtype": "bot_message",
            "bot_id": BOT_ID,
            "text": KNOWN,
            "ts": "500.2",
            "channel": "D1",
        },
        {
            "type": "app_mention",
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "text": f"<@{BOT_USER}> {KNOWN}",
            "ts": "500.3",
            "channel": "C1",
        },
        {"type": "message", "channel_type": "channel", "user": "U1", "text": KNOWN, "ts": "500.4", "channel": "C1"},
    ]
    for ev in own:
        assert event(url, ev).status_code == 200
    assert_only_the_sentinel_is_answered(url, fake)


@pytest.mark.parametrize(
    "kw",
    [
        {"secret": "forged-secret"},
        {"ts": int(time.time()) - 600},
        {"headers": {"content-type": "application/json"}},
    ],
    ids=["forged", "stale", "unsigned"],
)
def test_forged_stale_and_unsigned_requests_are_rejected(bot, fake, kw) -> None:
    assert event(bot[0], mention(KNOWN, "600.1"), **kw).status_code == 401
    assert_only_the_sentinel_is_answered(bot[0], fake)


def test_url_verification_challenge(bot) -> None:
    r = _post(bot[0], json.dumps({"type": "url_verification", "challenge": "abc123", "token": "t"}), "application/json")
    assert r.status_code == 200 and r.json()["challenge"] == "abc123"


def _command(text: str) -> str:
    return urlencode(
        {
            "command": "/vllm-error",
            "text": text,
            "user_id": "U1",
            "channel_id": "C9",
            "team_id": "T1",
            "response_url": "http://127.0.0.1:9/none",
            "trigger_id": "1.2",
        }
    )


def test_slash_command_posts_the_question_and_answers_in_its_thread(bot, fake) -> None:
    r = _post(bot[0], _command(KNOWN), "application/x-www-form-urlencoded")
    assert r.status_code == 200
    parent, answer = fake.wait_posts(2)
    assert parent["channel"] == "C9" and KNOWN in parent["text"] and "thread_ts" not in parent
    assert answer["channel"] == "C9" and answer["thread_ts"].endswith(".000100") and ENTRY_TITLE in _text_of(answer)


def test_empty_slash_command_gets_usage(bot, fake) -> None:
    r = _post(bot[0], _command("  "), "application/x-www-form-urlencoded")
    assert r.status_code == 200 and USAGE in r.text
    assert_only_the_sentinel_is_answered(bot[0], fake)


def test_feedback_buttons_store_feedback(bot, fake) -> None:
    url, api, _ = bot
    event(url, mention(KNOWN, "700.1"))
    [post] = fake.wait_posts(1)
    button = next(b for b in post["blocks"] if b["type"] == "actions")["elements"][1]
    payload = {
        "type": "block_actions",
        "team": {"id": "T1"},
        "user": {"id": "U7"},
        "api_app_id": "A1",
        "channel": {"id": "C1"},
        "container": {"type": "message", "channel_id": "C1"},
        "trigger_id": "1.2",
        "message": {"ts": "800.1", "thread_ts": "700.1", "text": post["text"], "bot_id": BOT_ID},
        "actions": [
            {
                "type": "button",
                "action_id": button["action_id"],
                "block_id": "feedback",
                "value": button["value"],
                "action_ts": "800.2",
            }
        ],
    }
    r = _post(url, urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")
    assert r.status_code == 200
    [thanks] = fake.wait_posts(1, "chat.postEphemeral")
    assert thanks["user"] == "U7" and thanks["thread_ts"] == "700.1"
    deadline = time.monotonic() + 10
    while not api.state.store.list():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    [rec] = api.state.store.list()
    assert (rec.face, rec.rating, rec.user, rec.question) == ("slack", "down", "U7", KNOWN)


@pytest.mark.parametrize("question", ["???", "😀", "\u0000", "EngineDeadError \ud800"])
def test_wordless_or_broken_questions_get_a_clear_reply(bot, fake, question: str) -> None:
    url = bot[0]
    r = event(url, mention(question, ts=f"{time.monotonic_ns()}.1"))
    assert r.status_code == 200
    [post] = fake.wait_posts(1)
    text = _text_of(post)
    # No crash shows: the abstention's own advice may name `Traceback`, a stack trace would start like this.
    assert "Traceback (most recent call last)" not in text and "Sorry, the assistant failed" not in text
    if question.startswith("EngineDeadError"):
        assert "blocks" in post  # it has a word: a real answer (or an honest "I don't know")
    else:
        assert "paste the error message" in text
