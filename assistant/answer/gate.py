"""Releasing a streamed LLM answer part by part, each part only once it is verified (pure; no model, no I/O).

A stream that forwards the model's tokens puts whatever the model invents (`--enable-magic-fix`,
`VLLM_MAGIC_FIX=1`, "PR #99999") on the wire before any check has run, and a client that prints the
deltas shows it, whatever the final answer says. So the text is cut into parts (a sentence, a line, a
whole fenced block, with the citation markers that follow it), and a part is released only when the
reading of `verify` holds for it: every citation maps to a source that states the claim's details,
every flag, env var, version, PR number and URL is stated by a cited source or the question (or, with
a `ReleaseCheck`, exists in the user's release), and its words are grounded in the cited sources.

A part whose details are not (yet) backed is held: a later part may cite the source that states them,
as in the whole-answer reading, where the evidence is every source the answer cites. A part that names
a flag or env var the user's release lacks, echoes the prompt, or is still unbacked after `max_held`
parts or at the end fails the answer: nothing more is released and the caller switches to the
extractive answer. At the end, the checks that need the whole answer (`verify.judge`) run on what was
released.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from assistant.answer.verify import (
    _FENCE,
    _MARKER,
    _PROMPT_ECHO,
    _SOURCES_HEADING,
    ReleaseCheck,
    Term,
    Verification,
    _apply_markers,
    _join_adjacent,
    _markers,
    backs,
    content_words,
    find_terms,
    grounded,
    is_abstention,
    judge,
    supported,
)

_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")
_NOT_AN_END = re.compile(r"(?:\b(?:e\.g|i\.e|vs|etc|cf|approx|no)|^\s*\d{1,3}|^\s*[-*]\s+\d{1,3})$", re.IGNORECASE)
_MARKERS_AHEAD = re.compile(r"[ \t]*(?:\[\d{1,6}(?:\s*,\s*\d{1,6})*\][ \t]*)+[.,;:!?。，]?")
_PARTIAL_MARKER = re.compile(r"[ \t]*(?:\[\d{1,6}(?:\s*,\s*\d{1,6})*\][ \t]*)*\[[\d,\s]*$")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:!?。，])")
_KIND = {"flag": "flag", "env": "variable", "version": "version", "pr": "PR number", "url": "link", "code": "code span"}


class PartSplitter:
    """Cuts a stream of deltas into parts: sentences and lines, a fenced block whole, each with the `[n]` after it.

    `"".join(parts)` is exactly the text fed: nothing is dropped or added, only grouped.
    """

    def __init__(self) -> None:
        self._buf = ""

    def feed(self, delta: str) -> list[str]:
        self._buf += delta
        parts = []
        while (cut := self._cut(final=False)) is not None:
            parts.append(self._buf[:cut])
            self._buf = self._buf[cut:]
        return parts

    def flush(self) -> list[str]:
        parts = []
        while self._buf and (cut := self._cut(final=True)) is not None:
            parts.append(self._buf[:cut])
            self._buf = self._buf[cut:]
        if self._buf:
            parts.append(self._buf)
            self._buf = ""
        return parts

    def _cut(self, final: bool) -> int | None:
        """Where the first complete part of the buffer ends; None while it may still grow."""
        buf = self._buf
        first_line = buf.split("\n", 1)[0]
        if _FENCE.match(first_line) or (not final and "\n" not in buf and re.fullmatch(r"\s*(`{1,2}|~{1,2})", buf)):
            return self._fenced_end(buf, final)
        pos, ticks = 0, 0
        while pos < len(buf):
            ch = buf[pos]
            if ch == "`":
                ticks += 1
            elif ch == "\n":
                return self._with_markers(buf, pos + 1, final)
            elif ticks % 2 == 0 and (m := _SENTENCE_END.match(buf, pos)) and not _NOT_AN_END.search(buf[:pos]):
                end = m.end()
                while end < len(buf) and buf[end] in " \t":
                    end += 1
                if end < len(buf) and buf[end] == "\n":
                    end += 1
                return self._with_markers(buf, end, final)
            pos += 1
        return None

    def _fenced_end(self, buf: str, final: bool) -> int | None:
        lines = buf.splitlines(keepends=True)
        at = len(lines[0])
        for line in lines[1:]:
            at += len(line)
            if _FENCE.match(line) and line.endswith("\n"):
                return self._with_markers(buf, at, final)
        return len(buf) if final else None

    def _with_markers(self, buf: str, end: int, final: bool) -> int | None:
        """Extend the cut over citation markers that follow it ("… it. [1]"), which belong to this part."""
        rest = buf[end:]
        if not final and (not rest.strip(" \t") or _PARTIAL_MARKER.fullmatch(rest)):
            return None  # a marker may follow
        m = _MARKERS_AHEAD.match(rest)
        if m is None:
            return end
        end += m.end()
        while end < len(buf) and buf[end] in " \t":
            end += 1
        if end < len(buf) and buf[end] == "\n":
            end += 1
        elif end == len(buf) and not final:
            return None
        return end


@dataclass
class _Held:
    text: str
    reason: str = ""


@dataclass
class StreamGate:
    """Feed the model's deltas; get back the text that may be shown. `failure` says why the rest is withheld."""

    sources: Mapping[int, str]  # source n -> everything it says
    question: str = ""
    release_check: ReleaseCheck | None = None
    max_held: int = 3
    min_grounding: float = 0.35
    max_unverified: int = 3

    failure: str | None = None  # why the answer was abandoned; nothing is released after it
    abstained: bool = False
    released: list[str] = field(default_factory=list)
    withheld: list[Term] = field(default_factory=list)  # the details that kept a part back, for the log
    _split: PartSplitter = field(default_factory=PartSplitter)
    _raw: str = ""  # the model's text read so far (markers joined), on which claims are read as `verify` reads them
    _held: list[_Held] = field(default_factory=list)
    _cited: list[int] = field(default_factory=list)
    _removed: list[int] = field(default_factory=list)
    _detached: int = 0
    _backed: int = 0
    _ended: bool = False  # the model began its own source list: the rest is not the answer

    @property
    def open(self) -> bool:
        """Whether more text may still be released."""
        return self.failure is None and not self.abstained and not self._ended

    def feed(self, delta: str) -> list[str]:
        """The parts released by this delta (often none: a part is released when it is complete and checked)."""
        out: list[str] = []
        for part in self._split.feed(delta):
            if not self.open:
                break
            out += self._offer(part)
        return out

    def close(self) -> tuple[list[str], Verification]:
        """Release what the end of the stream completes, and judge the whole released answer."""
        out: list[str] = []
        for part in self._split.flush():
            if not self.open:
                break
            out += self._offer(part)
        if self.open and self._held:
            self.failure = self._held[0].reason
        text = "".join(self.released).strip()
        cited = tuple(self._cited)
        if self.abstained:
            problems = ["the model found no answer in the sources"]
        elif self.failure:
            problems = [self.failure]
        else:
            problems = judge(
                text,
                self.sources,
                self.question,
                cited,
                detached=self._detached,
                backed=self._backed,
                flagged=0,
                max_unverified=self.max_unverified,
                min_grounding=self.min_grounding,
            )
        verdict = Verification(
            text=text,
            cited=cited,
            removed_citations=tuple(self._removed),
            detached=self._detached,
            abstained=self.abstained,
            problems=tuple(problems),
        )
        return out, verdict

    # --- one part -----------------------------------------------------------------------------------

    def _offer(self, raw_part: str) -> list[str]:
        part = _join_adjacent(raw_part)
        if not self.released and not self._held and not self._raw.strip() and is_abstention(part):
            self.abstained = True
            return []
        if self._raw.strip() and _SOURCES_HEADING.match(part.split("\n", 1)[0]):
            self._ended = True
            return self._release_held_at_end()
        if _PROMPT_ECHO.search(part):
            self.failure = "the answer repeats the prompt"
            return []
        self._held.append(_Held(self._cite(part)))
        return self._try_release()

    def _cite(self, part: str) -> str:
        """The part with each of its citations kept only where the source states the claim's details."""
        before = self._raw
        full = before + part
        lines = full.split("\n")
        start_line = before.count("\n")
        start_col = len(before) - (before.rfind("\n") + 1)
        mine = [
            mk for mk in _markers(lines) if mk.line > start_line or (mk.line == start_line and mk.start >= start_col)
        ]
        keep: dict[int, list[int]] = {}
        for idx, mk in enumerate(mine):
            valid = [n for n in dict.fromkeys(mk.numbers) if n in self.sources]
            self._removed += [n for n in mk.numbers if n not in self.sources and n not in self._removed]
            backing = [n for n in valid if backs(mk.claim, self.sources[n])]
            if valid and not backing:
                self._detached += 1
            if backing:
                self._backed += 1
            keep[idx] = backing
            self._cited += [n for n in backing if n not in self._cited]
        self._raw = full
        rewritten = "\n".join(_apply_markers(lines, mine, keep))
        return _SPACE_BEFORE_PUNCT.sub(r"\1", rewritten[len(before) :])

    def _try_release(self) -> list[str]:
        block = "".join(h.text for h in self._held)
        reason = self._unbacked(block)
        if reason is None:
            out = [h.text for h in self._held]
            self.released += out
            self._held = []
            return out
        if reason.startswith("!"):  # a flag or env var the user's release does not have: no later part can back it
            self.failure = reason[1:]
            return []
        self._held[-1].reason = self._held[0].reason or reason
        if len(self._held) > self.max_held:
            self.failure = self._held[0].reason
        return []

    def _release_held_at_end(self) -> list[str]:
        if not self._held:
            return []
        reason = self._unbacked("".join(h.text for h in self._held))
        if reason is None:
            return self._try_release()
        self.failure = reason.lstrip("!")
        return []

    def _unbacked(self, block: str) -> str | None:
        """Why `block` may not be shown yet (None: it may); "!" first when no later part can change that."""
        evidence = "\n".join(self.sources[n] for n in self._cited) + "\n" + self.question
        for a, _b, term in find_terms(block):
            verdict = self._verdict(term, block, a)
            # The reason goes to the user, so it names no term: an invented name is what must not reach them.
            if verdict is False:
                self.withheld.append(term)
                return f"!a {_KIND[term.kind]} it names does not exist in vLLM {self.release_check.release}"  # type: ignore[union-attr]
            if verdict is None and not supported(term, evidence):
                self.withheld.append(term)
                return f"a {_KIND[term.kind]} it names appears in none of the cited sources"
        # Grounding as `verify` reads it, over the answer so far: one short sentence may share few words.
        so_far = "".join(self.released) + block
        if _has_words(block) and not grounded(so_far, self.sources, self.question, self._cited, self.min_grounding):
            return "the answer shares too little with its sources"
        return None

    def _verdict(self, term: Term, text: str, at: int) -> bool | None:
        if self.release_check is None:
            return None
        end = text.find("\n", at)
        line = text[text.rfind("\n", 0, at) + 1 : end if end >= 0 else len(text)]
        return self.release_check.verdict(term, line)


def _has_words(text: str) -> bool:
    return bool(content_words(_MARKER.sub(" ", text)))
