"""Eval metrics: small pure functions (the retrieval metrics are checked against ranx in the tests).

Definitions (also in eval/README.md):
- relevance: a hit is relevant when its chunk id is a label (curated entries), or its `source` equals a
  label (`docs/<path>.md#anchor`; every part `~2`, `~3` of a long section shares its source), or the
  label names a page (no `#`) and the source is on that page. Several parts of one relevant section
  count once, at the first one's rank.
- key-fact recall: share of an answerable item's `key_facts` regexes found (case-insensitive) in the
  answer text; an abstention scores 0.
- citation validity: see `check_citations`.
- abstention: the positive class is "abstain"; precision and recall over negatives (should abstain)
  plus answerable items (should answer).
- wrong fix: a near-miss answer that is not an abstention, cites the `near` entry as [1] and states
  one of its `forbidden_facts`.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from assistant.models import Chunk

# Each metric by its name here and in ranx, the reference implementation the tests compare against.
RETRIEVAL_METRICS = {"hit@1": "hit_rate@1", "hit@3": "hit_rate@3", "mrr@10": "mrr@10", "ndcg@10": "ndcg@10"}


# --------------------------------------------------------------------------- retrieval


def label_key(chunk: Chunk, labels: set[str]) -> str:
    """The label `chunk` satisfies (its id, its section's source, or its page), else its id."""
    page = chunk.source.split("#", 1)[0]
    return next((k for k in (chunk.id, chunk.source, page) if k in labels), chunk.id)


def judged_ids(chunks: Sequence[Chunk], labels: Iterable[str]) -> list[str]:
    """The ranked list as the labels see it: each chunk mapped to the label it satisfies (else its id), deduped."""
    labels = set(labels)
    return list(dict.fromkeys(label_key(chunk, labels) for chunk in chunks))


def first_label_figures(chunks: Sequence[Chunk], labels: Iterable[str]) -> tuple[float, float, float]:
    """(reciprocal rank in the top 10, hit@1, hit@3) of the first chunk a label names, in `chunks`' order: what the
    fitting scripts (eval/fit_fusion.py, `kind_priors`) score one question by without ranx."""
    relevant = set(labels)
    judged = judged_ids(chunks, relevant)
    first = next((i for i, cid in enumerate(judged) if cid in relevant), None)
    rr = 0.0 if first is None or first >= 10 else 1.0 / (first + 1)
    return rr, float(first == 0), float(first is not None and first < 3)


def retrieval_scores(
    relevant: Mapping[str, Sequence[str]], ranked: Mapping[str, Sequence[str]]
) -> dict[str, dict[str, float]]:
    """Per-query hit@1, hit@3, MRR@10 and nDCG@10 with binary relevance, in the system's order.

    `relevant`: query id -> relevant ids; `ranked`: query id -> ids in rank order (see `judged_ids`).
    These are the TREC definitions ranx implements (hit_rate@k, mrr@k, ndcg@k); they are computed here in plain
    Python because the eval once reported hit@1 0.000 for every query through ranx's numba kernels (with an
    "unsafe cast uint64 -> int64" warning), a silent corruption of the gate. tests/eval/test_metrics.py checks
    these figures against ranx over random rankings, so the definitions cannot drift from the library's.
    """
    scores: dict[str, dict[str, float]] = {}
    for q in sorted(relevant):
        labels = set(relevant[q])
        docs = list(dict.fromkeys(ranked.get(q, ())))[:10]
        ranks = [i for i, doc in enumerate(docs) if doc in labels]
        dcg = sum(1.0 / math.log2(i + 2) for i in ranks)
        ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(labels), 10)))
        scores[q] = {
            "hit@1": float(bool(ranks) and ranks[0] == 0),
            "hit@3": float(bool(ranks) and ranks[0] < 3),
            "mrr@10": 1.0 / (ranks[0] + 1) if ranks else 0.0,
            "ndcg@10": dcg / ideal if ideal else 0.0,
        }
    return scores


# --------------------------------------------------------------------------- answers


def fact_hits(text: str, patterns: Sequence[str]) -> list[bool]:
    return [re.search(p, text, re.IGNORECASE) is not None for p in patterns]


def key_fact_recall(text: str, abstained: bool, patterns: Sequence[str]) -> float:
    """Share of the key-fact regexes found in the answer; an abstention on an answerable question scores 0."""
    if abstained or not patterns:
        return 0.0
    found = fact_hits(text, patterns)
    return sum(found) / len(found)


# What a claim must share with the source it cites: the specific, checkable tokens of the claim.
# These patterns copy the domain vocabulary of `assistant/text/vocab.py` ON PURPOSE: the grader must not share
# the graded code (the retriever and the LLM answer verifier use vocab.py), or a mistake there would grade itself
# as right. Change them here only to grade differently, never to follow a change in vocab.py.
_BACKTICK = re.compile(r"`([^`\n]+)`")
# An env var's value stops at Markdown emphasis too: `**... VLLM_X=spawn**` claims `VLLM_X=spawn`, not `spawn**`.
# ASCII boundaries, and a value that stops at Chinese text, as `verify` reads them ("设置VLLM_X=1即可").
_ENV_VAR = re.compile(
    r"(?<![\w-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
    r"(?:=[^\s`'\",;)\]*\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]+)?",
    re.ASCII,
)
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*", re.ASCII)
_ISSUE = re.compile(r"#\d{3,}")
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.]*\w)", re.ASCII)
_MARKER = re.compile(r"(?<![\w\])])\[(\d+)\](?![(\[])", re.ASCII)  # not `x[0]`, not a Markdown link; "版本[1]" is
_SOURCE_LINE = re.compile(r"^\[(\d+)\]\s+\S")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")


# An absence claim: "`X` does not exist in vLLM V" (Chinese: "vLLM V 中不存在 `X`"), one release a claim; found by
# its fixed words, the name read next to them (no pattern tried at every character of a long claim).
_RELEASE = r"v?(\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?)(?![\w.]*\w)"
_ABSENT_EN = re.compile(rf" does not exist in vLLM {_RELEASE}")
_ABSENT_ZH = re.compile(rf"vLLM {_RELEASE} 中不存在 ?`?")
_ABSENT_NAME = re.compile(r"--?[A-Za-z0-9][\w.-]*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def absence_claim(claim: str) -> tuple[str, str] | None:
    """(name, release) when the claim says the name does not exist in that vLLM release."""
    for m in _ABSENT_EN.finditer(claim):
        words = claim[max(0, m.start() - 200) : m.start()].split(" ")
        name = _ABSENT_NAME.fullmatch(words[-1].strip("`"))
        if name:
            return name.group(0), m.group(1)
    for m in _ABSENT_ZH.finditer(claim):
        name = _ABSENT_NAME.match(claim, m.end())
        if name:
            return name.group(0), m.group(1)
    return None


def absence_problem(name: str, release: str, chunk: Chunk) -> str | None:
    """Why a cited chunk does not back "`name` does not exist in vLLM `release`" (None when it does): only the
    release's complete list of names of that kind can (`data`: `names_of`, `release`, `names`), and only when the
    name, as vLLM's parser spells it, is not on it. A page that merely does not mention the name backs nothing."""
    kind = "flag" if name.startswith("-") else "env"
    if chunk.data.get("names_of") != kind or chunk.data.get("release") != release:
        return f"not vLLM {release}'s complete list of {kind} names, which an absence claim needs"
    head, dot, rest = name[2:].partition(".")
    spelled = "--" + head.replace("_", "-") + dot + rest if name.startswith("--") else name
    if name in chunk.data.get("names", ()) or spelled in chunk.data.get("names", ()):
        return f"{name} is on vLLM {release}'s list of {kind} names: the absence claim is wrong"
    return None


def claim_terms(claim: str) -> list[str]:
    """The backticked spans, env vars, flags, issue/PR numbers and versions a claim states."""
    terms = [t.strip() for t in _BACKTICK.findall(claim)]
    outside = _BACKTICK.sub(" ", claim)
    for rx in (_ENV_VAR, _FLAG, _ISSUE, _VERSION):
        terms += rx.findall(outside)
    return [t for t in dict.fromkeys(terms) if t]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).lower()


@dataclass(frozen=True)
class Claim:
    n: int
    text: str
    reference: bool = False  # a line of the Sources list: only the mapping is checked


def split_claims(answer_text: str) -> list[Claim]:
    """Each [n] marker with the claim it backs.

    - `[n] Title — source` at the start of a line is a Sources-list entry (a reference, not a claim);
    - `[n]` alone on a line backs the block right above it (a whole fenced code block, else the
      lines up to the previous blank line or marker);
    - otherwise the claim is the text on the same line between the previous marker (or the line's
      start) and this marker.
    """
    claims: list[Claim] = []
    lines = answer_text.split("\n")
    fenced = False
    for i, raw in enumerate(lines):
        if _FENCE_LINE.match(raw):
            fenced = not fenced
            continue
        if fenced:  # quoted code: `outputs[0]` there is not a citation
            continue
        line = _BACKTICK.sub(lambda m: "`" + "x" * (len(m.group()) - 2) + "`", raw)  # same offsets, no markers
        if _SOURCE_LINE.match(line):
            m = _MARKER.match(line)
            claims.append(Claim(int(m.group(1)), raw, reference=True))
            rest = line[m.end() :]
            claims += [Claim(int(x.group(1)), "", reference=True) for x in _MARKER.finditer(rest)]
            continue
        if _MARKER.fullmatch(line.strip()):
            block: list[str] = []
            j = i - 1
            in_fence = j >= 0 and _FENCE_LINE.match(lines[j]) is not None
            while j >= 0:
                prev = lines[j]
                if in_fence:
                    block.insert(0, prev)
                    if _FENCE_LINE.match(prev) and len(block) > 1:
                        in_fence = False  # reached the opening fence: keep the paragraph that introduces it
                    j -= 1
                    continue
                if not prev.strip() or _MARKER.search(prev):
                    break
                block.insert(0, prev)
                j -= 1
            claims.append(Claim(int(_MARKER.search(line).group(1)), "\n".join(block)))
            continue
        start = 0
        for m in _MARKER.finditer(line):
            claims.append(Claim(int(m.group(1)), raw[start : m.start()]))
            start = m.end()
    return claims


@dataclass(frozen=True)
class CitationCheck:
    valid: bool
    markers: int
    problems: tuple[str, ...] = ()


def check_citations(answer_text: str, cited: Mapping[int, Chunk | None]) -> CitationCheck:
    """Citation validity of one (non-abstained) answer.

    Valid when the answer has at least one [n]; every [n] is the number of a returned citation
    (`cited` maps n -> the cited chunk); and every checkable term of each claim (`claim_terms`: its
    backticked spans, env vars, flags, #issue numbers, versions) appears, case-insensitively, in the
    text of the chunk its marker cites. A claim with no checkable term passes the support check:
    the test is mechanical and precise, not a judge of paraphrase. An absence claim ("`X` does not
    exist in vLLM V") is supported only by vLLM V's complete list of names of X's kind without X
    on it (`absence_problem`); its other terms are checked as usual.
    """
    claims = split_claims(answer_text)
    problems: list[str] = []
    if not claims:
        problems.append("no [n] citation marker in the answer")
    texts: dict[int, str] = {}
    for claim in claims:
        if claim.n not in cited:
            problems.append(f"[{claim.n}] does not map to a returned citation")
            continue
        chunk = cited[claim.n]
        if chunk is None:
            problems.append(f"[{claim.n}] cites a chunk that is not in the index")
            continue
        if claim.reference:
            continue
        terms = claim_terms(claim.text)
        absent = absence_claim(claim.text)
        if absent is not None:  # the name is not in the source: checked against the release's list instead
            problem = absence_problem(*absent, chunk)
            if problem:
                problems.append(f"[{claim.n}] {chunk.id}: {problem}")
                continue
            terms = [t for t in terms if t != absent[0]]
        text = texts.setdefault(claim.n, _norm(chunk.full_text()))
        missing = [t for t in terms if _norm(t) not in text]
        if missing:
            problems.append(f"[{claim.n}] {chunk.id}: claim terms not in the source: {', '.join(missing)}")
    return CitationCheck(valid=not problems, markers=len(claims), problems=tuple(dict.fromkeys(problems)))


def is_wrong_fix(text: str, abstained: bool, first_citation: str | None, near: str, forbidden: Sequence[str]) -> bool:
    """A near-miss answered with the fix of the entry it only resembles."""
    return (not abstained) and first_citation == near and any(fact_hits(text, forbidden))


@dataclass(frozen=True)
class Abstention:
    tp: int  # should abstain, abstained
    fp: int  # should answer, abstained
    fn: int  # should abstain, answered
    tn: int  # should answer, answered

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def accuracy(self) -> float:
        total = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / total if total else 1.0


def abstention(outcomes: Iterable[tuple[bool, bool]]) -> Abstention:
    """From (should_abstain, abstained) pairs."""
    tp = fp = fn = tn = 0
    for should, did in outcomes:
        if should and did:
            tp += 1
        elif did:
            fp += 1
        elif should:
            fn += 1
        else:
            tn += 1
    return Abstention(tp, fp, fn, tn)


def percentile(values: Sequence[float], q: float) -> float:
    """Inclusive linear-interpolation percentile (q in 0..100)."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    return float(statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]) if q < 100 else float(max(values))


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


@dataclass
class Row:
    """One line of the results table: a system on a set (or on everything, `set == 'all'`)."""

    set: str
    system: str
    n: int
    metrics: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "set": self.set,
            "system": self.system,
            "n": self.n,
            **{k: _json_num(v) for k, v in self.metrics.items()},
        }


def _json_num(v: float) -> float | None:
    return None if math.isnan(v) else round(v, 4)  # NaN -> null
