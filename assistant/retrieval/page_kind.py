"""What kind of page a chunk comes from, read off where it sits in vLLM's docs tree (pure).

The top hit is often a page that shares the user's command rather than their problem: a third-party integration
page, an example, a design note. Whether a page of some kind tends to answer a troubleshooting question is
learned (`eval/fit_kind_priors.py` fits one prior per kind on the fitting split; `Settings.page_kind_priors`);
this module names the kind, by one rule taken from the layout of vLLM's `docs/` folder, and applies the priors
(`pages_reordered`: among docs sections only, so a prior never moves a page past a curated entry):

1. A chunk that is not a docs section is its own kind: a curated `entry`, a `qa` of a page, an `issue`.
2. A page whose file name says it is about problems (`troubleshooting`, `faq`) is `troubleshooting`, wherever
   it sits (`usage/troubleshooting.md`, `serving/distributed_troubleshooting.md`).
3. A page under a folder of third-party software (`frameworks/`, `integrations/`: `deployment/frameworks/`,
   `deployment/integrations/`, `serving/integrations/`) is `integration`; under `examples/`, `example`.
4. Otherwise the docs tree's top folder names the kind (`TOP_FOLDERS`): `design/` -> design, `features/` ->
   feature, `configuration/` -> configuration, `cli/` and `api/` -> reference, `contributing/`,
   `governance/` and `community/` -> contributing (how the project is run), and so on.
5. Anything else (a page at the root, a folder the layout does not have) is `doc`.

No page is named one by one: a new page gets its folder's kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from assistant.models import Chunk

# The docs tree's top folders (vLLM 0.33.0's `docs/`) and the kind each holds.
TOP_FOLDERS: dict[str, str] = {
    "design": "design",
    "features": "feature",
    "configuration": "configuration",
    "cli": "reference",
    "api": "reference",
    "contributing": "contributing",
    "governance": "contributing",
    "community": "contributing",
    "getting_started": "getting_started",
    "models": "models",
    "serving": "serving",
    "deployment": "deployment",
    "training": "training",
    "benchmarking": "benchmarking",
    "usage": "usage",
    "examples": "example",
}
_PROBLEM_PAGES = ("troubleshooting", "faq")  # a file name with one of these is about problems
_THIRD_PARTY = frozenset({"frameworks", "integrations"})  # folders of other software that runs or calls vLLM
OTHER_KINDS = ("entry", "qa", "issue", "troubleshooting", "integration", "doc")
NOT_PAGES = frozenset({"entry", "qa", "issue"})  # kinds of chunk that are no docs section: no prior moves them
KINDS: tuple[str, ...] = tuple(dict.fromkeys([*OTHER_KINDS, *TOP_FOLDERS.values()]))

# https://docs.vllm.ai/en/v0.33.0/features/tool_calling/ -> features/tool_calling
_SITE = re.compile(r"^https?://[^/]+/(?:en/[^/]+/)?")


def docs_path(chunk: Chunk) -> str:
    """The section's page relative to the docs root, without `docs/`, anchor or suffix (`features/tool_calling`).

    A release's docs carry their path in the source tree (`data["path"]`, `docs/...`); a docs folder ingested from
    disk has it in its source (`docs/usage/troubleshooting.md#...`); a served page its URL."""
    path = chunk.data.get("path") or chunk.source
    path = _SITE.sub("", path.split("#", 1)[0]).strip("/")
    path = path.removeprefix("docs/")
    for suffix in (".md", ".html"):
        path = path.removesuffix(suffix)
    return path.removesuffix("/index").removesuffix("/README")


def page_kind(chunk: Chunk) -> str:
    """The kind of page `chunk` comes from (one of `KINDS`), by the rule in this module's docstring."""
    if chunk.kind != "doc":
        return chunk.kind
    parts = [p for p in docs_path(chunk).split("/") if p]
    if not parts:
        return "doc"
    if any(word in parts[-1].lower() for word in _PROBLEM_PAGES):
        return "troubleshooting"
    if _THIRD_PARTY.intersection(parts[:-1]):
        return "integration"
    if "examples" in parts[:-1]:
        return "example"
    if len(parts) == 1 and parts[0] not in TOP_FOLDERS:  # a page at the docs root
        return "doc"
    return TOP_FOLDERS.get(parts[0], "doc")


def pages_reordered(
    order: Sequence[str], fused: Mapping[str, float], kinds: Mapping[str, str], priors: Mapping[str, float]
) -> list[str]:
    """`order` with the slots its docs sections hold refilled by those sections in order of fused score × their kind's
    prior (1.0 for a kind without one); every other id (a curated entry, a qa, an issue, an id of unknown kind) keeps
    its slot. The prior is learned where pages compete with pages: multiplied into every score, it also lifted a
    troubleshooting section over the curated entry that states the whole fix (eval/README.md, "What kind of page
    it is"). Here it says which page comes first among pages, and no entry falls below a page it beat, or rises."""
    slots = [i for i, cid in enumerate(order) if kinds.get(cid, "entry") not in NOT_PAGES]
    pages = sorted(slots, key=lambda i: (-fused[order[i]] * priors.get(kinds[order[i]], 1.0), i))
    out = list(order)
    for slot, i in zip(slots, pages):
        out[slot] = order[i]
    return out


def strengthened(priors: Mapping[str, float], strength: float) -> dict[str, float]:
    """`priors` raised to `strength`: how strongly they apply to a question in one language
    (`Settings.page_kind_prior_strength`); 0 is no prior, 1 the priors as fitted."""
    if strength == 0:
        return {}
    return dict(priors) if strength == 1 else {k: p**strength for k, p in priors.items()}
