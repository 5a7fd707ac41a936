"""Would other evidence for curated-entry hits abstain less on the right entry? Measured on the fitting side only.

    python eval/entry_evidence_study.py [--index-dir DIR] [--docs-dir DIR] [--prior-mass 4,8,12] [--variants ...]

Each fitting-side question (answerable: seed, docs, docs_zh, reports, entry_questions_fit; should abstain: negatives;
never a held-out one, `assistant/eval/split.py`) is retrieved once; each hit is measured once (the coverage's IDF
mass per query view, and for an entry its question-shaped texts' similarity to the question, MiniLM and USE). Then
every variant of `assistant/eval/entry_evidence.py` at every PRIOR_MASS is scored like `eval/calibrate.py` scores the
model in use: 5-fold out-of-fold probabilities, the two bars chosen on them, and the rates at those bars. A variant is
worth adopting only if it lowers false abstentions on the entry-labelled questions without lowering abstention
recall or raising answers without the fix. Prints one Markdown row per (variant, prior mass).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.eval.calibration import (
    Sample,
    choose_paste_threshold,
    choose_threshold,
    fit,
    gives_fix,
    out_of_fold,
    rates,
)
from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, HELD_OUT_SETS, Item, is_entry_label, load_sets
from assistant.eval.entry_evidence import VARIANTS, HitMeasure, features, mass_parts
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings
from assistant.eval.split import is_held_out
from assistant.retrieval.evidence import is_paste
from assistant.service import Assistant
from assistant.settings import Settings


def _texts(chunk, lang: str) -> list[str]:
    data = chunk.data
    return [t for t in [data["title"][lang], data["question"][lang], *data["symptoms"][lang]] if t]


def measure(assistant: Assistant, items: list[Item]) -> tuple[dict[str, tuple[HitMeasure, ...]], dict[str, tuple[bool, ...]]]:
    """Each item's hits, measured once (the entries' question-shaped texts embedded once), and whether each hit of an
    answerable item gives its fix."""
    lexical = assistant.retriever.lexical
    mini, use = assistant.query_embedder, assistant.use_embedder
    entry_vectors = {}
    for chunk in lexical.chunks:
        if chunk.kind == "entry":
            en, zh = _texts(chunk, "en"), _texts(chunk, "zh")
            entry_vectors[chunk.id] = (
                mini.embed(en) if en else None,
                use.embed(en) if use is not None and en else None,
                use.embed(zh) if use is not None and zh else None,
            )
    out, fixes = {}, {}
    for item in items:
        query, hits = assistant.retrieve(item.query)
        if item.answerable:
            fixes[item.id] = tuple(gives_fix(h.chunk, item) for h in hits)
        views = [v for v in (query.focus_tokens or query.lexical_tokens, query.english_tokens) if v]
        known = tuple(mass_parts(v, lexical.df.__contains__, lexical.idf) for v in views)
        use_vector = None
        if use is not None:
            use_vector = query.use_vector if query.use_vector is not None else use.embed([query.focus_text or query.dense_text])[0]
        measured = []
        for hit in hits:
            terms = lexical.terms(hit.chunk.id)
            cover = tuple(mass_parts(v, terms.__contains__, lexical.idf) for v in views)
            sims: tuple[tuple[float, ...], ...] = ((), (), ())
            if hit.chunk.kind == "entry":
                m, ue, uz = entry_vectors[hit.chunk.id]
                sims = tuple(
                    tuple(float(x) for x in (vecs @ vec)) if vecs is not None and vec is not None else ()
                    for vecs, vec in ((m, query.dense_vector), (ue, use_vector), (uz, use_vector))
                )
            measured.append(
                HitMeasure(hit.chunk.kind == "entry", hit.dense, hit.agree, cover, known, sims[0], sims[2], sims[1])
            )
        out[item.id] = tuple(measured)
    return out, fixes


def row(samples: list[Sample], entry_ids: set[str], variant: str, prior_mass: float) -> str:
    probs = out_of_fold(samples)
    asked = [s for s in samples if not is_paste(s.item.query)]
    pasted = [s for s in samples if is_paste(s.item.query)]
    q = choose_threshold(probs, asked)
    p = choose_paste_threshold(probs, pasted) if pasted else q
    every = rates(probs, samples, q.threshold, p.threshold)
    entries = rates(probs, [s for s in samples if s.item.id in entry_ids], q.threshold, p.threshold)
    fitset = rates(probs, [s for s in samples if s.item.set == "entry_questions_fit"], q.threshold, p.threshold)
    weights, bias = fit(samples)
    w = ", ".join(f"{x:.2f}" for x in weights)
    return (
        f"| {variant} | {prior_mass:g} | {q.threshold:.3f} / {p.threshold:.3f} | {every.abstain_recall:.3f} "
        f"| {every.false_abstention:.3f} | {entries.false_abstention:.3f} ({entries.n_pos}) "
        f"| {fitset.false_abstention:.3f} ({fitset.n_pos}) | {every.wrong_answer:.3f} | ({w}), {bias:.2f} |"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index-dir", type=Path, help="the eval index (default .index/eval)")
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS_DIR)
    p.add_argument("--sets-dir", type=Path, default=DEFAULT_SETS_DIR)
    p.add_argument("--prior-mass", default="8", help="comma-separated PRIOR_MASS values to score (default: 8)")
    p.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=VARIANTS)
    args = p.parse_args(argv)
    masses = [float(x) for x in args.prior_mass.split(",")]

    assistant = Assistant(eval_settings(Settings(answer_backend="extractive"), args.index_dir))
    build_index(assistant, args.docs_dir, progress=lambda m: print(m, file=sys.stderr))
    sets = load_sets("all", args.sets_dir)
    items = [
        item
        for name, chosen in sets.items()
        if (name in ANSWERABLE or name == "negatives") and name not in HELD_OUT_SETS
        for item in chosen
        if not is_held_out(item)  # the fitting side only: the gate's questions are never looked at here
    ]
    measured, fixes = measure(assistant, items)
    entry_ids = {i.id for i in items if i.answerable and any(is_entry_label(r) for r in i.relevant)}
    entry_ids |= {i.id for i in items if not i.answerable}  # the entry rows' abstention recall needs the negatives
    print(
        f"Fitting side: {sum(i.answerable for i in items)} answerable ({len(entry_ids) - sum(not i.answerable for i in items)}"
        f" with an entry label) + {sum(not i.answerable for i in items)} negatives.\n"
    )
    print("| variant | prior mass | bars (questions / pastes) | abstention recall | false abstentions | ... on entry-labelled "
          "| ... on entry_questions_fit | answered without the fix | weights, bias |")  # fmt: skip
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for variant in args.variants:
        for mass in masses:
            samples = [
                Sample(i, i.answerable, tuple(features(h, i.lang, mass, variant) for h in measured[i.id]), fixes.get(i.id, ()))
                for i in items
            ]
            print(row(samples, entry_ids, variant, mass))
    return 0


if __name__ == "__main__":
    sys.exit(main())
