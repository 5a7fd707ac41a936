"""Answer → Slack Block Kit (pure). Slack limits: 3000 characters a section, 50 blocks a message."""

from __future__ import annotations

import re

from assistant.answer.text import LABELS
from assistant.models import Answer

SECTION_CHARS = 2900
MAX_TEXT_CHARS = 3900  # the notification/fallback text
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")


def to_mrkdwn(markdown: str) -> str:
    """The answer's Markdown in Slack's dialect: *bold*, <url|text> links; code fences lose their language."""
    text = _BOLD.sub(r"*\1*", markdown)
    text = _LINK.sub(r"<\2|\1>", text)
    return re.sub(r"```[A-Za-z0-9_+-]+\n", "```\n", text)


def split_sections(text: str, limit: int = SECTION_CHARS) -> list[str]:
    """Split at paragraph, then line breaks so every piece fits a section block."""
    parts: list[str] = []
    current = ""
    for para in text.split("\n\n"):
        piece = para if not current else "\n\n" + para
        if len(current) + len(piece) <= limit:
            current += piece
            continue
        if current:
            parts.append(current)
        while len(para) > limit:
            cut = para.rfind("\n", 0, limit)
            cut = cut if cut > 0 else limit
            parts.append(para[:cut])
            para = para[cut:].lstrip("\n")
        current = para
    if current:
        parts.append(current)
    return parts


def _source(title: str, source: str) -> str:
    return f"<{source}|{title}>" if source.startswith(("http://", "https://")) else f"{title} (`{source}`)"


def fallback_text(answer: Answer) -> str:
    """The notification text: the body only (the sources are in the blocks)."""
    body = answer.body
    text = body if len(body) <= MAX_TEXT_CHARS else body[: MAX_TEXT_CHARS - 1] + "…"
    return ("I don't know. " if answer.abstained else "") + text


def answer_blocks(answer: Answer, question_id: int) -> list[dict]:
    blocks: list[dict] = []
    if answer.abstained:
        blocks.append(
            {"type": "header", "text": {"type": "plain_text", "text": ":grey_question: I don't know", "emoji": True}}
        )
    body = to_mrkdwn(answer.body)
    blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": part}} for part in split_sections(body)][:40]
    if answer.citations:
        label = LABELS[answer.language]["sources"]
        sources = "\n".join(f"[{c.n}] {_source(c.title, c.source)}" for c in answer.citations)
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"*{label}*\n{sources}"[:2990]}]})
    if answer.notice:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"_{answer.notice}_"[:2990]}]})
    blocks.append(
        {
            "type": "actions",
            "block_id": "feedback",
            "elements": [
                {
                    "type": "button",
                    "action_id": "feedback_up",
                    "value": str(question_id),
                    "text": {"type": "plain_text", "text": ":thumbsup: Helpful", "emoji": True},
                },
                {
                    "type": "button",
                    "action_id": "feedback_down",
                    "value": str(question_id),
                    "text": {"type": "plain_text", "text": ":thumbsdown: Not helpful", "emoji": True},
                },
            ],
        }
    )
    return blocks
