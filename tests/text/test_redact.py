"""Secret masking: tokens and keys go, the settings users paste to describe their setup stay."""

from __future__ import annotations

import pytest

from assistant.text.redact import MASK, redact
from assistant.text.sanitize import clean_text, has_words

SECRETS = {
    "hf": ("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"),
    "hf bare": ("login with hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 failed", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"),
    "openai": ("client = OpenAI(api_key='sk-proj-Abc123Def456Ghi789Jkl012')", "sk-proj-Abc123Def456Ghi789Jkl012"),
    "bearer": ("curl -H 'Authorization: Bearer abc.DEF-123_xyz' http://h/v1/models", "abc.DEF-123_xyz"),
    "basic": ("Proxy-Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    "slack bot": ("SLACK_BOT_TOKEN=xoxb-1234567890-abcdefghijkl", "xoxb-1234567890-abcdefghijkl"),
    "slack app": ("token xapp-1-A0123-456-abcdef0123 in the log", "xapp-1-A0123-456-abcdef0123"),
    "aws id": ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    "aws secret": ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    "private key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAA",
    ),
    "url password": ("redis://admin:hunter2pass@cache:6379/0", "hunter2pass"),
    "json": ('{"api_key": "abcdef123456", "model": "x"}', "abcdef123456"),
    "flag": ("vllm serve m --api-key s3cr3t-value --port 8000", "s3cr3t-value"),
    "password": ("DB_PASSWORD: Tr0ub4dor&3", "Tr0ub4dor&3"),
    "github": ("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
}


@pytest.mark.parametrize("name", list(SECRETS))
def test_secrets_are_masked(name: str) -> None:
    text, secret = SECRETS[name]
    out = redact(text)
    assert secret not in out and MASK in out


@pytest.mark.parametrize(
    "text",
    [
        "VLLM_USE_DEEP_GEMM=0 vllm serve Qwen/Qwen3-0.6B-FP8",
        "--max-num-batched-tokens 8192 --tokenizer-mode auto --enforce-eager",
        "max_num_batched_tokens=8192 tokenizer_mode=mistral max_tokens=512",
        "RuntimeError: not home_path.empty()",
        "OPENAI_API_KEY=EMPTY HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false",
        "CUDA error: an illegal memory access was encountered (sk-ip this)",
        "https://github.com/vllm-project/vllm/issues/12345",
    ],
)
def test_settings_and_errors_are_kept(text: str) -> None:
    assert redact(text) == text


def test_masking_keeps_the_rest_of_the_line() -> None:
    out = redact("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 VLLM_USE_DEEP_GEMM=0 vllm serve x")
    assert out == f"HF_TOKEN={MASK} VLLM_USE_DEEP_GEMM=0 vllm serve x"


def test_clean_text_and_has_words() -> None:
    assert clean_text("EngineDeadError \ud800\x00 ok\n") == "EngineDeadError \ufffd ok\n"
    clean_text("EngineDeadError \ud800").encode("utf-8")  # encodable now
    assert not has_words("???") and not has_words("😀") and not has_words("\x00 ...")
    assert has_words("为什么") and has_words("E1") and has_words("?x")
