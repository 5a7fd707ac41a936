"""Bolt listeners: translate Slack events into the library call and answers into thread replies."""

from __future__ import annotations

import logging
import re

from slack_bolt import Ack, App
from slack_sdk import WebClient

from assistant.errors import AssistantError, InputError, StoreError
from assistant.feedback.tracked import TrackedAssistant
from assistant.history import recent_history
from assistant.models import Turn
from assistant.slack.blocks import answer_blocks, fallback_text

log = logging.getLogger("assistant.slack")
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
USAGE = "Paste a vLLM error after the command, e.g. `/vllm-error RuntimeError: not home_path.empty()`"


def conversation_key(channel: str, thread_ts: str) -> str:
    return f"slack:{channel}:{thread_ts}"


def answer_in_thread(client: WebClient, tracked: TrackedAssistant, channel: str, thread_ts: str, text: str) -> None:
    """Answer `text` in the thread, with the thread's earlier turns as the conversation."""
    key = conversation_key(channel, thread_ts)
    store = tracked.store
    try:
        # the thread's history is ours, not the caller's: its recent turns that fit the limits, never a refusal
        history = recent_history(store.turns(key), tracked.assistant.settings)
    except StoreError as exc:  # an unreadable store costs the follow-up context, not the answer
        log.error("slack thread history unavailable", extra={"error": str(exc)})
        history = []
    try:
        asked = tracked.ask("slack", text, history)
    except InputError as exc:
        client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=f"I could not use that question: {exc}")
        return
    except AssistantError as exc:
        log.error("slack answer failed", extra={"error": str(exc)})
        client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=f"Sorry, the assistant failed: {exc}")
        return
    try:
        if asked.question_id is not None:
            store.link_thread(key, asked.question_id)  # a person's later reply here may become a draft entry
        store.append_turn(key, Turn("user", text.strip()))
        store.append_turn(key, Turn("assistant", asked.answer.body))
    except StoreError as exc:
        log.error("slack thread not saved; answering anyway", extra={"error": str(exc)})
    client.chat_postMessage(
        channel=channel,
        thread_ts=thread_ts,
        text=fallback_text(asked.answer),
        blocks=answer_blocks(asked.answer, asked.question_id),
        unfurl_links=False,
        unfurl_media=False,
    )


def _from_a_bot(event: dict) -> bool:
    return bool(event.get("bot_id") or event.get("bot_profile") or event.get("subtype"))


def register(app: App, tracked: TrackedAssistant) -> None:
    @app.event("app_mention")
    def on_mention(event: dict, client: WebClient) -> None:
        if _from_a_bot(event):
            return
        text = _MENTION.sub("", event.get("text", "")).strip()
        answer_in_thread(client, tracked, event["channel"], event.get("thread_ts") or event["ts"], text)

    @app.event("message")
    def on_message(event: dict, client: WebClient, context: dict) -> None:
        # Direct messages are answered; in channels the bot answers when mentioned, and keeps what people
        # reply in its threads (material for `feedback drafts` when it could not answer).
        if _from_a_bot(event):
            return
        if event.get("channel_type") != "im":
            bot_user = context.get("bot_user_id") or ""
            thread = event.get("thread_ts")
            if thread and (not bot_user or f"<@{bot_user}" not in event.get("text", "")):
                key = conversation_key(event["channel"], thread)
                tracked.store.record_reply(key, event.get("ts", ""), event.get("user", ""), event.get("text", ""))
            return
        text = _MENTION.sub("", event.get("text", "")).strip()
        answer_in_thread(client, tracked, event["channel"], event.get("thread_ts") or event["ts"], text)

    @app.command(re.compile(r"^/"))
    def on_command(ack: Ack, command: dict, client: WebClient) -> None:
        text = (command.get("text") or "").strip()
        if not text:
            ack(USAGE)
            return
        ack()
        quoted = text if len(text) <= 2800 else text[:2800] + "…"
        parent = client.chat_postMessage(
            channel=command["channel_id"], text=f"<@{command['user_id']}> asked:\n```\n{quoted}\n```"
        )
        answer_in_thread(client, tracked, command["channel_id"], parent["ts"], text)

    @app.action(re.compile(r"^feedback_(up|down)$"))
    def on_feedback(ack: Ack, body: dict, action: dict, client: WebClient) -> None:
        # Acknowledged once stored, so Slack's 200 means the feedback is kept: a host killed before the
        # write never acknowledges (the user sees Slack's error and can press again), one after it has written.
        rating = "up" if action["action_id"] == "feedback_up" else "down"
        user = body.get("user", {}).get("id", "")
        channel = body.get("channel", {}).get("id", "")
        message = body.get("message", {})
        thread_ts = message.get("thread_ts") or message.get("ts")
        try:
            asked = tracked.store.question(int(action["value"])) if action.get("value", "").isdigit() else None
            if asked is not None:
                tracked.store.record(
                    "slack", rating, asked.question, message.get("text", ""), asked.abstained, user=user,
                    question_id=asked.id,
                )  # fmt: skip
        except StoreError as exc:
            ack()
            log.error("slack feedback not saved", extra={"error": str(exc)})
            text = "Sorry, the feedback could not be saved right now; please try again later."
            client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts, text=text)
            return
        ack()
        if asked is None:
            log.warning("feedback for an unknown question", extra={"value": action.get("value")})
            return
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts, text="Thanks for the feedback!")
