"""The environment of a child process a test starts (`python -m assistant`, `app.py`, `chroma run`)."""

from __future__ import annotations

import os

# What tests/conftest.py sets for the whole suite, which a child inherits too.
SUITE_RULES = ("ASSISTANT_VLLM_RELEASES",)


def clean_env(**values: str) -> dict[str, str]:
    """This process's environment without the developer's `ASSISTANT_*` settings (the suite's own rules stay)
    and without `GITHUB_TOKEN`, offline, then `values`: a child's settings are what the test says."""
    env = {
        k: v
        for k, v in os.environ.items()
        if (not k.upper().startswith("ASSISTANT_") or k in SUITE_RULES) and k != "GITHUB_TOKEN"
    }
    return env | {"HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"} | values
