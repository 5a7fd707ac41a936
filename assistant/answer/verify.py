"""Checking a generated answer against the sources it cites (pure; no model, no I/O).

An LLM writes fluently and invents confidently. What it invents that hurts most in a vLLM fix is the
checkable detail: a citation number, a `--flag`, an `ENV_VAR`, a version, a PR number, a URL. Each of
those must appear in a source the answer cites (or in the user's own question); otherwise it is marked
"(unverified)". Citation numbers that map to no source are removed. An answer that cites nothing, is
mostly unsupported or looks like garbage fails, and the caller falls back to the extractive answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

TermKind = Literal["flag", "env", "version", "pr", "url"]

UNVERIFIED = "(unverified)"
ABSTAIN_MARKER = "NO_ANSWER"

# [1], [1, 2], [1][3]; the numbers are checked one by one.
_CITE = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]+[^\s<>()\[\]`'\".,;:!?]")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_ENV = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w-])")
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+|\.dev\d+)?(?![\w]|\.\d)")
_PR = re.compile(r"(?:\b(?:PR|pr|pull request|issue)\s*#?\s*|(?<![\w&])#|/pull/|/issues/)(\d{3,6})\b")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_SOURCES_HEADING = re.compile(r"^\s*[#*_]*\s*(sources|references|citations|来源|参考)\s*[:：]?\s*[*_]*\s*$", re.I | re.M)
# The prompt's own scaffolding: a tiny model sometimes echoes the prompt instead of answering.
_PROMPT_ECHO = re.compile(r"</?\s*(?:source|user_message|conversation)\b|\bCite the sources as\b", re.I)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.S)
_WORD = re.compile(r"[a-z][a-z0-9_]{3,}")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")

# Generic words that say nothing about whether a sentence is grounded.
_STOP = frozenset(
    "this that with from have your will when then than they them there their these those what which also "
    "into only should could would about because before after does more most other some such make sure each "
    "using used uses just like need needs here very been being were while where however answer source sources "
    "problem issue error question please following based check".split()
)


@dataclass(frozen=True)
class Term:
    kind: TermKind
    text: str  # as written in the answer
    key: str  # what must be found in a source


@dataclass(frozen=True)
class Verification:
    text: str  # the answer after removals and markings
    cited: tuple[int, ...]  # valid source numbers the answer cites, in first-use order
    removed_citations: tuple[int, ...] = ()
    unverified: tuple[Term, ...] = ()
    verified: tuple[Term, ...] = ()
    abstained: bool = False
    problems: tuple[str, ...] = field(default_factory=tuple)  # why it failed; empty when it passed

    @property
    def passed(self) -> bool:
        return not self.problems and not self.abstained


def strip_reasoning(text: str) -> str:
    """Drop a `<think>...</think>` block (Qwen3 and other reasoning models) and the model's own source list."""
    text = _THINK.sub("", text).strip()
    m = _SOURCES_HEADING.search(text)
    if m and m.start() > 0:
        text = text[: m.start()].rstrip()
    return text


def is_abstention(text: str) -> bool:
    """The model's reply is the marker itself (an echo of the prompt that merely mentions it is not)."""
    return text.strip().strip("*_`.\"'“” \n").upper() == ABSTAIN_MARKER


def remove_bad_citations(text: str, valid: set[int]) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """Drop citation numbers that map to no source: (text, valid numbers cited, numbers removed)."""
    cited: list[int] = []
    removed: list[int] = []

    def fix(m: re.Match) -> str:
        keep = []
        for part in m.group(1).split(","):
            n = int(part)
            if n in valid:
                keep.append(n)
                if n not in cited:
                    cited.append(n)
            elif n not in removed:
                removed.append(n)
        return "".join(f"[{n}]" for n in keep)

    out = _CITE.sub(fix, text)
    out = re.sub(r"[ \t]+([.,;:!?])", r"\1", out)  # "fix it [9]." -> "fix it."
    out = re.sub(r"[ \t]+$", "", out, flags=re.M)
    return out, tuple(cited), tuple(removed)


def find_terms(text: str) -> list[tuple[int, int, Term]]:
    """The checkable details in an answer with their spans, URLs first (their insides are not re-checked)."""
    found: list[tuple[int, int, Term]] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    def add(a: int, b: int, term: Term) -> None:
        if free(a, b):
            found.append((a, b, term))
            taken.append((a, b))

    for m in _URL.finditer(text):
        add(m.start(), m.end(), Term("url", m.group(0), m.group(0).rstrip("/")))
    for m in _PR.finditer(text):
        add(m.start(), m.end(), Term("pr", m.group(0), m.group(1)))
    for m in _FLAG.finditer(text):
        add(m.start(), m.end(), Term("flag", m.group(0), m.group(0)))
    for m in _ENV.finditer(text):
        if m.group(0) != ABSTAIN_MARKER:
            add(m.start(), m.end(), Term("env", m.group(0), m.group(0)))
    for m in _VERSION.finditer(text):
        add(m.start(), m.end(), Term("version", m.group(0), m.group(0).lstrip("v")))
    return sorted(found, key=lambda f: f[0])


def supported(term: Term, evidence: str) -> bool:
    """Whether a source (or the question) states the term, as a whole token."""
    key = re.escape(term.key)
    if term.kind == "pr":
        pattern = rf"(?<!\d){key}(?!\d)"
    elif term.kind == "version":
        pattern = rf"(?<![\w.])v?{key}(?![\w]|\.\d)"
    elif term.kind == "flag":
        # --max-model-len is also written max_model_len (Python API); both spellings count.
        alt = re.escape(term.key.lstrip("-").replace("-", "_"))
        pattern = rf"(?<![\w-])(?:{key}|{alt})(?![\w-])"
    elif term.kind == "url":
        pattern = rf"{key}/?(?![\w/])"
    else:
        pattern = rf"(?<![\w-]){key}(?![\w-])"
    return re.search(pattern, evidence) is not None


def _code_regions(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks (a marker inside one would break a command: it goes in a comment)."""
    regions, start, pos = [], None, 0
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            if start is None:
                start = pos
            else:
                regions.append((start, pos + len(line)))
                start = None
        pos += len(line)
    if start is not None:
        regions.append((start, len(text)))
    return regions


def mark_unverified(text: str, spans: list[tuple[int, int, Term]]) -> str:
    """Mark each unsupported term: after it in prose, after its `code span`, as a comment in a code block."""
    blocks = _code_regions(text)
    inline = [(m.start(), m.end()) for m in _INLINE_CODE.finditer(text)]
    inserts: dict[int, list[str]] = {}
    for a, b, term in spans:
        block = next(((s, e) for s, e in blocks if s <= a < e), None)
        if block is not None:
            eol = text.find("\n", b)
            eol = block[1] if eol == -1 or eol > block[1] else eol
            inserts.setdefault(eol, []).append(f"  # {term.text} {UNVERIFIED}")
            continue
        code = next(((s, e) for s, e in inline if s <= a < e), None)
        at = code[1] if code else b
        if f" {UNVERIFIED}" not in inserts.get(at, []):
            inserts.setdefault(at, []).append(f" {UNVERIFIED}")
    out, last = [], 0
    for at in sorted(inserts):
        out.append(text[last:at])
        out.append("".join(dict.fromkeys(inserts[at])))
        last = at
    out.append(text[last:])
    return "".join(out)


def _looks_broken(text: str) -> str | None:
    """A reason when the text is not an answer: empty, mostly symbols, or a loop of one line."""
    visible = re.sub(r"\s", "", text)
    if len(visible) < 20:
        return "the answer is empty or too short"
    wordish = sum(ch.isalnum() for ch in visible)
    if wordish / len(visible) < 0.5:
        return "the answer is mostly symbols"
    lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) > 15]
    if lines and max(lines.count(ln) for ln in lines) >= 3:
        return "the answer repeats itself"
    sentences = [s.strip() for s in re.split(r"(?<=[.!?。])\s+", text) if len(s.strip()) > 15]
    if sentences and max(sentences.count(s) for s in sentences) >= 3:
        return "the answer repeats itself"
    return None


def _content_words(text: str) -> list[str]:
    """English words of four letters or more, and Chinese character pairs (Chinese has no spaces)."""
    text = text.lower()
    words = [w for w in _WORD.findall(text) if w not in _STOP]
    for run in _CJK_RUN.findall(text):
        words += [run[i : i + 2] for i in range(len(run) - 1)]
    return words


def _grounding(text: str, evidence: str) -> float:
    """Share of the answer's content words that occur in the cited sources or the question."""
    words = _content_words(_CITE.sub(" ", text))
    if not words:
        return 0.0
    have = set(_content_words(evidence))
    return sum(w in have for w in words) / len(words)


def verify(
    text: str,
    sources: Mapping[int, str],
    question: str = "",
    *,
    max_unverified: int = 3,
    min_grounding: float = 0.35,
) -> Verification:
    """Clean and judge a generated answer.

    `sources` maps each source number given to the model to the full text of that source. Details are
    checked against the sources the answer actually cites, plus the question (a user's own flag may be
    repeated back). The answer fails when it abstains, cites no valid source, leaves more than
    `max_unverified` details unsupported, shares too few words with its sources, or looks broken.
    """
    text = strip_reasoning(text)
    if is_abstention(text):
        return Verification(text=text, cited=(), abstained=True, problems=("the model found no answer in the sources",))
    text, cited, removed = remove_bad_citations(text, set(sources))
    evidence = "\n".join(sources[n] for n in cited) + "\n" + question
    spans = find_terms(text)
    bad = [(a, b, t) for a, b, t in spans if not supported(t, evidence)]
    good = [t for _a, _b, t in spans if supported(t, evidence)]
    unverified = tuple(dict.fromkeys(t for _a, _b, t in bad))
    text = mark_unverified(text, bad)

    problems: list[str] = []
    broken = _looks_broken(text) or ("the answer repeats the prompt" if _PROMPT_ECHO.search(text) else None)
    if broken:
        problems.append(broken)
    if not cited:
        problems.append("the answer cites none of the sources")
    if len({t.key for t in unverified}) > max_unverified:
        problems.append(f"{len(unverified)} flags, variables, versions or links appear in none of the cited sources")
    if cited and not broken:
        sources_only = "\n".join(sources[n] for n in cited)
        if _grounding(text, evidence) < min_grounding or _grounding(text, sources_only) < min_grounding / 2:
            problems.append("the answer shares too little with its sources")
    return Verification(
        text=text,
        cited=cited,
        removed_citations=removed,
        unverified=unverified,
        verified=tuple(dict.fromkeys(good)),
        problems=tuple(problems),
    )
