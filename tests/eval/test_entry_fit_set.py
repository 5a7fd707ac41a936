"""The fitting entry questions (eval/sets/entry_questions_fit.jsonl) are labelled with their entry's fix.

Why: the set is what the entry evidence is fitted on, so a key fact that the entry does not state would count a right
answer as a miss, and a key fact that the question already matches would count any echo of the question as the fix.
Each key fact must match the entry's `fix` or `workarounds` (either language) and must not match the question. Reads
YAML and JSON lines only; no index.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from assistant.eval.dataset import DEFAULT_ENTRIES_DIR, DEFAULT_SETS_DIR

FIT_FILE = DEFAULT_SETS_DIR / "entry_questions_fit.jsonl"
# Items whose question may match a key fact, id -> why. The first 26 were written before this check, mostly from
# threads that paste an error message; in these nine the message or the user already names what the fix is about,
# and the answer must still give the fix. They are not rewritten: the items are pasted from their threads.
_QUOTES_THE_FIX = "the pasted error message names the setting to change"
ECHO_ALLOWED: dict[str, str] = {
    "eqf-03": _QUOTES_THE_FIX,
    "eqf-13": "the user names NCCL_P2P_DISABLE among what they tried",
    "eqf-14": "the pasted error message names Transformers, the library to upgrade",
    "eqf-15": "the title names the compute capability 7.0 floor",
    "eqf-16": "the title names the compute capability 7.0 floor",
    "eqf-19": "the user asks how to pass enable_thinking",
    "eqf-23": "the user names the Transformers library",
    "eqf-24": _QUOTES_THE_FIX,
    "eqf-25": "the user's command passes --tensor_parallel_size 1",
}


def fit_items() -> list[dict]:
    return [json.loads(line) for line in FIT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def fix_text(entry_id: str) -> str:
    """The entry's fix and workarounds, both languages, as one text ("" if there is no such entry)."""
    path = DEFAULT_ENTRIES_DIR / f"{entry_id}.yaml"
    if not path.is_file():
        return ""
    entry = yaml.safe_load(path.read_text(encoding="utf-8"))
    parts = list((entry.get("fix") or {}).values())
    for texts in (entry.get("workarounds") or {}).values():
        parts.extend(texts)
    return "\n".join(parts)


def label_problems(item: dict) -> list[str]:
    """What is wrong with `item`'s key facts against its entries' fixes and its own question (empty: nothing)."""
    out = []
    for entry_id in item["relevant"]:
        text = fix_text(entry_id)
        if not text:
            out.append(f"{item['id']}: {entry_id} is not a curated entry with a fix")
            continue
        absent = [f for f in item["key_facts"] if not re.search(f, text, re.IGNORECASE)]
        if absent:
            out.append(f"{item['id']}: key facts {absent} are not in the fix or workarounds of {entry_id}")
    echoed = [f for f in item["key_facts"] if re.search(f, item["query"], re.IGNORECASE)]
    if echoed and item["id"] not in ECHO_ALLOWED:
        out.append(f"{item['id']}: key facts {echoed} already match the question")
    return out


@pytest.mark.parametrize("item", fit_items(), ids=lambda item: item["id"])
def test_key_facts_are_the_entry_fix_and_not_the_question(item: dict):
    problems = label_problems(item)
    assert not problems, "\n".join(problems)


def test_the_allowed_echoes_are_real_items_that_echo():
    items = {i["id"]: i for i in fit_items()}
    assert set(ECHO_ALLOWED) <= set(items)
    stale = [
        i
        for i in ECHO_ALLOWED
        if not any(re.search(f, items[i]["query"], re.IGNORECASE) for f in items[i]["key_facts"])
    ]
    assert not stale, f"no longer echo a key fact (remove them from ECHO_ALLOWED): {stale}"


def test_the_check_can_fail():
    item = next(i for i in fit_items() if i["id"] == "eqf-27")
    assert not label_problems(item)
    assert "already match the question" in label_problems({**item, "key_facts": ["incomplete answers"]})[-1]
    assert "are not in the fix" in label_problems({**item, "key_facts": ["no such fact anywhere"]})[0]
    assert "is not a curated entry" in label_problems({**item, "relevant": ["no-such-entry"]})[0]
