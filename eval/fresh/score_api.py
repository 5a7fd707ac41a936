"""Score a folder of eval sets through `POST /v1/ask` of a running `python app.py` (what `make run` serves).

    python app.py --no-ui                          # in another shell; wait for /readyz to say "ready"
    python eval/fresh/score_api.py eval/fresh/batch-2026-12-01 --url http://127.0.0.1:7860 --out /tmp/api.jsonl
    python eval/fresh/score_api.py eval/fresh/batch-2026-12-01 --in-process     # the same JSON, no server

`--in-process` answers with `Assistant.ask` over the index `make run` serves (`Settings()`: `ASSISTANT_INDEX_DIR`,
default `.index/`, with the synced release's source) and scores `answer_json` of each answer, the body `/v1/ask`
returns; it needs that index built (a first `make run`), and measures no HTTP.

Why a script of its own: `python -m assistant eval` builds an index of its own and scores the answer's lead; a user
gets the served answer instead (the whole text of the JSON `answer`, with what the release's source adds). So this
scores that: is the fix (every key fact) in the answer, was it abstained on, and for a negative, did it abstain.
hit@1 / hit@3 compare the answer's `hits` with the `relevant` labels, mapped to the URLs `make run` cites
(`docs/usage/faq.md#a` -> `https://docs.vllm.ai/en/v0.33.0/usage/faq/#a`); items labelled `relevant: []` are left
out of hit@k. One request at a time, each bounded by `--timeout`; a 429 waits for its Retry-After (at most 60 s).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assistant.eval.dataset import SETS, DatasetError, Item, load_sets
from assistant.eval.metrics import fact_hits, mean
from assistant.eval.release_corpus import served_label

_PART = re.compile(r"~\d+$")


def cited_as_served(label: str, release: str) -> str:
    """`docs/<page>.md#anchor` as `make run` cites that section of vLLM `release`'s docs (other labels unchanged)."""
    return served_label(label, release)  # the eval's own mapping (assistant/eval/release_corpus.py)


@dataclass
class Outcome:
    item: Item
    abstained: bool
    facts_found: list[bool]
    ranked: list[str]  # hit sources (a long section's parts folded into it), in rank order, deduplicated
    seconds: float

    @property
    def fix_in_answer(self) -> bool:
        return not self.abstained and all(self.facts_found)

    def hit_at(self, k: int, release: str) -> float:
        labels = {cited_as_served(label, release) for label in self.item.relevant}
        return 1.0 if any(src in labels or src.split("#", 1)[0] in labels for src in self.ranked[:k]) else 0.0


def ask(url: str, question: str, timeout: float) -> dict:
    body = json.dumps({"question": question}).encode()
    for _ in range(5):
        request = urllib.request.Request(f"{url}/v1/ask", data=body, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            if exc.code != 429:
                raise
            time.sleep(min(60.0, float(exc.headers.get("Retry-After") or 5)))
    raise RuntimeError("rate-limited five times in a row")


def score(item: Item, url: str, timeout: float, local: Callable[[str], dict] | None = None) -> Outcome:
    started = time.perf_counter()
    reply = local(item.query) if local else ask(url, item.query, timeout)
    ranked: list[str] = []
    for hit in reply.get("hits", []):
        # A curated entry is served with its file as source and its id as id; labels name it by id.
        source = hit["id"] if hit["source"].startswith("corpus/entries/") else _PART.sub("", hit["source"])
        if source not in ranked:
            ranked.append(source)
    found = fact_hits(reply.get("answer", ""), item.key_facts) if item.answerable else []
    return Outcome(item, bool(reply["abstained"]), found, ranked, time.perf_counter() - started)


def in_process() -> Callable[[str], dict]:
    """`/v1/ask`'s JSON body for a question, from an Assistant over the index `make run` serves (no server)."""
    from assistant.answer.render import answer_json
    from assistant.eval.outcomes import served_assistant

    assistant = served_assistant()  # as `make run`'s start leaves it: today's entries, every USE vector stored
    return lambda question: answer_json(assistant.ask(question))


def summary(outcomes: list[Outcome], release: str) -> dict[str, float]:
    answerable = [o for o in outcomes if o.item.answerable]
    labelled = [o for o in answerable if o.item.relevant]
    negatives = [o for o in outcomes if o.item.expect == "abstain"]
    return {
        "n": float(len(outcomes)),
        "labelled": float(len(labelled)),
        "hit@1": mean(o.hit_at(1, release) for o in labelled),
        "hit@3": mean(o.hit_at(3, release) for o in labelled),
        "key_fact_recall": mean(0.0 if o.abstained else sum(o.facts_found) / len(o.facts_found) for o in answerable),
        "fix_in_answer": float(sum(o.fix_in_answer for o in answerable)),
        "answerable": float(len(answerable)),
        "false_abstentions": mean(1.0 if o.abstained else 0.0 for o in answerable),
        "answered_without_fix": mean(0.0 if o.abstained or o.fix_in_answer else 1.0 for o in answerable),
        "negatives_abstained": float(sum(o.abstained for o in negatives)),
        "negatives": float(len(negatives)),
        "abstention_recall": mean(1.0 if o.abstained else 0.0 for o in negatives),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets_dir", type=Path, help="a folder of <set>.jsonl files (eval/README.md's format)")
    parser.add_argument("--url", default="http://127.0.0.1:7860", help="the running app (default: app.py's)")
    parser.add_argument("--release", default="0.33.0", help="the vLLM release whose docs the app serves")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one answer may take")
    parser.add_argument(
        "--in-process", action="store_true", help="answer with Assistant.ask over make run's index instead of --url"
    )
    parser.add_argument("--out", type=Path, help="write one JSON line per item here (outcomes, for a later look)")
    args = parser.parse_args(argv)
    names = [name for name in SETS if (args.sets_dir / f"{name}.jsonl").is_file()]
    if not names:
        parser.error(f"{args.sets_dir}: no set file ({', '.join(f'{n}.jsonl' for n in SETS)})")
    try:
        sets = load_sets(names, args.sets_dir)
    except DatasetError as e:  # an empty or malformed set file: say which, not a traceback
        parser.error(str(e))
    local = in_process() if args.in_process else None
    outcomes = {name: [score(item, args.url, args.timeout, local) for item in items] for name, items in sets.items()}
    if args.out:
        with args.out.open("w", encoding="utf-8") as fh:
            for name, rows in outcomes.items():
                for o in rows:
                    record = {"id": o.item.id, "set": name, "abstained": o.abstained, "facts": o.facts_found,
                              "fix_in_answer": o.fix_in_answer, "hits": o.ranked[:3], "seconds": round(o.seconds, 2)}
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    everything = [o for rows in outcomes.values() for o in rows]
    table = {**{name: summary(rows, args.release) for name, rows in outcomes.items()},
             "all": summary(everything, args.release)}
    json.dump(table, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
