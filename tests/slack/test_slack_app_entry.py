"""`python app.py` turns Slack on when its settings are present (HTTP mode: Events API at /slack/events)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
from slack_sdk.signature import SignatureVerifier

from tests.helpers.app_process import start_app
from tests.helpers.env import clean_env


def test_app_py_serves_slack_events_when_configured(faces_index: Path, tmp_path: Path, slack_api) -> None:
    slack_api.reset()
    env = clean_env(
        ASSISTANT_INDEX_DIR=str(faces_index),
        ASSISTANT_FEEDBACK_DB=str(tmp_path / "fb.sqlite3"),
        ASSISTANT_SLACK_BOT_TOKEN="xoxb-test",
        ASSISTANT_SLACK_SIGNING_SECRET=slack_api.signing_secret,
        ASSISTANT_SLACK_API_URL=slack_api.url,
    )
    proc, base = start_app(["--no-ui"], env, stdout=subprocess.DEVNULL)
    try:
        body = json.dumps(
            {
                "type": "event_callback",
                "team_id": "T1",
                "event_id": "Ev9",
                "event_time": 1,
                "event": {
                    "type": "app_mention",
                    "user": "U1",
                    "channel": "C3",
                    "ts": "950.1",
                    "text": f"<@{slack_api.bot_user}> RuntimeError: not home_path.empty()",
                },
            }
        )
        ts = str(int(time.time()))
        sig = SignatureVerifier(slack_api.signing_secret).generate_signature(timestamp=ts, body=body)
        r = httpx.post(
            base + "/slack/events",
            content=body,
            timeout=30,
            headers={"content-type": "application/json", "x-slack-request-timestamp": ts, "x-slack-signature": sig},
        )
        assert r.status_code == 200
        [post] = slack_api.wait_posts(1)
        assert post["channel"] == "C3" and post["thread_ts"] == "950.1"
        assert "auth.test" in [m for m, _ in slack_api.calls]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert '"slack enabled"' in err and '"mode": "http"' in err
