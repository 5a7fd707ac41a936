"""Checking a generated answer against the sources it cites (pure; no model, no I/O).

An LLM writes fluently and invents confidently. What it invents that hurts most in a vLLM fix is the
checkable detail: a citation number, a `--flag`, an `ENV_VAR`, a version, a PR number, a URL, a
quoted `code span`. The rules:

- a citation number that maps to no source is removed;
- a claim (the text before a `[n]` on its line, or the block above a `[n]` standing alone) keeps a
  citation only if that source states every checkable detail of the claim; otherwise the citation is
  dropped (the source does not back it) — so every `[n]` left is a citation the source supports; a
  claim that a name does not exist in a release is backed only by that release's complete list of
  names of its kind, without the name (`assistant/answer/absence.py`);
- a flag, variable, version, PR number or URL found in none of the cited sources nor in the user's
  own question is marked "(unverified)";
- the answer fails (the caller shows the extractive answer) when it abstains, cites nothing, leaves
  more than a few details unverified, shares too few words with its sources, echoes the prompt, or
  looks broken.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from assistant.answer.absence import absence_claim, backs_absence
from assistant.text.vocab import (
    CJK_CHARS,
    CJK_PUNCT,
    ENV_NAME,
    ENV_VALUE,
    FLAG,
    UNGROUNDED_WORDS,
    VERSION,
    WORD_START,
)

TermKind = Literal["flag", "env", "version", "pr", "url", "code"]

UNVERIFIED = "(unverified)"
ABSTAIN_MARKER = "NO_ANSWER"

# A citation marker: [1] or [1, 2]; not `x[0]`, not a Markdown link `[1](...)`.
# ASCII: a marker glued to Chinese text ("版本[1]。") is a citation; `x[1]` in code is not.
_MARKER = re.compile(r"(?<![\w\])])\[(\d{1,6}(?:\s*,\s*\d{1,6})*)\](?![(\[])", re.ASCII)
_ADJACENT = re.compile(
    r"(?<![\w\])])\[(\d{1,6}(?:\s*,\s*\d{1,6})*)\][ \t]*\[(?=\d{1,6}(?:\s*,\s*\d{1,6})*\])", re.ASCII
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]+[^\s<>()\[\]`'\".,;:!?]")
_FLAG = re.compile(f"{WORD_START}{FLAG}")
# In prose `X=1.` ends a sentence: the value stops before a final dot.
_ENV = re.compile(
    f"{WORD_START}{ENV_NAME}(?:=[^\\s`'\",;)\\]{CJK_CHARS}{CJK_PUNCT}]*[^\\s`'\",;)\\].{CJK_CHARS}{CJK_PUNCT}])?"
)
_ENV_AS_EVAL = re.compile(f"{WORD_START}{ENV_NAME}(?:{ENV_VALUE})?")  # may end in "."
# ASCII word boundaries, as for flags: "升级到0.8.5版本", "见#12345修复" are a version and a PR number too.
_VERSION = re.compile(rf"(?<![\w.]){VERSION}(?![\w.]*\w)", re.ASCII)
_PR = re.compile(r"(?:\b(?:PR|pr|pull request|issue)\s*#?\s*|(?<![\w&])#|/pull/|/issues/)(\d{3,6})\b", re.ASCII)
_SOURCES_HEADING = re.compile(
    r"^[ \t]*+[#*_]*+[ \t]*+(sources|references|citations|来源|参考)[ \t]*+[:：]?[ \t]*+[*_]*+[ \t\r]*+$",
    re.IGNORECASE | re.MULTILINE,  # blanks, not `\s`: a run of newlines split between two `\s*` is quadratic
)
# The prompt's own scaffolding: a tiny model sometimes echoes the prompt instead of answering.
_PROMPT_ECHO = re.compile(r"</?\s*(?:source|user_message|conversation)\b|\bCite the sources as\b", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
_WORD = re.compile(r"[a-z][a-z0-9_]{3,}")
_OTHER_TOOL = re.compile(
    r"\b(?:docker|podman|pip3?|uv|git|conda|apt(?:-get)?|curl|wget|pytest|torchrun|nvidia-smi|huggingface-cli|"
    r"kubectl|helm|cmake|nvcc|ray|sglang|trtllm-serve|llama-server)\b"
)
_CJK_RUN = re.compile(f"[{CJK_CHARS}]{{2,}}")


@dataclass(frozen=True)
class Term:
    kind: TermKind
    text: str  # as written in the answer

    @property
    def key(self) -> str:
        """What a source must contain."""
        if self.kind == "pr":
            return re.sub(r"\D", "", self.text.rsplit("/", 1)[-1] if "/" in self.text else self.text)
        return self.text.rstrip("/") if self.kind == "url" else self.text


@dataclass(frozen=True)
class ReleaseCheck:
    """Which flags and env vars exist in the user's vLLM release, from its source (`assistant/release`)."""

    release: str
    exists: Callable[[str, str], bool | None]  # (kind "flag" | "env", name) -> exists / does not / cannot tell

    def verdict(self, term: Term, line: str = "") -> bool | None:
        """Exists / does not / cannot tell; a flag on another tool's command line (`pip install --no-deps`) is not vLLM's."""
        if term.kind not in ("flag", "env") or (term.kind == "flag" and _OTHER_TOOL.search(line)):
            return None
        return self.exists(term.kind, term.text.split("=", 1)[0])

    @property
    def marker(self) -> str:
        return f"(does not exist in vLLM {self.release})"


@dataclass(frozen=True)
class Verification:
    text: str  # the answer after removals and markings
    cited: tuple[int, ...]  # source numbers still cited, in first-use order
    removed_citations: tuple[int, ...] = ()  # numbers that mapped to no source
    detached: int = 0  # claims whose citation was dropped because the source does not state their details
    unverified: tuple[Term, ...] = ()
    absent: tuple[Term, ...] = ()  # flags / env vars the user's release does not have
    abstained: bool = False
    problems: tuple[str, ...] = ()  # why it failed; empty when it passed

    @property
    def passed(self) -> bool:
        return not self.problems and not self.abstained


# --- small pure helpers -----------------------------------------------------------------------------


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


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).lower()


def _mask_code(line: str) -> str:
    """The line with inline code blanked out (same offsets): `outputs[0]` holds no citation."""
    return _INLINE_CODE.sub(lambda m: "`" + "x" * (len(m.group()) - 2) + "`", line)


def find_terms(text: str) -> list[tuple[int, int, Term]]:
    """The checkable details (flag, env, version, PR, URL) with their spans; URL insides are not re-checked."""
    found: list[tuple[int, int, Term]] = []

    def add(a: int, b: int, term: Term) -> None:
        if all(b <= s or a >= e for s, e, _t in found):
            found.append((a, b, term))

    for m in _URL.finditer(text):
        add(m.start(), m.end(), Term("url", m.group(0)))
    for m in _PR.finditer(text):
        add(m.start(), m.end(), Term("pr", m.group(0)))
    for m in _FLAG.finditer(text):
        add(m.start(), m.end(), Term("flag", m.group(0)))
    for m in _ENV.finditer(text):
        if m.group(0) != ABSTAIN_MARKER:
            add(m.start(), m.end(), Term("env", m.group(0)))
    for m in _VERSION.finditer(text):
        add(m.start(), m.end(), Term("version", m.group(0)))
    return sorted(found, key=lambda f: f[0])


def claim_terms(claim: str) -> list[Term]:
    """What a cited claim must share with its source: its code spans and the details outside them."""
    terms = [Term("code", s.strip()) for s in _INLINE_CODE.findall(claim) if s.strip()]
    outside = _INLINE_CODE.sub(" ", claim)
    terms += [t for _a, _b, t in find_terms(outside)]
    # `X=1.` at a sentence end: the citation check reads the dot too, so the source must have it as well.
    terms += [Term("env", m.group(0)) for m in _ENV_AS_EVAL.finditer(outside) if m.group(0).endswith(".")]
    return list(dict.fromkeys(terms))


def supported(term: Term, evidence: str) -> bool:
    """Whether the evidence states the term (case-insensitive; versions and numbers as whole tokens)."""
    text = _norm(evidence)
    key = _norm(term.key)
    if term.kind == "pr":
        number = rf"(?<!\d){re.escape(key)}(?!\d)"
        return re.search(("#" if "#" in term.text else "") + number, text) is not None
    if term.kind == "version":
        return re.search(rf"(?<![\w.]){re.escape(key)}(?![\w]|\.\d)", text, re.ASCII) is not None
    return key in text


def backs(claim: str, source: str) -> bool:
    """Whether a source backs a claim: it states every checkable detail of it. An absence claim ("`X` does not
    exist in vLLM V") is backed only by vLLM V's complete list of names of X's kind without X on it
    (`absence.backs_absence`), and its other details must be stated as usual."""
    terms = claim_terms(claim)
    absent = absence_claim(claim)
    if absent is not None:
        if not backs_absence(absent, source):
            return False
        terms = [t for t in terms if t.text.split("=", 1)[0] != absent.name]
    return all(supported(t, source) for t in terms)


def content_words(text: str) -> list[str]:
    """The words grounding is measured on: English words, Chinese character pairs; not the filler of any answer."""
    t = text.lower()
    out = [w for w in _WORD.findall(t) if w not in UNGROUNDED_WORDS]
    for run in _CJK_RUN.findall(t):
        out += [run[i : i + 2] for i in range(len(run) - 1)]
    return out


def _grounding(text: str, evidence: str) -> float:
    """Share of the answer's content words (English words, Chinese character pairs) found in the evidence."""
    mine = content_words(_MARKER.sub(" ", text))
    if not mine:
        return 0.0
    have = set(content_words(evidence))
    return sum(w in have for w in mine) / len(mine)


def _looks_broken(text: str) -> str | None:
    """A reason when the text is not an answer: empty, mostly symbols, a loop, or the prompt echoed."""
    visible = re.sub(r"\s", "", text)
    if len(visible) < 20:
        return "the answer is empty or too short"
    if sum(ch.isalnum() for ch in visible) / len(visible) < 0.5:
        return "the answer is mostly symbols"
    lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) > 15]
    sentences = [s.strip() for s in re.split(r"(?<=[.!?。])\s+", text) if len(s.strip()) > 15]
    for items in (lines, sentences):
        if items and max(items.count(s) for s in items) >= 3:
            return "the answer repeats itself"
    if _PROMPT_ECHO.search(text):
        return "the answer repeats the prompt"
    return None


# --- citations, claim by claim ----------------------------------------------------------------------


@dataclass
class _Marker:
    line: int
    start: int
    end: int
    numbers: list[int]
    claim: str


def _markers(lines: list[str]) -> list[_Marker]:
    """Every citation marker outside code, with the claim it backs (the same reading as the eval's)."""
    out: list[_Marker] = []
    fenced = False
    for i, raw in enumerate(lines):
        if _FENCE.match(raw):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = _mask_code(raw)  # a "[n] Title" line of the model's own is read too: its [n] must map to a source
        found = list(_MARKER.finditer(line))
        if len(found) == 1 and found[0].group(0) == line.strip():
            out.append(_Marker(i, found[0].start(), found[0].end(), _numbers(found[0]), _block_above(lines, i)))
            continue
        start = 0
        for m in found:
            out.append(_Marker(i, m.start(), m.end(), _numbers(m), raw[start : m.start()]))
            start = m.end()
    return out


def _numbers(m: re.Match) -> list[int]:
    return [int(n) for n in m.group(1).split(",")]


def _block_above(lines: list[str], i: int) -> str:
    """What a marker alone on its line backs: the fenced block above (with its lead-in), else the paragraph."""
    block: list[str] = []
    j = i - 1
    in_fence = j >= 0 and _FENCE.match(lines[j]) is not None
    while j >= 0:
        prev = lines[j]
        if in_fence:
            block.insert(0, prev)
            if _FENCE.match(prev) and len(block) > 1:
                in_fence = False
            j -= 1
            continue
        if not prev.strip() or _MARKER.search(_mask_code(prev)):
            break
        block.insert(0, prev)
        j -= 1
    return "\n".join(block)


def _join_adjacent(text: str) -> str:
    """`[1][3]` and `[1] [3]` become `[1, 3]`, so a group of citations is read as one."""
    while True:
        joined = _ADJACENT.sub(lambda m: f"[{m.group(1)}, ", text)
        if joined == text:
            return text
        text = joined


def _apply_markers(lines: list[str], markers: list[_Marker], keep: dict[int, list[int]]) -> list[str]:
    """Rewrite each marker with the numbers kept for it (each as its own [n]), or remove it."""
    lines = list(lines)
    for idx in sorted(range(len(markers)), key=lambda k: (markers[k].line, -markers[k].start)):
        mk = markers[idx]
        numbers = keep.get(idx, [])
        new = " ".join(f"[{n}]" for n in numbers)
        line = lines[mk.line]
        if new:
            lines[mk.line] = line[: mk.start] + new + line[mk.end :]
        else:
            left = line[: mk.start].rstrip(" \t")
            lines[mk.line] = left + line[mk.end :]
    return lines


# --- marking unverified details ---------------------------------------------------------------------


def _code_regions(text: str) -> list[tuple[int, int]]:
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


def mark_unverified(text: str, spans: list[tuple[int, int, Term]], markers: Mapping[Term, str] | None = None) -> str:
    """Mark each unsupported term: after it in prose, after its `code span`, as a comment in a code block.

    The mark is UNVERIFIED unless `markers` gives the term another (e.g. "(does not exist in vLLM 0.33.0)").
    """
    markers = markers or {}
    blocks = _code_regions(text)
    inline = [(m.start(), m.end()) for m in _INLINE_CODE.finditer(text)]
    inserts: dict[int, list[str]] = {}
    for a, b, term in spans:
        block = next(((s, e) for s, e in blocks if s <= a < e), None)
        if block is not None:
            eol = text.find("\n", b)
            eol = block[1] if eol == -1 or eol > block[1] else eol
            inserts.setdefault(eol, []).append(f"  # {term.text} {markers.get(term, UNVERIFIED)}")
            continue
        code = next(((s, e) for s, e in inline if s <= a < e), None)
        inserts.setdefault(code[1] if code else b, []).append(f" {markers.get(term, UNVERIFIED)}")
    out, last = [], 0
    for at in sorted(inserts):
        out += [text[last:at], "".join(dict.fromkeys(inserts[at]))]
        last = at
    out.append(text[last:])
    return "".join(out)


def judge(
    text: str,
    sources: Mapping[int, str],
    question: str,
    cited: tuple[int, ...],
    *,
    detached: int,
    backed: int,
    flagged: int,
    max_unverified: int = 3,
    min_grounding: float = 0.35,
) -> list[str]:
    """Why a whole answer fails (empty when it passes): the checks that need all of it, shared by `verify`
    and the streamed release of an answer part by part (`assistant/answer/gate.py`)."""
    problems: list[str] = []
    broken = _looks_broken(text)
    if broken:
        problems.append(broken)
    if not cited:
        problems.append("the answer cites none of the sources for what it says")
    if flagged > max_unverified:
        problems.append(
            f"{flagged} flags, variables, versions or links appear in none of the cited "
            "sources or do not exist in the user's vLLM release"
        )
    if cited and detached > backed:
        problems.append("most claims are not backed by the sources they cite")
    if cited and not broken and not grounded(text, sources, question, cited, min_grounding):
        problems.append("the answer shares too little with its sources")
    return problems


def grounded(text: str, sources: Mapping[int, str], question: str, cited, min_grounding: float = 0.35) -> bool:
    """Whether `text` shares enough words with its cited sources (restating the question alone is not enough)."""
    sources_only = "\n".join(sources[n] for n in cited)
    evidence = sources_only + "\n" + question
    return _grounding(text, evidence) >= min_grounding and _grounding(text, sources_only) >= min_grounding / 2


# --- the verdict ----------------------------------------------------------------------------------


def verify(
    text: str,
    sources: Mapping[int, str],
    question: str = "",
    *,
    max_unverified: int = 3,
    min_grounding: float = 0.35,
    release_check: ReleaseCheck | None = None,
) -> Verification:
    """Clean and judge a generated answer.

    `sources` maps each source number given to the model to the full text of that source. A cited
    claim keeps only the citations whose source states all its details; other details must appear in
    some cited source or in the question (a user's own flag may be repeated back) or get marked.
    With `release_check`, a flag or env var the user's release has is verified by its source, and one
    it lacks is marked "(does not exist in vLLM X)" whatever the sources say.
    """
    text = strip_reasoning(text)
    if is_abstention(text):
        return Verification(text=text, cited=(), abstained=True, problems=("the model found no answer in the sources",))

    lines = _join_adjacent(text).split("\n")
    markers = _markers(lines)
    removed: list[int] = []
    keep: dict[int, list[int]] = {}
    detached = 0
    listed_absent: set[str] = set()  # names a cited release list shows missing: not to be marked as unverified
    for idx, mk in enumerate(markers):
        valid = [n for n in dict.fromkeys(mk.numbers) if n in sources]
        removed += [n for n in mk.numbers if n not in sources and n not in removed]
        backing = [n for n in valid if backs(mk.claim, sources[n])]
        if valid and not backing:
            detached += 1
        keep[idx] = backing
        absent = absence_claim(mk.claim)
        if backing and absent is not None:
            listed_absent.add(absent.name)
    text = "\n".join(_apply_markers(lines, markers, keep))
    text = re.sub(r"[ \t]+([.,;:!?。，])", r"\1", text)  # "fix it [9]." -> "fix it."
    cited = tuple(dict.fromkeys(n for idx in sorted(keep) for n in keep[idx]))

    evidence = "\n".join(sources[n] for n in cited) + "\n" + question
    spans = [s for s in find_terms(text) if s[2].text.split("=", 1)[0] not in listed_absent]
    bad = [(a, b, t) for a, b, t in spans if not supported(t, evidence)]
    absent_spans: list[tuple[int, int, Term]] = []
    markers: dict[Term, str] = {}
    if release_check is not None:

        def line_of(a: int) -> str:
            end = text.find("\n", a)
            return text[text.rfind("\n", 0, a) + 1 : end if end >= 0 else len(text)]

        verdicts = {(a, b): release_check.verdict(t, line_of(a)) for a, b, t in spans}
        absent_spans = [s for s in spans if verdicts[s[:2]] is False]
        bad = [s for s in bad if verdicts[s[:2]] is None]  # the release's source backs the ones it has
        markers = {t: release_check.marker for _a, _b, t in absent_spans}
    unverified = tuple(dict.fromkeys(t for _a, _b, t in bad))
    absent = tuple(dict.fromkeys(t for _a, _b, t in absent_spans))
    text = mark_unverified(text, bad + absent_spans, markers)

    problems = judge(
        text,
        sources,
        question,
        cited,
        detached=detached,
        backed=len([k for k in keep.values() if k]),
        flagged=len(unverified) + len(absent),
        max_unverified=max_unverified,
        min_grounding=min_grounding,
    )
    return Verification(
        text=text,
        cited=cited,
        removed_citations=tuple(removed),
        detached=detached,
        unverified=unverified,
        absent=absent,
        problems=tuple(problems),
    )
