"""Would other evidence for curated-entry hits abstain less on the right entry? Measured on the fitting side only.

    python eval/entry_evidence_study.py [--index-dir DIR] [--docs-dir DIR] [--prior-mass 4,8,12] [--variants ...]
                                        [--cache FILE]

Each fitting-side question (answerable: seed, docs, docs_zh, reports, entry_questions_fit; should abstain: negatives;
never a held-out one, `assistant/eval/split.py`) is retrieved once; each hit is measured once (the coverage's IDF
mass per query view, and for an entry its question-shaped texts' similarity to the question, MiniLM and USE). Then
every variant of `assistant/eval/entry_evidence.py` at every PRIOR_MASS is scored like `eval/calibrate.py` scores the
model in use: 5-fold out-of-fold probabilities, the two bars chosen on them, and the rates at those bars. A variant is
worth adopting only if it lowers false abstentions on the entry-labelled questions without lowering abstention
recall or raising answers without the fix. Prints retrieval hit@1, a row for evidence.py's model and the bars in
use (not refitted), and one Markdown row per (variant, prior mass). Retrieval follows the settings (e.g.
ASSISTANT_CHINESE_PROSE_WORDS=1 to measure that change); `--cache` keeps the measured hits for rescoring.
"""

from __future__ import annotations

import argparse
import pickle
import sys
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
from assistant.eval.dataset import ANSWERABLE, DEFAULT_SETS_DIR, HELD_OUT_SETS, Item, is_entry_label, load_sets
from assistant.eval.entry_evidence import VARIANTS, HitMeasure, features, mass_parts
from assistant.eval.metrics import judged_ids
from assistant.eval.runner import DEFAULT_DOCS_DIR, build_index, eval_settings
from assistant.eval.split import is_held_out
from assistant.retrieval.evidence import BIAS, PRIOR_MASS, WEIGHTS, is_paste
from assistant.service import Assistant
from assistant.settings import Settings
from assistant.text.tokenize import tokenize


def _texts(chunk, lang: str) -> list[str]:
    data = chunk.data
    return [t for t in [data["title"][lang], data["question"][lang], *data["symptoms"][lang]] if t]


Measured = tuple[dict[str, tuple[HitMeasure, ...]], dict[str, tuple[bool, ...]], dict[str, bool]]


def measure(assistant: Assistant, items: list[Item]) -> Measured:
    """Each item's hits, measured once (the entries' question-shaped texts embedded once), whether each hit of an
    answerable item gives its fix, and whether its first hit is a labelled source (hit@1)."""
    lexical = assistant.retriever.lexical
    mini, use = assistant.query_embedder, assistant.use_embedder
    entry_vectors, symptom_terms = {}, {}
    for chunk in lexical.chunks:
        if chunk.kind == "entry":
            en, zh = _texts(chunk, "en"), _texts(chunk, "zh")
            symptom_terms[chunk.id] = frozenset(tokenize("\n".join(en + zh)))
            entry_vectors[chunk.id] = (
                mini.embed(en) if en else None,
                use.embed(en) if use is not None and en else None,
                use.embed(zh) if use is not None and zh else None,
            )
    out, fixes, first = {}, {}, {}
    for item in items:
        query, hits = assistant.retrieve(item.query)
        if item.answerable:
            fixes[item.id] = tuple(gives_fix(h.chunk, item) for h in hits)
            first[item.id] = bool(hits) and judged_ids([hits[0].chunk], item.relevant)[0] in set(item.relevant)
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
            symptom: tuple = ()
            if hit.chunk.kind == "entry":
                has = symptom_terms[hit.chunk.id].__contains__
                symptom = tuple(mass_parts(v, has, lexical.idf) for v in views)
                m, ue, uz = entry_vectors[hit.chunk.id]
                sims = tuple(
                    tuple(float(x) for x in (vecs @ vec)) if vecs is not None and vec is not None else ()
                    for vecs, vec in ((m, query.dense_vector), (ue, use_vector), (uz, use_vector))
                )
            measured.append(
                HitMeasure(
                    hit.chunk.kind == "entry", hit.dense, hit.agree, cover, known, sims[0], sims[2], sims[1], symptom
                )
            )
        out[item.id] = tuple(measured)
    return out, fixes, first


def row(
    samples: list[Sample], entry_ids: set[str], variant: str, prior_mass: float, kept: tuple[float, float] | None = None
) -> str:
    """One Markdown row: the bars chosen on out-of-fold probabilities, and the rates at them; with `kept` (the bars in
    use), evidence.py's model and those bars unchanged (what the measured hits score without a refit)."""
    if kept is None:
        probs = out_of_fold(samples)
        asked = [s for s in samples if not is_paste(s.item.query)]
        pasted = [s for s in samples if is_paste(s.item.query)]
        q = choose_threshold(probs, asked).threshold
        p = choose_paste_threshold(probs, pasted).threshold if pasted else q
        weights, bias = fit(samples)
    else:
        (q, p), weights, bias = kept, list(WEIGHTS), BIAS
        probs = {s.item.id: hit_probs(weights, bias, s) for s in samples}
    every = rates(probs, samples, q, p)
    entries = rates(probs, [s for s in samples if s.item.id in entry_ids], q, p)
    fitset = rates(probs, [s for s in samples if s.item.set == "entry_questions_fit"], q, p)
    w = ", ".join(f"{x:.2f}" for x in weights)
    return (
        f"| {variant} | {prior_mass:g} | {q:.3f} / {p:.3f} | {every.abstain_recall:.3f} "
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
    p.add_argument(
        "--cache",
        type=Path,
        help="a pickle of the measurements: read if it exists (nothing is retrieved), else written (a scratch file of"
        " this machine's; delete it when the code or the corpus changes)",
    )
    args = p.parse_args(argv)
    masses = [float(x) for x in args.prior_mass.split(",")]

    sets = load_sets("all", args.sets_dir)
    items = [
        item
        for name, chosen in sets.items()
        if (name in ANSWERABLE or name == "negatives") and name not in HELD_OUT_SETS
        for item in chosen
        if not is_held_out(item)  # the fitting side only: the gate's questions are never looked at here
    ]
    if args.cache and args.cache.exists():
        measured, fixes, first = pickle.loads(args.cache.read_bytes())
    else:
        assistant = Assistant(eval_settings(Settings(answer_backend="extractive"), args.index_dir))
        build_index(assistant, args.docs_dir, progress=lambda m: print(m, file=sys.stderr))
        measured, fixes, first = measure(assistant, items)
        if args.cache:
            args.cache.write_bytes(pickle.dumps((measured, fixes, first)))
    entry_ids = {i.id for i in items if i.answerable and any(is_entry_label(r) for r in i.relevant)}
    entry_ids |= {i.id for i in items if not i.answerable}  # the entry rows' abstention recall needs the negatives
    print(
        f"Fitting side: {sum(i.answerable for i in items)} answerable ({len(entry_ids) - sum(not i.answerable for i in items)}"
        f" with an entry label) + {sum(not i.answerable for i in items)} negatives."
    )
    labelled = [i.id for i in items if i.id in first and i.id in entry_ids]
    fit_set = [i.id for i in items if i.set == "entry_questions_fit"]
    print(
        f"hit@1 (retrieval, before any bar): entry-labelled {sum(first[i] for i in labelled) / len(labelled):.3f}"
        f" ({len(labelled)}), entry_questions_fit {sum(first[i] for i in fit_set) / len(fit_set):.3f} ({len(fit_set)}),"
        f" all answerable {sum(first.values()) / len(first):.3f} ({len(first)})\n"
    )
    print("| variant | prior mass | bars (questions / pastes) | abstention recall | false abstentions | ... on entry-labelled "
          "| ... on entry_questions_fit | answered without the fix | weights, bias |")  # fmt: skip
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    settings = Settings()
    in_use = [
        Sample(i, i.answerable, tuple(features(h, i.lang, PRIOR_MASS, "in_use") for h in measured[i.id]), fixes.get(i.id, ()))
        for i in items
    ]
    bars = (settings.min_confidence, settings.min_confidence_paste)
    print(row(in_use, entry_ids, "in use, not refitted", PRIOR_MASS, bars))
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
