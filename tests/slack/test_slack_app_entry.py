"""`python app.py` turns Slack on when its settings are present (HTTP mode: Events API at /slack/events)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from slack_sdk.signature import SignatureVerifier

from assistant.api.server import free_port

REPO = Path(__file__).resolve().parents[2]


def test_app_py_serves_slack_events_when_configured(faces_index: Path, tmp_path: Path, slack_api) -> None:
    slack_api.reset()
    port = free_port()
    env = {
        **os.environ,
        "ASSISTANT_INDEX_DIR": str(faces_index),
        "ASSISTANT_FEEDBACK_DB": str(tmp_path / "fb.sqlite3"),
        "ASSISTANT_SLACK_BOT_TOKEN": "xoxb-test",
        "ASSISTANT_SLACK_SIGNING_SECRET": slack_api.signing_secret,
        "ASSISTANT_SLACK_API_URL": slack_api.url,
    }
    env.pop("ASSISTANT_SLACK_APP_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "app.py", "--no-ui", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read()
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "app.py did not turn ready"
            time.sleep(0.1)
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
