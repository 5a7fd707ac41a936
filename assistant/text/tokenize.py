"""Lexical tokens for BM25: identifiers kept whole (and split into parts), Chinese segmented by jieba.

`VLLM_USE_DEEP_GEMM=0` yields `vllm_use_deep_gemm=0` and `vllm_use_deep_gemm`; `Qwen3-8B-AWQ` yields the
whole name and `qwen3`, `8b`, `awq`; `home_path.empty()` yields itself, `home_path` and `empty`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from assistant.text.vocab import CJK_RUN as _CJK_RUN
from assistant.text.vocab import STOPWORDS_EN as _EN_STOP
from assistant.text.vocab import STOPWORDS_ZH as _ZH_STOP

# An identifier-like run: letters, digits and the joiners that hold flags, env vars, paths and calls together.
_IDENT = re.compile(r"-{0,2}[A-Za-z0-9_][A-Za-z0-9_.\-/=:]*(?:\(\))?")
_PARTS = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*")
_JOINERS = set("_.-/=:()")
# "SM 8.0/8.6", "sm_90", "compute capability 7.5": one architecture, written as users and the docs write it. Each
# also yields the compact `sm80` that GPU names expand to (`assistant/text/gpus.py`), so the forms meet.
_SM_VERSION = re.compile(r"(?i)(?:\bsm[ _]?|\bcompute capability\s+)(\d{1,2})\.?(\d)\b((?:\s*/\s*\d{1,2}\.\d\b)*)")
_MORE_SM = re.compile(r"(\d{1,2})\.(\d)")

@lru_cache(maxsize=1)
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def _norm_word(w: str) -> str:
    """Lower-case and fold plurals (Porter step 1a), so `crashes` meets `crash` and `GPUs` meets `gpu`."""
    w = w.lower()
    if len(w) > 3 and w.isalpha():
        if w.endswith("sses"):
            return w[:-2]
        if w.endswith("ies"):
            return w[:-2]
        if w.endswith(("shes", "ches", "xes", "zes")):
            return w[:-2]
        if w.endswith("s") and not w.endswith("ss") and not (w.endswith("us") and len(w) > 4):
            return w[:-1]
    return w


def _ident_tokens(raw: str) -> list[str]:
    tok = raw.strip(".:=/").lower()
    if not tok:
        return []
    if not any(c in _JOINERS for c in tok.lstrip("-")) and not tok.startswith("-"):
        if tok in _EN_STOP:  # before folding: `this` and `does` are stopwords, `thi` and `doe` are not
            return []
        w = _norm_word(tok)
        return [] if w in _EN_STOP else [w]
    out = [tok]
    stripped = tok.lstrip("-")
    if stripped != tok and stripped:
        out.append(stripped)  # `--enforce-eager` also meets `enforce-eager`
    if "=" in stripped:
        out.append(stripped.split("=", 1)[0])  # `VLLM_X=1` also meets `VLLM_X`
    if stripped.endswith("()"):
        out.append(stripped[:-2])
    for part in _PARTS.findall(stripped):
        if part != stripped:
            out.append(part)
            if "_" in part:
                out.extend(p for p in part.split("_") if len(p) > 1 and p not in _EN_STOP)
    return [t for t in dict.fromkeys(out) if t and t not in _EN_STOP]


# jieba's HMM pass over unknown characters grows faster than the run (a 10,000-character run costs 10x a
# 2,500-character one), so a pasted run is segmented in pieces of at most this many characters. The longest run in
# the curated entries and every eval set is 34 characters (punctuation ends a run), so real text is unchanged.
_CJK_PIECE = 100


def _cjk_tokens(run: str) -> list[str]:
    cut = _jieba().cut_for_search
    pieces = (run[i : i + _CJK_PIECE] for i in range(0, len(run), _CJK_PIECE))
    return [t for piece in pieces for t in cut(piece) if t.strip() and t not in _ZH_STOP]


def tokenize(text: str) -> list[str]:
    """Tokens in order of appearance (repeats kept, as BM25 counts term frequency)."""
    tokens: list[str] = []
    pos = 0
    for m in _CJK_RUN.finditer(text):
        tokens.extend(_latin_tokens(text[pos : m.start()]))
        tokens.extend(_cjk_tokens(m.group()))
        pos = m.end()
    tokens.extend(_latin_tokens(text[pos:]))
    for m in _SM_VERSION.finditer(text):
        if (compact := f"sm{m.group(1)}{m.group(2)}") != m.group(0).lower():  # `SM80` is that token already
            tokens.append(compact)
        tokens.extend(f"sm{a}{b}" for a, b in _MORE_SM.findall(m.group(3)))
    return tokens


def _latin_tokens(text: str) -> list[str]:
    out: list[str] = []
    for m in _IDENT.finditer(text):
        out.extend(_ident_tokens(m.group()))
    return out
