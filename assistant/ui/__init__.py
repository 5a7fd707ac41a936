"""Gradio chat face: conversation, sources, the matched entry's facts, examples and feedback."""

from assistant.ui.blocks import build_ui, mount_ui

__all__ = ["build_ui", "mount_ui"]
