"""Socket Mode: the real Bolt handler connects to a local WebSocket server speaking Slack's envelope protocol."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path

from websockets.sync.server import serve

from assistant.feedback import FeedbackStore, TrackedAssistant
from assistant.service import Assistant
from assistant.settings import Settings
from assistant.slack import create_slack_app, slack_mode, start_socket_mode
from tests.helpers.known import KNOWN


def test_socket_mode_answers_an_envelope_and_acks_it(faces_index: Path, tmp_path: Path, slack_api) -> None:
    acks: queue.Queue = queue.Queue()
    envelope = {
        "envelope_id": "env-1",
        "type": "events_api",
        "accepts_response_payload": False,
        "payload": {
            "type": "event_callback",
            "team_id": "T1",
            "api_app_id": "A1",
            "event_id": "Ev1",
            "event_time": 1,
            "event": {
                "type": "app_mention",
                "user": "U1",
                "text": f"<@{slack_api.bot_user}> {KNOWN}",
                "ts": "900.1",
                "channel": "C5",
            },
            "authorizations": [{"team_id": "T1", "user_id": slack_api.bot_user, "is_bot": True}],
        },
    }

    def session(ws) -> None:
        ws.send(json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A1"}}))
        ws.send(json.dumps(envelope))
        for message in ws:
            acks.put(json.loads(message))

    with serve(session, "127.0.0.1", 0) as ws_server:
        threading.Thread(target=ws_server.serve_forever, daemon=True).start()
        slack_api.socket_url = f"ws://127.0.0.1:{ws_server.socket.getsockname()[1]}/"
        slack_api.reset()
        settings = Settings(
            index_dir=faces_index, slack_bot_token="xoxb-test", slack_app_token="xapp-test", slack_api_url=slack_api.url
        )
        assert slack_mode(settings) == "socket"
        assistant = Assistant(settings)
        assistant.ensure_index()
        tracked = TrackedAssistant(assistant, FeedbackStore(tmp_path / "feedback.sqlite3"))
        handler = start_socket_mode(create_slack_app(settings, tracked), settings)
        try:
            assert acks.get(timeout=20)["envelope_id"] == "env-1"
            [post] = slack_api.wait_posts(1)
            assert post["channel"] == "C5" and post["thread_ts"] == "900.1"
            assert "VLLM_USE_DEEP_GEMM=0" in json.dumps(post["blocks"])
        finally:
            handler.close()
            ws_server.shutdown()
