"""Slack face: @mentions, DMs and a slash command answered in threads, with feedback buttons."""

from assistant.slack.app import create_slack_app, mount_slack, slack_mode, start_socket_mode

__all__ = ["create_slack_app", "mount_slack", "slack_mode", "start_socket_mode"]
