"""Raise-site eval: does a pasted error find where vLLM raises it, and is text vLLM does not raise left alone?

Systems: the template matcher as answers use it (`ReleaseKnowledge.findings`), and two baselines over
the same sites: BM25 over each site's message, function and path, and dense retrieval (the embedding
model over the same text). Baselines never abstain, as in the main eval.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from assistant.release.knowledge import ReleaseKnowledge
from assistant.release.models import CodeSite


@dataclass(frozen=True)
class Expected:
    path: str
    function: str
    lines: tuple[int, int]

    def hit(self, site: CodeSite) -> bool:
        return (
            site.path == self.path
            and (not self.function or site.function == self.function)
            and self.lines[0] <= site.line <= self.lines[1]
        )


@dataclass(frozen=True)
class Case:
    id: str
    subsystem: str
    query: str
    expected: Expected | None  # None: vLLM does not raise this


def load_cases(path: Path) -> list[Case]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        exp = raw.get("expected")
        expected = Expected(exp["path"], exp.get("function", ""), tuple(exp["lines"])) if exp else None
        out.append(Case(raw["id"], raw["subsystem"], raw["query"], expected))
    return out


Ranker = Callable[[str], CodeSite | None]  # the site a system attributes a paste to, or None


@dataclass(frozen=True)
class Score:
    system: str
    hit_at_1: float  # over the vLLM errors
    hits: int
    positives: int
    attributed_negatives: int  # non-vLLM errors attributed to a vLLM site (must be 0)
    negatives: int
    p50_ms: float
    misses: tuple[str, ...]


def score(system: str, rank: Ranker, cases: Sequence[Case], version: str) -> Score:
    hits, wrong_neg, times, misses = 0, 0, [], []
    for case in cases:
        started = time.perf_counter()
        site = rank(case.query)
        times.append((time.perf_counter() - started) * 1000)
        if case.expected is None:
            if site is not None:
                wrong_neg += 1
                misses.append(f"{case.id} -> {site.path}:{site.line}")
        elif site is not None and site.release == version and case.expected.hit(site):
            hits += 1
        else:
            misses.append(f"{case.id} -> {f'{site.path}:{site.line} {site.function}' if site else 'nothing'}")
    positives = sum(1 for c in cases if c.expected is not None)
    times.sort()
    return Score(
        system,
        hits / positives if positives else 0.0,
        hits,
        positives,
        wrong_neg,
        len(cases) - positives,
        times[len(times) // 2] if times else 0.0,
        tuple(misses),
    )


def matcher_ranker(knowledge: ReleaseKnowledge, version: str) -> Ranker:
    def rank(text: str) -> CodeSite | None:
        found = knowledge.findings(text, version=version)
        return found.sites[0].site if found.sites else None

    return rank


def site_text(site: CodeSite) -> str:
    return f"{site.exception}: {site.template.render()}\n{site.function} {site.path}"


def bm25_ranker(sites: Sequence[CodeSite]) -> Ranker:
    import bm25s
    import numpy as np

    from assistant.text.tokenize import tokenize

    retriever = bm25s.BM25()
    retriever.index([tokenize(site_text(s)) for s in sites], show_progress=False)

    def rank(text: str) -> CodeSite | None:
        tokens = tokenize(text)
        if not tokens:
            return None
        scores = retriever.get_scores(tokens)
        best = int(np.argmax(scores))
        return sites[best] if scores[best] > 0 else None

    return rank


def dense_ranker(sites: Sequence[CodeSite], embed: Callable[[list[str]], object]) -> Ranker:
    import numpy as np

    # The first 300 characters: the embedding model reads ~256 word pieces, and it keeps a CPU run to minutes.
    matrix = np.asarray(embed([site_text(s)[:300] for s in sites]), dtype=np.float32)

    def rank(text: str) -> CodeSite | None:
        vec = np.asarray(embed([text]), dtype=np.float32)[0]
        return sites[int(np.argmax(matrix @ vec))]

    return rank


def render(scores: Sequence[Score], version: str, n_sites: int, command: str) -> str:
    lines = [
        "# Raise-site eval",
        "",
        (
            f"`{command}` — pasted errors from eval/release/raise_sites.jsonl against vLLM {version}'s source "
            f"({n_sites} raise / log sites). Expected sites were chosen by reading the 0.33.0 source. Generated."
        ),
        "",
        "| system | raise-site hit@1 | hits | non-vLLM errors attributed | p50 ms |",
        "|---|---|---|---|---|",
    ]
    for s in scores:
        lines.append(
            f"| {s.system} | {s.hit_at_1:.3f} | {s.hits}/{s.positives} | "
            f"{s.attributed_negatives}/{s.negatives} | {s.p50_ms:.1f} |"
        )
    lines += ["", "Misses (case -> what the system picked):", ""]
    for s in scores:
        for m in s.misses:
            lines.append(f"- {s.system}: {m}")
    return "\n".join(lines) + "\n"
