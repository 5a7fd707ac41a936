"""Structured logs: one JSON object a line, with the `extra=` fields of each record, secrets masked."""

from __future__ import annotations

import json
import logging
import sys
import time

from assistant.text.redact import redact
from assistant.text.sanitize import clean_text

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": _safe(record.getMessage()),
        }
        out.update({k: _safe(v) for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            out["exc"] = _safe(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False, default=str)


def _safe(value: object) -> object:
    """Strings masked (a pasted token must not reach the log) and made encodable."""
    if isinstance(value, str):
        return redact(clean_text(value))
    if isinstance(value, (list, tuple)):
        return [_safe(v) for v in value]
    if isinstance(value, dict):
        return {k: _safe(v) for k, v in value.items()}
    return value


def configure_logging(level: str = "INFO") -> None:
    """Route the assistant's, uvicorn's and Slack's logs through one JSON handler on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "slack_bolt", "slack_sdk"):
        lg = logging.getLogger(name)
        lg.handlers[:] = []
        lg.propagate = True
    logging.getLogger("uvicorn.access").setLevel("WARNING")  # our middleware logs each request
    for noisy in ("httpx", "httpcore", "chromadb", "sentence_transformers", "urllib3"):
        logging.getLogger(noisy).setLevel("WARNING")
