"""Durable record of what was asked (and abstained on) and what users thought of the answers."""

from assistant.feedback.store import AskedQuestion, FeedbackRecord, FeedbackStore
from assistant.feedback.tracked import TrackedAssistant

__all__ = ["AskedQuestion", "FeedbackRecord", "FeedbackStore", "TrackedAssistant"]
