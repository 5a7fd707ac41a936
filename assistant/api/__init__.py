"""HTTP face: `POST /v1/ask`, OpenAI-compatible `/v1/chat/completions`, health and Prometheus metrics."""

from assistant.api.app import create_api

__all__ = ["create_api"]
