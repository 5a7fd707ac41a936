"""Does the lead hold the user's *problem* (not only their setup)? Candidate evidence features, fitting side only.

    python eval/problem_evidence_study.py [--docs-release 0.33.0] [--fresh eval/fresh/batch-…] [--cache FILE]

Each fitting-side question of `eval/sets/` (never a held-out one, `assistant/eval/split.py`) is retrieved once and
each of its hits measured: the four features of evidence.py and candidates of the problem part
(`assistant/text/problem.py`): the IDF-weighted share of the problem's own tokens (error lines, exception, symptom,
question; no command line, model, GPU, version) the hit holds, that share among the tokens the corpus knows, and the
hit's kind. Each feature set is scored like `eval/calibrate.py` scores the model: 5-fold out-of-fold probabilities,
both bars chosen on them, and the rates at those bars; then, fitted on the whole fitting side, on the fresh batches
given (in sample: read to study, not to fit).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.calibration import (
    Sample,
    choose_paste_threshold,
    choose_threshold,
    fit,
    gives_fix,
    hit_probs,
    out_of_fold,
    rates,
)
from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, HELD_OUT_SETS, Item, load_sets
from assistant.eval.release_corpus import build_release_index, release_settings, served_label
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings, release_items
from assistant.eval.split import is_held_out
from assistant.retrieval.evidence import PRIOR_MASS, coverage, informative, is_paste
from assistant.retrieval.query import problem_setup_free
from assistant.service import Assistant
from assistant.text.problem import problem_part
from assistant.text.signals import without_log_chrome
from assistant.text.tokenize import tokenize
from assistant.settings import Settings


@dataclass(frozen=True)
class Measured:
    item: Item
    base: tuple[tuple[float, ...], ...]
    extra: tuple[dict[str, float], ...]
    fixes: tuple[bool, ...]


def measure(assistant: Assistant, items: list[Item]) -> list[Measured]:
    lexical = assistant.retriever.lexical
    out = []
    for item in items:
        query, hits = assistant.retrieve(item.query)
        ptoks = problem_setup_free(tokenize(without_log_chrome(problem_part(item.query))), query.signals)
        views = [v for v in (ptoks, query.english_tokens) if v]
        narrow = [v for v in (query.problem_tokens, query.english_tokens) if v]
        known_terms = [tuple(t for t in v if t in lexical.df) for v in views]
        extra = []
        for h in hits:
            terms = lexical.terms(h.chunk.id)
            pc = max((coverage(v, terms, lexical.idf) for v in views), default=0.0)
            ps = max((coverage(v, terms, lexical.idf) for v in narrow), default=0.0)
            pk = max((coverage(v, terms, lexical.idf) for v in known_terms if v), default=0.0)
            kt = [informative(v) for v in known_terms]
            pk_raw = max(
                (sum(lexical.idf(t) for t in v if t in terms) / sum(lexical.idf(t) for t in v) for v in kt if v),
                default=0.0,
            )
            extra.append(
                {
                    "pcover": pc,
                    "pscope": ps,
                    "pknown": pk,
                    "pknown_raw": pk_raw,
                    "entry": float(h.chunk.kind == "entry"),
                    "doc": float(h.chunk.kind == "doc"),
                }
            )
        fixes = tuple(gives_fix(h.chunk, item) for h in hits) if item.answerable else ()
        out.append(Measured(item, tuple(h.features for h in hits), tuple(extra), fixes))
    return out


def samples(measured: list[Measured], names: tuple[str, ...]) -> list[Sample]:
    return [
        Sample(
            m.item, m.item.answerable, tuple(b + tuple(e[n] for n in names) for b, e in zip(m.base, m.extra)), m.fixes
        )
        for m in measured
    ]


def row(name: str, probs, subset: list[Sample], bars: tuple[float, float]) -> str:
    out = [name]
    for part in (
        [s for s in subset if not is_paste(s.item.query)],
        [s for s in subset if is_paste(s.item.query)],
        subset,
    ):
        r = rates(probs, part, *bars)
        out.append(f"{r.abstain_recall:.3f} / {r.false_abstention:.3f} / {r.wrong_answer:.3f}")
    return "| " + " | ".join(out) + " |"


VARIANTS: dict[str, tuple[str, ...]] = {
    "the four, refit": (),
    "+pcover": ("pcover",),
    "+pscope": ("pscope",),
    "+pscope+entry": ("pscope", "entry"),
    "+pknown": ("pknown",),
    "+pknown_raw": ("pknown_raw",),
    "+entry": ("entry",),
    "+pcover+entry": ("pcover", "entry"),
    "+pknown_raw+entry": ("pknown_raw", "entry"),
    "+pcover+entry+doc": ("pcover", "entry", "doc"),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-release", metavar="VERSION")
    p.add_argument("--index-dir", type=Path)
    p.add_argument("--fresh", type=Path, nargs="*", default=[])
    p.add_argument("--cache", type=Path)
    args = p.parse_args(argv)
    say = lambda m: print(m, file=sys.stderr)
    if args.cache and args.cache.exists():
        fitting, fresh = pickle.loads(args.cache.read_bytes())
    else:
        if args.docs_release:
            settings = release_settings(Settings(answer_backend="extractive"), args.docs_release, args.index_dir)
            assistant = Assistant(settings)
            build_release_index(assistant, progress=say)
        else:
            assistant = Assistant(eval_settings(Settings(answer_backend="extractive"), args.index_dir))
            build_index(assistant, DEFAULT_DOCS_DIR, progress=say)
        sets = load_sets("all", DEFAULT_SETS_DIR)
        items = [
            i
            for name, chosen in sets.items()
            if (name in ANSWERABLE or name == "negatives") and name not in HELD_OUT_SETS
            for i in chosen
            if not is_held_out(i)
        ]
        if args.docs_release:
            items = release_items(items, args.docs_release)
        fitting = measure(assistant, items)
        fresh = {}
        for folder in args.fresh:
            from dataclasses import replace

            batch = [i for chosen in load_sets([f.stem for f in folder.glob("*.jsonl") if f.stem in ("docs", "reports", "negatives")], folder).values() for i in chosen]  # noqa: E501
            batch = [replace(i, relevant=tuple(served_label(x, args.docs_release or "0.33.0") for x in i.relevant)) for i in batch]  # noqa: E501
            fresh[folder.name] = measure(assistant, batch)
        if args.cache:
            args.cache.write_bytes(pickle.dumps((fitting, fresh)))
    print(f"fitting side: {sum(m.item.answerable for m in fitting)} answerable + "
          f"{sum(not m.item.answerable for m in fitting)} negatives; PRIOR_MASS {PRIOR_MASS}")  # fmt: skip
    print("\nrates: abstention recall / false abstentions / answered without the fix; questions | pastes | all\n")
    print("| variant | questions | pastes | all | bars | weights |")
    print("|---|---|---|---|---|---|")
    fresh_rows = []
    for name, names in VARIANTS.items():
        fit_s = samples(fitting, names)
        probs = out_of_fold(fit_s)
        q = choose_threshold(probs, [s for s in fit_s if not is_paste(s.item.query)])
        pp = choose_paste_threshold(probs, [s for s in fit_s if is_paste(s.item.query)])
        bars = (q.threshold, pp.threshold)
        w, b = fit(fit_s)
        weights = ", ".join(f"{x:.2f}" for x in w)
        print(row(name, probs, fit_s, bars) + f" {bars[0]:.3f}, {bars[1]:.3f} | {weights}; {b:.2f} |")
        for batch, measured in fresh.items():
            s = samples(measured, names)
            fresh_rows.append(row(f"{name} @ {batch}", {x.item.id: hit_probs(w, b, x) for x in s}, s, bars))
    if fresh_rows:
        print("\nfresh batches (fitted on the whole fitting side; evidence alone, no scope rules nor code facts)\n")
        print("| variant @ batch | questions | pastes | all |")
        print("|---|---|---|---|")
        print("\n".join(fresh_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
