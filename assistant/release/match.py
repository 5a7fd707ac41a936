"""Find where a pasted error is raised: message templates matched against the paste (pure).

A template's literal parts must appear in the paste in order, with anything (the values the code
filled in) between them; the paste may start or stop inside the message (a cut line). Candidates
come from an inverted index of the templates' words, so a question costs a few dozen alignments,
not ten thousand regular expressions.

Text raised by vLLM's dependencies (CUDA, NCCL, pip, transformers) shares words with vLLM's own
messages but not long literal runs: a match is attributed only when enough literal text matched,
made of enough informative words, and it explains most of the pasted line it sits on.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.release.models import CodeSite
from assistant.text.vocab import WORD_START

_QUOTES = str.maketrans({c: None for c in "`'\"‘’“”"})
_SPACE = re.compile(r"[ \t\r\f\v]+")
_WORD = re.compile(r"[a-z0-9_]{3,}")
_ALNUM = re.compile(r"[a-z0-9]")
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_LOGGED_CODE = re.compile(
    r"^\(?[\w ]*(?:pid=\d+)?\)?\s*(?:ERROR|WARNING|INFO)[^\]]*\]\s{3,}"
)  # a log-prefixed source line

_MIN_SEGMENT = 4  # alphanumeric characters a literal part needs to be matched on its own
_MIN_CUT = 12  # a message cut at the paste's start or end must still share this many characters
_MAX_GAP = 300  # what a placeholder may stand for
_CANDIDATES = 60
_COMMON_DF = 0.05  # words in more than this share of templates do not propose candidates
# Words that occur in any error text; matching only these says nothing about who raised it.
_GENERIC = frozenset(
    [
        "the",
        "and",
        "for",
        "not",
        "are",
        "was",
        "were",
        "with",
        "this",
        "that",
        "from",
        "have",
        "has",
        "been",
        "will",
        "can",
        "cannot",
        "could",
        "should",
        "must",
        "error",
        "errors",
        "failed",
        "failure",
        "exception",
        "invalid",
        "value",
        "values",
        "type",
        "types",
        "none",
        "null",
        "true",
        "false",
        "please",
        "try",
        "use",
        "using",
        "used",
        "set",
        "see",
        "more",
        "details",
        "found",
        "support",
        "supported",
        "unsupported",
        "got",
        "expected",
        "given",
        "when",
        "than",
        "then",
        "only",
        "must",
        "also",
        "into",
        "your",
        "you",
        "which",
        "what",
        "there",
        "their",
        "its",
        # CPython's own messages, which vLLM code re-raises with its values in the holes ("{type(self).__name__}
        # object has no attribute {name}"): "'list' object has no attribute 'zero_'" is Python's, whoever raised it.
        "object",
        "attribute",
        "argument",
        "arguments",
        "positional",
        "keyword",
        "unexpected",
        "module",
        "named",
        "instances",
        "between",
        "callable",
        "iterable",
        "subscriptable",
        "index",
        "range",
        "import",
        "name",
    ]
)
# Thresholds of attribution (see the module docstring); `python -m assistant eval-release` measures them.
MIN_MATCHED_CHARS = 20
MIN_INFORMATIVE_WORDS = 3
MIN_LINE_SHARE = 0.5
# A short message is attributed only when it is the whole pasted line, exactly.
MIN_WHOLE_LINE_CHARS = 15
MIN_WHOLE_LINE_SHARE = 0.9
# What a site's placeholders must carry, at least, for it to be read as relaying another message (`relays`).
MIN_RELAYED_CHARS = 40
# A command-line flag inside a matched message (`--enable-prefix-caching`): the name of what the user passes, which
# their own command line holds too; its words do not make a cut match a message.
_FLAG = re.compile(f"{WORD_START}--[a-z0-9][a-z0-9_-]*")  # "加了--enforce-eager" too
_EXC_HEAD = re.compile(r"([a-z_][\w.]*(?:error|exception|exit|interrupt))\s*:\s*$")


def norm(text: str) -> str:
    """Lower case, quotes and backticks dropped, runs of spaces made one: how pastes and templates differ."""
    return _SPACE.sub(" ", text.translate(_QUOTES).lower())


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text))


def informative(text: str, own: str | None = None) -> int:
    """How specific a matched text is: its non-generic words, an identifier (`max_num_seqs`) counting twice.
    `own`: when given, a word counts only if `own` holds it too. For a site it is the template's literal text: the
    values a paste put in the holes are the user's and say nothing about who raised the message."""
    words = _words(text) - _GENERIC
    if own is not None:
        words &= _words(norm(own))
    return len(words) + sum(1 for w in words if "_" in w.strip("_"))


@dataclass(frozen=True)
class SiteMatch:
    """A raise / log site whose message the paste contains, and how well."""

    site: CodeSite
    score: float
    matched: int  # literal characters of the template found in the paste
    coverage: float  # share of the template's literal characters found
    exact: bool  # every literal part found, in order
    line_share: float  # share of the pasted line(s) the match explains
    frame: bool  # a traceback frame in the paste names this site's file and function
    excerpt: str  # the pasted text the template matched
    other_exception: bool = False  # the paste names another exception type in front of the message

    @property
    def relays(self) -> bool:
        """Whether the site only passes on another message: what its placeholders stand for in the paste is longer
        than its own literal text ("Worker failed with error '<the real error>', please check the stack trace
        above"). The error to explain is the one it carries; the site's condition says nothing about it. A frame of
        the site's own function says it raised the message itself (its values may be long: a config it prints); an
        excerpt over several lines is the paste repeating the message, not a message inside it."""
        carried = len(self.excerpt) - self.matched
        one_line = "\n" not in self.excerpt.strip()  # a relayed message sits inside the site's own line
        return one_line and not self.frame and carried > max(self.matched, MIN_RELAYED_CHARS)

    @property
    def announces(self) -> bool:
        """Whether the site only announces a failure it caught: a `logger.exception(...)` call ("EngineCore encountered
        a fatal error.") prints the real error's traceback after its own line, so its words say that something failed
        and its condition says nothing of why. So does any log line of a function named for an exception, an exception
        handler or the engine's crash dump (`_dump_engine_exception`: "Dumping input data for V1 LLM engine ..."):
        it runs once something else has failed."""
        if self.site.kind != "log":
            return False
        return self.site.exception == "exception" or "exception" in self.site.function.rsplit(".", 1)[-1].lower()

    @property
    def attributed(self) -> bool:
        """Whether the paste can be said to come from this site (not from a dependency sharing some words)."""
        if self.other_exception and not self.frame:
            return False  # `torch.distributed.DistStoreError: Timed out after ...` is not vLLM's timeout
        # a cut match (the paste holds part of the message) made of flags is the user's command line
        excerpt = self.excerpt if self.exact else _FLAG.sub(" ", self.excerpt)
        words = informative(excerpt, own=" ".join(self.site.template.literals))
        if self.exact and self.line_share >= MIN_WHOLE_LINE_SHARE and self.matched >= MIN_WHOLE_LINE_CHARS:
            return words >= MIN_INFORMATIVE_WORDS - 1
        if self.matched < MIN_MATCHED_CHARS or words < MIN_INFORMATIVE_WORDS:
            return False
        return self.exact or self.line_share >= MIN_LINE_SHARE or self.frame


@dataclass(frozen=True)
class _Compiled:
    segments: tuple[str, ...]
    total: int  # literal characters of the segments
    words: frozenset[str]
    lead_hole: bool  # the message starts with a value (`{name} is not supported`)
    trail_hole: bool  # the message ends with a value (`... got {value}`)


def _compile(site: CodeSite) -> _Compiled:
    segs: list[str] = []
    kept: list[bool] = []
    for lit in site.template.literals:
        s = norm(lit).strip()
        kept.append(len(_ALNUM.findall(s)) >= _MIN_SEGMENT)
        if kept[-1]:
            segs.append(s)
    words = frozenset(w for s in segs for w in _WORD.findall(s))
    holes = len(site.template.parts) > 1
    return _Compiled(tuple(segs), sum(len(s) for s in segs), words, holes and not kept[0], holes and not kept[-1])


def _longest(seg: str, hay: str, suffix: bool) -> int:
    """Length of the longest suffix (or prefix) of seg found in hay (binary search: the property is monotone)."""
    lo, hi = 0, len(seg)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        part = seg[-mid:] if suffix else seg[:mid]
        if part in hay:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _starts_message(text: str, pos: int) -> bool:
    """Whether a paste can start a message at pos: only log chrome or an `Error:` header before it on its line."""
    before = text[text.rfind("\n", 0, pos) + 1 : pos].rstrip()
    return not before or not before[-1].isalnum()


def _ends_line(text: str, pos: int) -> bool:
    """Whether the pasted line stops at pos (a cut message): no more ASCII words before the line's end."""
    nl = text.find("\n", pos)
    rest = text[pos : nl if nl >= 0 else len(text)]
    return not re.search(r"[a-z0-9]", rest)


def _cut_prefix(seg: str, window: str) -> tuple[int, int]:
    """(length, position) of the longest prefix of seg that ends a pasted line in window; (0, -1) if none."""
    n = _longest(seg, window, suffix=False)
    while n >= _MIN_CUT:
        at = window.find(seg[:n])
        while at >= 0:
            if _ends_line(window, at + n):
                return n, at
            at = window.find(seg[:n], at + 1)
        n -= 1
    return 0, -1


def align(segments: Sequence[str], text: str) -> tuple[int, int, int, bool]:
    """(matched characters, start, end, exact) of the best in-order placement of the segments in text.

    A message may be cut by the paste: it may start inside the template (right after log chrome or an
    `Error:` header) and stop inside it (at the end of a pasted line). It may not diverge in the
    middle: text that shares a template's opening words and then goes on differently is another message.
    """
    best = (0, -1, -1, False)
    for first in range(min(len(segments), 3)):
        seg = segments[first]
        pos = text.find(seg)
        while pos >= 0 and first > 0 and not _starts_message(text, pos):
            pos = text.find(seg, pos + 1)
        if pos >= 0:
            matched, start, cur = len(seg), pos, pos + len(seg)
        else:  # the paste starts inside this part (suffix) or stops inside it (prefix)
            n_suffix = _longest(seg, text, suffix=True)
            at = text.find(seg[-n_suffix:]) if n_suffix >= _MIN_CUT else -1
            if at >= 0 and not _starts_message(text, at):
                n_suffix, at = 0, -1
            n_prefix, at_prefix = _cut_prefix(seg, text)
            if max(n_suffix, n_prefix) < _MIN_CUT:
                continue
            if n_prefix > n_suffix:  # the paste ends here
                if n_prefix > best[0]:
                    best = (n_prefix, at_prefix, at_prefix + n_prefix, False)
                continue
            matched, start, cur = n_suffix, at, at + n_suffix
        complete = pos >= 0 and first == 0
        for seg in segments[first + 1 :]:
            window = text[cur : cur + _MAX_GAP + len(seg)]
            nxt = window.find(seg)
            if nxt >= 0:
                matched += len(seg)
                cur += nxt + len(seg)
                continue
            complete = False
            n, at = _cut_prefix(seg, window)
            if n:
                matched += n
                cur += at + n
            break
        if matched > best[0]:
            best = (matched, start, cur, complete)
        if complete:
            break
    return best


def _messages(text: str) -> list[str]:
    """The paste without traceback frames and the source lines under them: code is not a message."""
    out, skip = [], False
    for line in text.splitlines():
        if _FRAME.search(line):
            skip = True
            continue
        if skip and line.startswith((" ", "\t")) or skip and _LOGGED_CODE.match(line):
            skip = False
            continue
        skip = False
        out.append(line)
    return out


class SiteMatcher:
    """Template matching over one release's raise and log sites."""

    def __init__(self, sites: Sequence[CodeSite]):
        self.sites = list(sites)
        self._compiled = [_compile(s) for s in self.sites]
        postings: dict[str, list[int]] = defaultdict(list)
        for i, c in enumerate(self._compiled):
            for w in c.words:
                postings[w].append(i)
        n = max(1, len(self.sites))
        self._idf = {w: math.log(1 + n / len(p)) for w, p in postings.items()}
        limit = max(50, int(n * _COMMON_DF))
        self._postings = {w: p for w, p in postings.items() if len(p) <= limit}

    def _candidates(self, words: set[str]) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for w in words:
            for i in self._postings.get(w, ()):
                scores[i] += self._idf[w]
        return sorted(scores, key=lambda i: -scores[i])[:_CANDIDATES]

    def match(self, text: str, limit: int = 5) -> list[SiteMatch]:
        """The sites whose templates the paste contains, best first (attributed or not: see `SiteMatch.attributed`)."""
        lines = [norm(ln).strip() for ln in _messages(text)]
        pasted = "\n".join(lines)
        starts, pos = [], 0
        for ln in lines:
            starts.append(pos)
            pos += len(ln) + 1
        frames = [(p.replace("\\", "/"), f) for p, _l, f in _FRAME.findall(text)]
        out: list[SiteMatch] = []
        for i in self._candidates(_words(pasted)):
            comp, site = self._compiled[i], self.sites[i]
            if not comp.segments:
                continue
            matched, start, end, exact = align(comp.segments, pasted)
            if matched < _MIN_CUT:
                continue
            out.append(self._score(site, comp, matched, start, end, exact, pasted, starts, frames))
        out.sort(key=lambda m: (-m.score, m.site.path, m.site.line))
        return out[:limit]

    @staticmethod
    def _score(site, comp, matched, start, end, exact, pasted, starts, frames) -> SiteMatch:
        # The pasted line(s) the match sits on, without the "SomeError: " in front of the message.
        first = max(i for i, s in enumerate(starts) if s <= start)
        last = max(i for i, s in enumerate(starts) if s <= max(start, end - 1))
        line_start = starts[first]
        line_end = starts[last + 1] - 1 if last + 1 < len(starts) else len(pasted)
        head = pasted[line_start:start]
        exc = site.exception.lower()
        named = _EXC_HEAD.search(head)
        named_exc = named.group(1).rsplit(".", 1)[-1] if named else None
        exc_agrees = named_exc == exc if site.kind == "raise" else exc in head
        # A log line carries no exception header; a raise whose header names another type is another error.
        other = named_exc is not None and (site.kind == "log" or named_exc != exc)
        body_start = line_start + named.end() if named else line_start
        lo = body_start if comp.lead_hole else start  # a value the message starts / ends with is explained too
        hi = line_end if comp.trail_hole and exact else end
        span = max(1, line_end - min(body_start, start))
        line_share = min(1.0, (hi - lo) / span)
        frame = any(p.endswith(site.path) and f == site.function.rsplit(".", 1)[-1] for p, f in frames)
        coverage = matched / comp.total if comp.total else 0.0
        score = matched + 10 * coverage + 15 * exact + 25 * frame + 8 * exc_agrees + 5 * line_share
        return SiteMatch(site, score, matched, coverage, exact, line_share, frame, pasted[start:end], other)
