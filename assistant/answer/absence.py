"""Absence claims ("`VLLM_MAGIC` does not exist in vLLM 0.33.0") and the only source that can back one (pure).

A source backs a claim by stating its details; nothing states that a name is missing. What can back an absence
claim is the release's complete list of names of that kind, with the name not on it: every env var `vllm/envs.py`
defines, or every flag the engine and `vllm serve` parsers accept (with the `--no-x` form of a boolean `--x`). The
answer cites that list (`NamesList`, a code fact of the release's source), and the checks read it back from the
cited text: the verifier here, the eval independently (`assistant/eval/metrics.py`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from assistant.text.commands import canonical_flag
from assistant.text.vocab import ENV_NAME, FLAG, RELEASE_TAG

NameKind = Literal["env", "flag"]
_WHAT = {"env": "env var vLLM {release} reads", "flag": "flag vLLM {release}'s engine and `vllm serve` accept"}
_HEADER = re.compile(
    rf"^Every (?:env var vLLM (?P<env>{RELEASE_TAG}) reads|flag vLLM (?P<flag>{RELEASE_TAG})'s engine and "
    r"`vllm serve` accept) \((?P<count>\d+) names\):$",
    re.MULTILINE,
)
_NAME = {"env": re.compile(r"[A-Za-z_][A-Za-z0-9_]*"), "flag": re.compile(r"-{1,2}[A-Za-z0-9][\w.\-]*")}
_NAME_ANY = re.compile(rf"{ENV_NAME}|{FLAG}")
# The sentence the code facts write (`code_facts.LABELS["absent"]`), in each language; one release a claim. Found
# by its fixed words, the name then read next to them: no pattern starts at every character of a long claim.
_EN = re.compile(rf" does not exist in vLLM ({RELEASE_TAG})(?![\w.]*\w)")
_ZH = re.compile(rf"vLLM ({RELEASE_TAG}) 中不存在 ?`?")


def name_kind(name: str) -> NameKind:
    return "flag" if name.startswith("--") else "env"


def names_list_title(release: str, kind: NameKind) -> str:
    return "Every " + _WHAT[kind].format(release=release)


@dataclass(frozen=True)
class NamesList:
    """Every name of one kind a release defines: the source an absence claim cites."""

    release: str
    kind: NameKind
    names: frozenset[str]

    def render(self) -> str:
        """The list as the cited source's text: a header with the count, then one name a line."""
        head = f"{names_list_title(self.release, self.kind)} ({len(self.names)} names):"
        return "\n".join([head, *sorted(self.names)])

    def has(self, name: str) -> bool:
        return canonical_flag(name) in self.names

    def closest(self, name: str) -> str | None:
        """The one name on the list that `name` misspells (`--enable-expert-paralle`, `VLLM_ATTENTION_BACKEN`): within
        two edits of it, and no other as near; None for a short name (two edits turn `--tp` into many flags)."""
        name = canonical_flag(name)
        if len(name) < _MIN_TYPO_LEN or self.has(name):
            return None
        near = difflib.get_close_matches(name, self.names, n=3, cutoff=0.8)
        by_distance = sorted((edit_distance(name, other), other) for other in near)
        by_distance = [(d, other) for d, other in by_distance if d <= _MAX_TYPO_EDITS]
        if not by_distance or (len(by_distance) > 1 and by_distance[1][0] == by_distance[0][0]):
            return None
        return by_distance[0][1]


_MIN_TYPO_LEN = 10
_MAX_TYPO_EDITS = 2


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: the fewest insertions, deletions and substitutions that turn `a` into `b`."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def parse_names_list(text: str) -> NamesList | None:
    """The list a source's text holds (`NamesList.render`), or None: the header must be followed by exactly the
    number of names it announces, each a name of its kind, so a partial or quoted list is no list."""
    m = _HEADER.search(text)
    if m is None:
        return None
    kind: NameKind = "env" if m.group("env") else "flag"
    count = int(m.group("count"))
    lines = text[m.end() + 1 :].split("\n", count)[:count]
    if len(lines) != count or not all(_NAME[kind].fullmatch(ln) for ln in lines):
        return None
    return NamesList(m.group(kind), kind, frozenset(lines))


@dataclass(frozen=True)
class Absence:
    name: str
    release: str

    @property
    def kind(self) -> NameKind:
        return name_kind(self.name)


def absence_claim(claim: str) -> Absence | None:
    """The name and release a claim says the name is missing from; None when the claim says something else."""
    for m in _EN.finditer(claim):
        before = claim[max(0, m.start() - 200) : m.start()].rsplit(None, 1)  # a name is shorter than that
        name = before[-1].strip("`") if before and claim[m.start() - 1 : m.start()] != " " else ""
        if _NAME_ANY.fullmatch(name):
            return Absence(name, m.group(1))
    for m in _ZH.finditer(claim):
        name = _NAME_ANY.match(claim, m.end())
        if name:
            return Absence(name.group(0), m.group(1))
    return None


def backs_absence(absence: Absence, source_text: str) -> bool:
    """Whether a source backs an absence claim: it is the claimed release's complete list of names of that kind,
    and the name is not on it. Any other source (a page that merely does not mention the name) does not."""
    found = parse_names_list(source_text)
    return (
        found is not None
        and found.release == absence.release
        and found.kind == absence.kind
        and not found.has(absence.name)
    )
