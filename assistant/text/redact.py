"""Mask secrets in pasted text before it is stored, logged or sent to an LLM backend (pure).

Users paste whole logs, commands and config files; those carry tokens. What is masked, by shape:
- whole tokens: Hugging Face (`hf_…`), OpenAI (`sk-…`), Slack (`xox…-`, `xapp-…`), GitHub, AWS, Google keys,
  JWTs, PEM private keys;
- `Authorization:` headers and a bare `Bearer <token>`;
- the userinfo of a URL of any scheme (`redis://:pw@host`, `postgres://u:pa/ss@db`, `https://u:p@ss!@proxy`);
- `KEY=value` / `key: value` / `key = value` pairs and `--flag value` whose key names a secret (TOKEN, SECRET,
  PASSWORD, PGPASSWORD, API_KEY, …), JDBC/ODBC `Password=…;`, and MySQL's `-p<password>`.
Settings that are not secrets stay intact: `VLLM_USE_DEEP_GEMM=0`, `--max-model-len=4096`, a URL without userinfo.
The answer itself is computed from the unmasked text in memory; only copies that leave the request are masked.

Every pattern costs time linear in the text (bounded quantifiers, starts only where a run starts):
masking runs on every question, history turn and log line (tests/text/test_input_cost.py checks it).
"""

from __future__ import annotations

import re

MASK = "[REDACTED]"

# Whole-token secrets: recognisable by their own shape, wherever they appear.
_TOKENS = [
    re.compile(r"\bhf_[A-Za-z0-9]{20,}\b"),  # Hugging Face
    re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}+"),  # OpenAI (and lookalikes)
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}+"),  # Slack bot/user/app-level tokens
    re.compile(r"\bxapp-[A-Za-z0-9\-]{10,}+"),  # Slack app token
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}\b"),
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key id
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API key
    re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+"),  # JWT
]
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)", re.DOTALL
)
# `Authorization: Bearer abc`, `-H "Authorization: token abc"`, `Proxy-Authorization: Basic abc`.
_AUTH_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization\s*+[:=]\s*+)(?:(bearer|basic|token|digest)\s++)?+(?!\[REDACTED\])[^\s'\"]++"
)
_X_API_KEY = re.compile(r"(?i)\b((?:x-api-key|api-key|x-auth-token)\s*+:\s*+)[^\s'\"]++")
# A bare `Bearer <token>` (outside a header): a token has a digit or is long, so "bearer authentication" stays.
_BEARER = re.compile(
    r"\b([Bb]earer\s++)(?!\[REDACTED\])((?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{8,}+=*|"
    r"[A-Za-z0-9._~+/\-]{20,}+=*)"
)
# scheme://[user]:password@host — the password may hold `/`, `@` and `!`: it runs to the last `@` before a host.
# The scheme starts a run (not inside `a.b.c`), and user and password are bounded, so a paste of `x://x://…`
# costs each start a few hundred steps at most.
_URL_USERINFO = re.compile(
    r"(?i)(?<![a-z0-9+.\-])([a-z][a-z0-9+.\-]{0,30}://)([^\s/:@'\"<>]{0,256}):([^\s'\"<>]{1,256})@"
    r"(?=[A-Za-z0-9\[])"
)
# scheme://<token>@host with no password: a long user name that mixes letters and digits is a token
# (`https://ghp_…@github.com`, `https://<token>@gitlab.com`); `ssh://git@github.com` stays.
_URL_TOKEN_USER = re.compile(
    r"(?i)(?<![a-z0-9+.\-])([a-z][a-z0-9+.\-]{0,30}://)(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[a-z])"
    r"([A-Za-z0-9_\-]{16,256})@(?=[A-Za-z0-9\[])"
)
_PORT_THEN_PATH = re.compile(r"\d{1,5}/")  # `host:8080/path@x`: a port, not a password
# A key: a run of identifier characters, started where a run starts, maybe quoted or a `--flag`.
_KEY_SEP = re.compile(
    r"""(?P<key>["']?(?<![A-Za-z0-9_.\-])-{0,2}+[A-Za-z][A-Za-z0-9_.\-]*+["']?)(?P<sep>[ \t]*+[:=][ \t]*+)"""
)
_VALUE = re.compile(r""""[^"\n]{0,4096}"|'[^'\n]{0,4096}'|[^\s,;}&"']++""")
# A credentials-file line (`aws_secret_access_key = wJalr…`, `password: two words`): the value runs to the end.
_LINE_VALUE = re.compile(r"[^\s\"'][^\n]*+")
_FLAG_VALUE = re.compile(r"(?<![A-Za-z0-9])(--[A-Za-z][A-Za-z0-9_.\-]*+)(\s++)(?!-)([^\s,;]++)")
# `mysql -uroot -phunter2 db`: MySQL's client takes the password glued to `-p`.
_MYSQL_P = re.compile(
    r"(?<![\w-])((?:mysql(?:dump|admin|sh|import|check)?|mariadb(?:-dump)?)\b[^\n]{0,300}?\s-p)(\S++)"
)
# A key names a secret when one of its `_`/`-`/`.` separated words is a secret word (HF_TOKEN, db-password,
# client.secret, apiKey), ends in one (PGPASSWORD, DBPASSWD), or its last word is KEY after another word
# (OPENAI_KEY). `tokenizer_mode`, `max_num_batched_tokens` and `VLLM_USE_DEEP_GEMM` name no secret.
_WORD = (
    r"(?i:token|secret|passw(?:or)?d|pwd|passphrase|apikey|api[_\-]key|access[_\-]?key|private[_\-]?key|credentials?)"
)
_SEG = r"[A-Za-z0-9]+"
_SECRET_NAME = re.compile(
    rf"-{{0,2}}(?:(?:{_SEG}[_.\-])*(?:[A-Za-z0-9]*(?i:passw(?:or)?d|secret)|{_WORD})(?:[_.\-]{_SEG})*"
    rf"|(?:{_SEG}[_.\-])+(?i:key)"  # ..._KEY
    r"|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*(?:Token|Secret|Password|Passwd|Key))"  # camelCase: apiKey, accessToken
)
_MAX_KEY = 64  # a longer run is not a key (and its check stays cheap)
# Values that are clearly not secrets (booleans, placeholders, small numbers, env references).
_HARMLESS = re.compile(
    r"""(?ix)^["']?(?:|true|false|none|null|empty|yes|no|on|off|\d{1,6}|\$\{?\w+\}?|<[^>]*>|\*+|x+|\.\.\.|…)["']?$"""
)
_HARMLESS_MAX = 80


def _harmless(value: str) -> bool:
    return len(value) <= _HARMLESS_MAX and bool(_HARMLESS.match(value))


def _names_secret(key: str) -> bool:
    bare = key.strip("\"'")
    return len(bare) <= _MAX_KEY and bool(_SECRET_NAME.fullmatch(bare))


def _mask_pairs(text: str) -> str:
    """`key<sep>value` where the key names a secret: the value masked. A key that names none consumes only
    itself and its separator, so `x=password=abc` still finds `password=abc`."""
    out: list[str] = []
    pos = 0
    for m in _KEY_SEP.finditer(text):
        if m.start() < pos or not _names_secret(m.group("key")):
            continue
        at = m.end()
        key, sep = m.group("key"), m.group("sep")
        before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        # `aws_secret_access_key = wJalr…` or `password: two words` alone on a line: the value is the rest of it
        # (not `PGPASSWORD=x psql`, where a command follows).
        whole_line = not before.strip() and key[0] not in "\"'-" and (sep != sep.strip() or ":" in sep)
        v = (_LINE_VALUE if whole_line and text[at : at + 1] not in "\"'" else _VALUE).match(text, at)
        if v is None:
            continue
        value = v.group(0).rstrip()
        if _harmless(value) or value.strip("\"'") == MASK or value.startswith(MASK):
            continue
        quote = value[0] if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1 else ""
        out.append(text[pos:at])
        out.append(f"{quote}{MASK}{quote}")
        pos = at + len(value)
    out.append(text[pos:])
    return "".join(out)


def _mask_flag(m: re.Match) -> str:
    if not _names_secret(m.group(1)) or _harmless(m.group(3)) or m.group(3).startswith(MASK):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{MASK}"


def _mask_userinfo(m: re.Match) -> str:
    scheme, user, password = m.group(1), m.group(2), m.group(3)
    if _PORT_THEN_PATH.match(password) or password == MASK:  # `https://host:8080/a@b`: no userinfo
        return m.group(0)
    return f"{scheme}{user}:{MASK}@"


def redact(text: str) -> str:
    """`text` with every secret it recognises replaced by `[REDACTED]`; everything else unchanged."""
    if not text:
        return text
    out = _PRIVATE_KEY.sub(MASK, text)
    out = _URL_USERINFO.sub(_mask_userinfo, out)
    out = _URL_TOKEN_USER.sub(lambda m: f"{m.group(1)}{MASK}@", out)
    out = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) + ' ' if m.group(2) else ''}{MASK}", out)
    out = _X_API_KEY.sub(lambda m: f"{m.group(1)}{MASK}", out)
    out = _BEARER.sub(lambda m: f"{m.group(1)}{MASK}", out)
    for pattern in _TOKENS:
        out = pattern.sub(MASK, out)
    out = _mask_pairs(out)
    out = _FLAG_VALUE.sub(_mask_flag, out)
    out = _MYSQL_P.sub(lambda m: f"{m.group(1)}{MASK}", out)
    return out
