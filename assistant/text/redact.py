"""Mask secrets in pasted text before it is stored, logged or sent to an LLM backend (pure).

Users paste whole logs and commands; those carry tokens. What is masked: Hugging Face (`hf_…`), OpenAI
(`sk-…`), Slack (`xox…-`, `xapp-…`), GitHub and AWS keys, `Authorization:` headers, PEM private keys,
passwords in URLs, and `KEY=value` / `key: value` pairs whose key names a secret (TOKEN, SECRET,
PASSWORD, API_KEY, …). Settings that are not secrets stay intact: `VLLM_USE_DEEP_GEMM=0` is kept. The
answer itself is computed from the unmasked text in memory; only copies that leave the request are masked.
"""

from __future__ import annotations

import re

MASK = "[REDACTED]"

# Whole-token secrets: recognisable by their own shape, wherever they appear.
_TOKENS = [
    re.compile(r"\bhf_[A-Za-z0-9]{20,}\b"),  # Hugging Face
    re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}"),  # OpenAI (and lookalikes)
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),  # Slack bot/user/app-level tokens
    re.compile(r"\bxapp-[A-Za-z0-9\-]{10,}"),  # Slack app token
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}\b"),
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key id
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API key
    re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),  # JWT
]
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)", re.DOTALL
)
# `Authorization: Bearer abc`, `-H "Authorization: token abc"`, `Proxy-Authorization: Basic abc`.
_AUTH_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*)(?:(bearer|basic|token|digest)\s+)?[^\s'\"]+")
_X_API_KEY = re.compile(r"(?i)\b((?:x-api-key|api-key|x-auth-token)\s*:\s*)[^\s'\"]+")
# scheme://user:password@host
_URL_PASSWORD = re.compile(r"\b([a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)", re.IGNORECASE)
# KEY=value, KEY: value, "key": "value", --key value / --key=value where KEY names a secret.
# A key names a secret when one of its `_`/`-`/`.` separated words is a secret word (HF_TOKEN, db-password,
# client.secret, apiKey), or its last word is KEY after another word (OPENAI_KEY). `tokenizer_mode`,
# `max_num_batched_tokens` and `VLLM_USE_DEEP_GEMM` name no secret.
_WORD = (
    r"(?i:token|secret|passw(?:or)?d|pwd|passphrase|apikey|api[_\-]key|access[_\-]?key|private[_\-]?key|credentials?)"
)
_SEG = r"[A-Za-z0-9]+"
_SECRET_NAME = (
    rf"(?:(?:{_SEG}[_.\-])*{_WORD}(?:[_.\-]{_SEG})*"  # a secret word among the key's words
    rf"|(?:{_SEG}[_.\-])+(?i:key)"  # ..._KEY
    r"|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*(?:Token|Secret|Password|Passwd|Key))"  # camelCase: apiKey, accessToken
    r"(?![A-Za-z0-9])"
)
_KEY_VALUE = re.compile(
    rf"""(?x)
    (?P<key>["']?(?<![A-Za-z0-9_.\-])-{{0,2}}{_SECRET_NAME}["']?)
    (?P<sep>\s*[:=]\s*)
    (?P<value>"[^"\n]*"|'[^'\n]*'|[^\s,;}}&"']+)
    """
)
_FLAG_VALUE = re.compile(rf"(?<![A-Za-z0-9])(--{_SECRET_NAME})(\s+)(?!-)([^\s,;]+)")
# Values that are clearly not secrets (booleans, placeholders, small numbers, env references).
_HARMLESS = re.compile(
    r"""(?ix)^["']?(?:|true|false|none|null|empty|yes|no|on|off|\d{1,6}|\$\{?\w+\}?|<[^>]*>|\*+|x+|\.\.\.|…)["']?$"""
)


def _mask_pair(m: re.Match) -> str:
    value = m.group("value")
    if _HARMLESS.match(value) or value.strip("\"'") == MASK:
        return m.group(0)
    quote = value[0] if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1 else ""
    return f"{m.group('key')}{m.group('sep')}{quote}{MASK}{quote}"


def _mask_flag(m: re.Match) -> str:
    if _HARMLESS.match(m.group(3)):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{MASK}"


def redact(text: str) -> str:
    """`text` with every secret it recognises replaced by `[REDACTED]`; everything else unchanged."""
    if not text:
        return text
    out = _PRIVATE_KEY.sub(MASK, text)
    out = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) + ' ' if m.group(2) else ''}{MASK}", out)
    out = _X_API_KEY.sub(lambda m: f"{m.group(1)}{MASK}", out)
    out = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{MASK}{m.group(2)}", out)
    for pattern in _TOKENS:
        out = pattern.sub(MASK, out)
    out = _KEY_VALUE.sub(_mask_pair, out)
    out = _FLAG_VALUE.sub(_mask_flag, out)
    return out
