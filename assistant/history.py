"""Limits on the conversation a question arrives with (pure).

The question has its own length limit; the earlier turns need theirs, or one request carrying a long history
costs as much CPU as a dozen questions (every user turn is read for the setup). A face that sends what its
caller gave (the HTTP API) refuses a history over the limits with a message naming the limit; a face that
keeps the history itself (Slack) passes only its most recent turns that fit.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.errors import InputError
from assistant.models import Turn
from assistant.settings import Settings


def check_history(history: Sequence[Turn] | None, settings: Settings) -> None:
    """An `InputError` that names the limit when the earlier turns are too many or too long."""
    if not history:
        return
    if len(history) > settings.max_history_turns:
        raise InputError(
            f"the conversation has {len(history)} earlier messages; the limit is {settings.max_history_turns} "
            "(start a new conversation, or send only the recent messages)"
        )
    total = 0
    for i, turn in enumerate(history, 1):
        size = len(turn.content)
        if size > settings.max_turn_chars:
            raise InputError(
                f"earlier message {i} ({turn.role}) is {size} characters long; the limit is "
                f"{settings.max_turn_chars} per message"
            )
        total += size
    if total > settings.max_history_chars:
        raise InputError(
            f"the earlier messages are {total} characters long together; the limit is {settings.max_history_chars}"
        )


def recent_history(history: Sequence[Turn], settings: Settings) -> list[Turn]:
    """The most recent turns that fit the limits, oldest first (a turn over the per-message limit is dropped)."""
    kept: list[Turn] = []
    total = 0
    for turn in reversed(history):
        if len(kept) == settings.max_history_turns:
            break
        size = len(turn.content)
        if size > settings.max_turn_chars:
            continue
        if total + size > settings.max_history_chars:
            break
        kept.append(turn)
        total += size
    return kept[::-1]
