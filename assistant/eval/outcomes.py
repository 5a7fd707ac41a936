"""What one answer cost, judged as the fresh batches and make run's eval judge it, and the assistant they are read by.

The scripts that score served answers (`eval/fresh/score_api.py --in-process`, `eval/fresh/bars_lobo.py`) and the
studies of the evidence bars (`eval/docs_bar_study.py`, `eval/lead_study.py`) answer with the assistant `make run`
serves (`served_assistant`); the studies read every item once and compose its answer under several settings. Cost, as
in eval/README: an answer without the fix or to an out-of-scope question 1, an abstention on an answerable one 0.5,
the fix 0; a near-miss answered with the fix of the entry it resembles 1. The costs and the tally are pure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from assistant.answer.render import answer_json, plain_text
from assistant.eval.dataset import SETS, Item, load_sets
from assistant.eval.metrics import fact_hits, is_wrong_fix, key_fact_recall
from assistant.eval.runner import release_items
from assistant.models import Answer
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings

FRESH = REPO_ROOT / "eval" / "fresh"


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def served_assistant(settings: Settings | None = None, progress: Callable[[str], None] = _say) -> Assistant:
    """The assistant over the index `make run` serves (`Settings()`: `ASSISTANT_INDEX_DIR`), ready as its start leaves
    it: entries added or changed since the index was built embedded, and every USE vector stored (the server stores
    them in the background once it is up; a short run would otherwise answer with the USE channel off)."""
    assistant = Assistant(settings if settings is not None else Settings())
    assistant.ensure_index(progress=progress)
    assistant.require_complete_index()
    assistant.ensure_use_vectors(progress=progress)
    assistant.warm_up()
    return assistant


def cost(expect: str, abstained: bool, fix: bool, wrong: bool = False) -> float:
    if expect == "abstain":
        return 0.0 if abstained else 1.0
    if expect == "not_fix":
        return 1.0 if wrong else 0.0
    return 0.5 if abstained else (0.0 if fix else 1.0)


def fresh_items(root: Path = FRESH) -> Iterator[tuple[str, Item]]:
    """Every item of the fresh batches (`eval/fresh/batch-*/`, real threads), with its batch folder's name."""
    for folder in sorted(p for p in root.glob("batch-*") if p.is_dir()):
        names = [name for name in SETS if (folder / f"{name}.jsonl").is_file()]
        for item in (i for chosen in load_sets(names, folder).values() for i in chosen):
            yield folder.name, item


def makerun_items(release: str) -> list[Item]:
    """Every item of the eval's sets, each with its labels on `release`'s pages (what `make run` serves)."""
    sets = load_sets(list(SETS))
    return release_items([i for name in SETS for i in sets[name]], release)


def fresh_cost(item: Item, answer: Answer) -> float:
    """As `eval/fresh/score_api.py` judges: the fix is in the answer when every key fact is in the served text."""
    fix = not answer.abstained and all(fact_hits(answer_json(answer)["answer"], item.key_facts))
    return cost(item.expect, answer.abstained, fix and item.answerable)


def makerun_cost(item: Item, answer: Answer) -> float:
    """As the eval runner judges: key facts on the answer's lead; a near-miss by the fix of the entry it resembles."""
    text = plain_text(answer)
    fix = item.answerable and key_fact_recall(answer.lead or text, answer.abstained, item.key_facts) >= 1.0
    first = answer.citations[0].id if answer.citations else None
    wrong = bool(item.near) and is_wrong_fix(text, answer.abstained, first, item.near, item.forbidden_facts)
    return cost(item.expect, answer.abstained, fix, wrong)


@dataclass(frozen=True)
class ThreadTally:
    """What real threads got, counted as eval/README's fresh-batch tables count it."""

    answerable: int = 0
    fixed: int = 0  # the thread's fix is in the answer
    abstained: int = 0  # answerable threads abstained on
    without_fix: int = 0  # answerable threads answered without their fix
    out_of_scope: int = 0
    out_of_scope_abstained: int = 0

    @property
    def fix_rate(self) -> float:
        return self.fixed / self.answerable if self.answerable else 0.0

    @property
    def without_fix_rate(self) -> float:
        return self.without_fix / self.answerable if self.answerable else 0.0

    @property
    def out_of_scope_abstention(self) -> float:
        return self.out_of_scope_abstained / self.out_of_scope if self.out_of_scope else 0.0

    @property
    def cost(self) -> float:
        return 0.5 * self.abstained + self.without_fix + self.out_of_scope - self.out_of_scope_abstained


def tally(judged: Iterable[tuple[Item, Answer]]) -> ThreadTally:
    """Count answers to fresh-batch items (an item that is neither answerable nor out of scope is not counted)."""
    n = dict.fromkeys(("answerable", "fixed", "abstained", "without_fix", "out_of_scope", "out_of_scope_abstained"), 0)
    for item, answer in judged:
        if item.answerable:
            outcome = fresh_cost(item, answer)
            n["answerable"] += 1
            n["fixed"] += outcome == 0.0
            n["abstained"] += answer.abstained
            n["without_fix"] += outcome == 1.0
        elif item.expect == "abstain":
            n["out_of_scope"] += 1
            n["out_of_scope_abstained"] += answer.abstained
    return ThreadTally(**n)
