"""Run systems over the eval sets, time each query, score the answers, and render the results table."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from assistant.answer.render import plain_text
from assistant.eval.baselines import System
from assistant.eval.code_citations import code_fact_lookup
from assistant.eval.dataset import ANSWERABLE, Item
from assistant.eval.metrics import (
    Row,
    abstention,
    check_citations,
    fact_hits,
    is_wrong_fix,
    judged_ids,
    key_fact_recall,
    mean,
    percentile,
    retrieval_scores,
)
from assistant.eval.split import is_held_out
from assistant.index.embedder import apply_torch_threads
from assistant.models import Answer, Chunk
from assistant.service import Assistant
from assistant.settings import REPO_ROOT, Settings

DEFAULT_DOCS_DIR = REPO_ROOT.parent / "shared" / "vllm-docs"
DEFAULT_INDEX_DIR = REPO_ROOT / ".index" / "eval"

Progress = Callable[[str], None]
Split = Literal["all", "held_out", "fitting"]


def eval_settings(settings: Settings, index_dir: Path | None = None) -> Settings:
    """The eval keeps its own index (corpus + docs) apart from the one the assistant serves."""
    return settings.with_overrides(index_dir=index_dir or DEFAULT_INDEX_DIR)


def build_index(assistant: Assistant, docs_dir: Path, progress: Progress = lambda _m: None) -> None:
    """Curated corpus + the vLLM docs, ingested incrementally (unchanged chunks cost nothing)."""
    # What is embedded is progress worth showing (a release's docs take minutes); skipped files are in the summary.
    report = assistant.ingest(
        [assistant.settings.corpus_dir, docs_dir], progress=lambda m: None if m.startswith("skipped") else progress(m)
    )
    progress(f"eval index: {report.summary()}")
    # Chunks ingested before the USE channel existed lack its vectors; the server fills them in the background,
    # the eval now, so that every query runs on the same channels.
    filled = assistant.ensure_use_vectors(progress=progress)
    if filled:
        progress(f"eval index: stored the USE vectors of {filled} chunks")
    assistant.warm_up()


@dataclass
class Result:
    item: Item
    system: str
    answer: Answer
    latency_ms: float
    cpu_ms: float = float("nan")  # CPU time of the process (all threads): the cost without the wait for a core
    ranked: list[str] = field(default_factory=list)  # judged ids, rank order
    retrieval: dict[str, float] = field(default_factory=dict)
    facts: float = float("nan")
    citations_valid: bool | None = None  # None: abstained, nothing to check
    citation_problems: tuple[str, ...] = ()
    wrong_fix: bool = False

    @property
    def failures(self) -> list[str]:
        out = []
        item = self.item
        if item.answerable:
            if self.answer.abstained:
                out.append("abstained on an answerable question")
            elif self.retrieval.get("hit@1", 1.0) < 1.0:
                out.append(f"top hit {self.ranked[0] if self.ranked else '-'} is not relevant")
            if self.facts < 1.0 and not self.answer.abstained:
                scored = self.answer.lead or plain_text(self.answer)  # what key-fact recall reads
                missing = [p for p, ok in zip(item.key_facts, fact_hits(scored, item.key_facts)) if not ok]
                out.append(f"key facts missing from the lead: {', '.join(missing)}")
        elif item.expect == "abstain" and not self.answer.abstained:
            out.append(f"answered a negative from {self.answer.citations[0].id if self.answer.citations else '-'}")
        if self.wrong_fix:
            out.append(f"gave the fix of {item.near}")
        if self.citations_valid is False:
            out.append("invalid citation: " + "; ".join(self.citation_problems))
        return out


def run_system(
    system: System, items: Sequence[Item], lookup: Callable[[str], Chunk | None], progress: Progress = lambda _m: None
) -> list[Result]:
    results = []
    if items:
        system.answer(items[0].query)  # warm: first-call costs are not query latency
    for i, item in enumerate(items, start=1):
        started, cpu = time.perf_counter(), time.process_time()
        answer = system.answer(item.query)
        elapsed = (time.perf_counter() - started) * 1000
        cpu_ms = (time.process_time() - cpu) * 1000
        result = Result(item=item, system=system.name, answer=answer, latency_ms=elapsed, cpu_ms=cpu_ms)
        result.ranked = judged_ids([h.chunk for h in answer.hits], item.relevant)
        text = plain_text(answer)  # graded as a user reads it (`ask` output, the JSON `answer`)
        if item.answerable:  # scored on what answers, not on the related reading listed under it
            result.facts = key_fact_recall(answer.lead or text, answer.abstained, item.key_facts)
        if not answer.abstained:
            check = check_citations(text, {c.n: lookup(c.id) for c in answer.citations})
            result.citations_valid, result.citation_problems = check.valid, check.problems
        if item.near:
            first = answer.citations[0].id if answer.citations else None
            result.wrong_fix = is_wrong_fix(text, answer.abstained, first, item.near, item.forbidden_facts)
        results.append(result)
        if i % 20 == 0:
            progress(f"{system.name}: {i}/{len(items)}")
    labelled = [r for r in results if r.item.answerable and r.item.relevant]  # `relevant: []`: key facts only
    scores = retrieval_scores(
        {r.item.id: r.item.relevant for r in labelled}, {r.item.id: r.ranked for r in labelled}
    )
    for r in results:
        r.retrieval = scores.get(r.item.id, {})
    return results


METRIC_COLUMNS = [
    ("hit@1", "hit@1"),
    ("hit@3", "hit@3"),
    ("mrr@10", "MRR@10"),
    ("ndcg@10", "nDCG@10"),
    ("key_fact_recall", "key-fact recall"),
    ("citation_validity", "citation validity"),
    ("abstain_rate", "abstained"),
    ("abstain_precision", "abstain P"),
    ("abstain_recall", "abstain R"),
    ("abstain_accuracy", "abstain acc"),
    ("false_abstention", "false abstentions"),
    ("answered_without_fix", "answered without fix"),
    ("wrong_fix_rate", "wrong-fix rate"),
    ("p50_ms", "p50 ms"),
    ("p95_ms", "p95 ms"),
    ("cpu_p50_ms", "CPU p50 ms"),
]


def summarize(results: Sequence[Result], set_name: str, system: str) -> Row:
    """One table row over these results; a metric is NaN (shown as '—') where it does not apply."""
    answerable = [r for r in results if r.item.answerable]
    answered = [r for r in results if not r.answer.abstained]
    negatives = [r for r in results if r.item.expect == "abstain"]
    near = [r for r in results if r.item.expect == "not_fix"]
    m: dict[str, float] = {}
    labelled = [r for r in answerable if r.item.relevant]  # an item labelled `relevant: []` has no hit to find
    for key in ("hit@1", "hit@3", "mrr@10", "ndcg@10"):
        m[key] = mean(r.retrieval.get(key, 0.0) for r in labelled)
    m["key_fact_recall"] = mean(r.facts for r in answerable)
    m["citation_validity"] = mean(1.0 if r.citations_valid else 0.0 for r in answered)
    m["abstain_rate"] = mean(1.0 if r.answer.abstained else 0.0 for r in results)
    if negatives and answerable:
        a = abstention((r.item.expect == "abstain", r.answer.abstained) for r in negatives + answerable)
        m["abstain_precision"], m["abstain_recall"], m["abstain_accuracy"] = a.precision, a.recall, a.accuracy
    else:
        m["abstain_precision"] = m["abstain_recall"] = m["abstain_accuracy"] = float("nan")
    m["false_abstention"] = mean(1.0 if r.answer.abstained else 0.0 for r in answerable)
    # The costly error: an answer given with confidence whose lead lacks the fix (worse than abstaining).
    m["answered_without_fix"] = mean(0.0 if r.answer.abstained or r.facts >= 1.0 else 1.0 for r in answerable)
    # The LLM backend: answers it wrote (verified) vs extractive fallbacks, and citation validity of its own.
    llm = [r for r in answered if r.answer.written_by == "llm"]
    m["llm_written"] = float(len(llm))
    m["llm_fallbacks"] = float(len(answered) - len(llm))
    m["llm_citation_validity"] = mean(1.0 if r.citations_valid else 0.0 for r in llm)
    m["wrong_fix_rate"] = mean(1.0 if r.wrong_fix else 0.0 for r in near)
    latencies = [r.latency_ms for r in results]
    m["p50_ms"], m["p95_ms"] = percentile(latencies, 50), percentile(latencies, 95)
    m["cpu_p50_ms"] = percentile([r.cpu_ms for r in results], 50)
    return Row(set=set_name, system=system, n=len(results), metrics=m)


def table_rows(results: Sequence[Result], set_names: Sequence[str], systems: Sequence[str]) -> list[Row]:
    rows = []
    for set_name in list(set_names) + (["all"] if len(set_names) > 1 else []):
        for system in systems:
            chosen = [r for r in results if r.system == system and (set_name == "all" or r.item.set == set_name)]
            if chosen:
                rows.append(summarize(chosen, set_name, system))
    return rows


def _fmt(key: str, v: float) -> str:
    if math.isnan(v):
        return "—"
    return f"{v:.0f}" if key.endswith("_ms") else f"{v:.3f}"


def markdown_table(rows: Sequence[Row]) -> str:
    head = "| set | system | n | " + " | ".join(label for _, label in METRIC_COLUMNS) + " |"
    rule = "|---|---|---:|" + "|".join("---:" for _ in METRIC_COLUMNS) + "|"
    body = [
        f"| {r.set} | {r.system} | {r.n} | "
        + " | ".join(_fmt(k, r.metrics.get(k, float("nan"))) for k, _ in METRIC_COLUMNS)
        + " |"
        for r in rows
    ]
    return "\n".join([head, rule, *body])


def failure_lines(results: Sequence[Result], system: str) -> list[str]:
    out = []
    for r in results:
        if r.system == system and r.failures:
            out.append(
                f"- `{r.item.id}` ({r.item.set}, {r.item.lang}, {r.item.kind or r.item.expect}): "
                + "; ".join(r.failures)
            )
    return out


def result_record(r: Result) -> dict:
    """Per-query detail for results.json: enough to see why a query failed without re-running it."""
    return {
        "id": r.item.id,
        "set": r.item.set,
        "system": r.system,
        "lang": r.item.lang,
        "abstained": r.answer.abstained,
        "top": [h.chunk.id for h in r.answer.hits[:3]],
        "top_confidence": round(r.answer.hits[0].confidence, 4) if r.answer.hits else None,
        "citations": [c.id for c in r.answer.citations],
        **{k: round(v, 4) for k, v in r.retrieval.items()},
        "key_fact_recall": None if r.facts != r.facts else round(r.facts, 4),
        "citations_valid": r.citations_valid,
        "wrong_fix": r.wrong_fix,
        "latency_ms": round(r.latency_ms, 1),
        "cpu_ms": round(r.cpu_ms, 1),
        "failures": r.failures,
    }


def answerable_sets(names: Sequence[str]) -> list[str]:
    return [n for n in names if n in ANSWERABLE]


def release_items(items: Sequence[Item], release: str) -> list[Item]:
    """The items as scored on `make run`'s corpus for vLLM `release`: each with its labels there
    (`Item.on_release`; a negative those docs answer joins `reports` if it is a paste, else `docs`), its docs
    labels as the ids `make run` cites (`https://docs.vllm.ai/en/v<release>/<page>/#<anchor>`)."""
    from dataclasses import replace

    from assistant.eval.release_corpus import served_label
    from assistant.retrieval.evidence import is_paste

    out = []
    for item in items:
        scored = item.on_release(release, "reports" if is_paste(item.query) else "docs")
        out.append(replace(scored, relevant=tuple(served_label(label, release) for label in scored.relevant)))
    return out


@dataclass
class EvalRun:
    sets: list[str]
    systems: list[str]
    results: list[Result]
    rows: list[Row]
    meta: dict


def run_eval(
    settings: Settings,
    set_names: Sequence[str],
    system_names: Sequence[str],
    docs_dir: Path = DEFAULT_DOCS_DIR,
    sets_dir: Path | None = None,
    progress: Progress = lambda _m: None,
    assistant: Assistant | None = None,
    split: Split = "all",
    docs_release: str | None = None,
) -> EvalRun:
    """Build/update the eval index, run every system over the chosen sets, and score them.

    `split`: every query, only the held-out ones (the CI gate's: never used to fit the evidence model), or
    only those the fit uses (`assistant/eval/split.py`). `docs_release`: score on `make run`'s corpus for that
    vLLM release instead of `docs_dir` (`assistant/eval/release_corpus.py`; `settings` from `release_settings`),
    each item with its labels there (`release_items`).
    """
    import platform

    from assistant.eval.baselines import check_system_names, make_systems
    from assistant.eval.dataset import DEFAULT_SETS_DIR, load_sets

    check_system_names(list(system_names))
    sets = load_sets(list(set_names), sets_dir or DEFAULT_SETS_DIR)
    items = [
        item
        for name in set_names
        for item in sets[name]
        if split == "all" or is_held_out(item) == (split == "held_out")
    ]
    if docs_release:
        answered = [item.id for item in items if item.answered_by(docs_release)]
        items = release_items(items, docs_release)
        if answered:
            progress(f"{len(answered)} negatives are answerable on vLLM {docs_release}'s docs: {', '.join(answered)}")
    if assistant is None and docs_release:
        from assistant.eval.release_corpus import build_release_index

        assistant = Assistant(settings)
        build_release_index(assistant, progress)
    elif assistant is None:
        if not docs_dir.is_dir():
            from assistant.errors import ConfigError

            raise ConfigError(f"the docs folder {docs_dir} does not exist; pass --docs-dir (the vLLM docs to ingest)")
        assistant = Assistant(settings)
        build_index(assistant, docs_dir, progress)
    threads = apply_torch_threads(settings)
    by_id = assistant.retriever.lexical.by_id
    code_facts = code_fact_lookup(assistant.releases)  # the release's env vars, flags and raise sites an answer cites
    lookup = lambda cid: by_id.get(cid) or code_facts(cid)
    results: list[Result] = []
    for system in make_systems(assistant, list(system_names)):
        progress(f"running {system.name} over {len(items)} queries")
        results += run_system(system, items, lookup, progress)
    meta = {
        "index_chunks": assistant.retriever.lexical.n_docs,
        "embedding_model": settings.embedding_model,
        "answer_backend": settings.answer_backend,
        "min_confidence": settings.evidence_bars[0],
        "min_confidence_paste": settings.evidence_bars[1],
        "problem_evidence": settings.problem_evidence,
        "top_k": settings.top_k,
        "torch_threads": threads,
        "split": split,
        "corpus": f"make run's for vLLM {docs_release}" if docs_release else "the gate's",
        "load_avg": round(os.getloadavg()[0], 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, Python {platform.python_version()}",
    }
    return EvalRun(
        list(set_names), list(system_names), results, table_rows(results, list(set_names), list(system_names)), meta
    )


def release_section(path: Path = REPO_ROOT / "eval" / "release" / "results.md") -> list[str]:
    """The raise-site eval's table (`python -m assistant eval-release --write`), repeated here beside the others."""
    if not path.is_file():
        return []
    table = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("|")]
    return [
        "",
        "## Raise sites in vLLM's own source",
        "",
        *table,
        "",
        "Details and misses: [release/results.md](release/results.md).",
    ]


MAKERUN_RESULTS = REPO_ROOT / "eval" / "results-makerun.md"
MAKERUN_HEADING = "## What `make run` serves"
_BEGIN, _END = "<!-- summary -->", "<!-- /summary -->"


def makerun_summary(run: EvalRun, command: str) -> list[str]:
    """The lines results.md shows for a run on `make run`'s corpus: the table, the Chinese pairs, the targets."""
    m = {(r.set, r.system): r.metrics for r in run.rows}
    full = {name: m.get((name, "full"), {}) for name in ("docs", "reports", "all")}
    pairs = paired_chinese(run.results, "full")
    chunks = run.meta["index_chunks"]
    lines = [
        (
            f"`{command}`: {run.meta['corpus']} corpus ({chunks} chunks: the curated entries and the release's docs, "
            "plus its code facts), built by the server's own start-up step; each item with its labels on the "
            f"release's pages. Queries: {_split_note(run.meta.get('split', 'all'))}"
        ),
        "",
        markdown_table(run.rows),
    ]
    targets = [
        ("docs key facts (lead)", full["docs"].get("key_fact_recall"), "≥ 0.85"),
        ("reports key facts (lead)", full["reports"].get("key_fact_recall"), "≥ 0.70"),
        ("false abstentions", full["all"].get("false_abstention"), "≤ 0.08"),
        ("abstention recall", full["all"].get("abstain_recall"), "≥ 0.85"),
    ]
    if pairs:
        targets += [
            ("zh − en hit@3", pairs["zh_hit@3"] - pairs["en_hit@3"], "≥ −0.05"),
            ("zh − en key facts", pairs["zh_key_facts"] - pairs["en_key_facts"], "≥ −0.05"),
        ]
    lines += ["", "| issue 21 target | measured | target |", "|---|---:|---:|"]
    lines += [f"| {name} | {_fmt('x', v if v is not None else float('nan'))} | {t} |" for name, v, t in targets]
    if pairs:
        lines += [
            "",
            (f"Chinese pairs: {pairs['n']:.0f}; zh hit@3 {pairs['zh_hit@3']:.3f} vs en {pairs['en_hit@3']:.3f}; "
            f"zh key facts {pairs['zh_key_facts']:.3f} vs en {pairs['en_key_facts']:.3f}."),
        ]
    return lines


def makerun_section(path: Path = MAKERUN_RESULTS) -> list[str]:
    """The summary of results-makerun.md (`python -m assistant eval --docs-release X --write`), shown in results.md."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    if _BEGIN not in text or _END not in text:
        return []
    body = text.split(_BEGIN, 1)[1].split(_END, 1)[0].strip("\n").splitlines()
    return ["", MAKERUN_HEADING, "", *body, "", "Details and failures: [results-makerun.md](results-makerun.md)."]


def splice_makerun_section(results: Path, section: list[str]) -> None:
    """Put `section` in place of results.md's section of that heading (appended when it has none), so a run on
    `make run`'s corpus shows there without scoring the gate's corpus again."""
    if not results.is_file():
        return
    lines = results.read_text(encoding="utf-8").splitlines()
    if MAKERUN_HEADING in lines:
        start = lines.index(MAKERUN_HEADING) - 1  # the blank line before it
        end = next((i for i in range(start + 2, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section + ([""] if end < len(lines) else [])
    else:
        at = next((i for i, ln in enumerate(lines) if ln.startswith("## ")), len(lines))
        lines[at:at] = section[1:] + [""]
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")


def render_makerun(run: EvalRun, command: str) -> str:
    lines = ["# Eval results: what `make run` serves", "", (f"Generated by `{command}`; do not edit by hand. "
             "Definitions in [README.md](README.md)."), "", _BEGIN, *makerun_summary(run, command), _END]  # fmt: skip
    for system in run.systems:
        failures = failure_lines(run.results, system)
        lines += ["", f"## Failures: {system} ({len(failures)})", ""]
        lines += failures or ["none"]
    return "\n".join(lines) + "\n"


def paired_chinese(results: Sequence[Result], system: str) -> dict[str, float] | None:
    """hit@k and key-fact recall of each Chinese rendering (docs_zh) beside its English twin's (docs), over the pairs
    both ran."""
    twins = {r.item.id: r for r in results if r.system == system and r.item.set == "docs"}
    pairs = [
        (r, twins[r.item.pair])
        for r in results
        if r.system == system and r.item.set == "docs_zh" and r.item.pair in twins
    ]
    if not pairs:
        return None
    return {
        "n": float(len(pairs)),
        "zh_hit@3": mean(z.retrieval.get("hit@3", 0.0) for z, _ in pairs),
        "en_hit@3": mean(e.retrieval.get("hit@3", 0.0) for _, e in pairs),
        "zh_hit@1": mean(z.retrieval.get("hit@1", 0.0) for z, _ in pairs),
        "en_hit@1": mean(e.retrieval.get("hit@1", 0.0) for _, e in pairs),
        "zh_key_facts": mean(z.facts for z, _ in pairs),
        "en_key_facts": mean(e.facts for _, e in pairs),
    }


def _paired_lines(run: EvalRun) -> list[str]:
    rows = [(s, paired_chinese(run.results, s)) for s in run.systems]
    rows = [(s, p) for s, p in rows if p]
    if not rows:
        return []
    lines = [
        "",
        "## Chinese paired set",
        "",
        "Each `docs_zh` question is a Chinese rendering of a `docs` question with the same expected sources.",
        "",
        "| system | pairs | zh hit@1 | en hit@1 | zh hit@3 | en hit@3 | zh − en hit@3 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s, p in rows:
        lines.append(
            f"| {s} | {p['n']:.0f} | {p['zh_hit@1']:.3f} | {p['en_hit@1']:.3f} | {p['zh_hit@3']:.3f} | "
            f"{p['en_hit@3']:.3f} | {p['zh_hit@3'] - p['en_hit@3']:+.3f} |"
        )
    return lines


def _llm_lines(run: EvalRun) -> list[str]:
    if run.meta.get("answer_backend") != "openai":
        return []
    row = next((r for r in run.rows if r.set == "all" and r.system == "full"), None) or next(
        (r for r in run.rows if r.system == "full"), None
    )
    if row is None:
        return []
    m = row.metrics
    return [
        "",
        "## LLM backend",
        "",
        (
            f"Answered (not abstained): {m['llm_written'] + m['llm_fallbacks']:.0f}; written by the LLM and verified: "
            f"{m['llm_written']:.0f}; extractive fallbacks (LLM unreachable, slow, abstaining or failing verification): "
            f"{m['llm_fallbacks']:.0f}. Citation validity over the answers the LLM wrote: "
            f"{_fmt('llm_citation_validity', m['llm_citation_validity'])} (the `citation validity` column counts the "
            "fallbacks too)."
        ),
    ]


def _split_note(split: str) -> str:
    if split == "held_out":
        return (
            "the held-out split only (`assistant/eval/split.py`: one question in three, and every near-miss), which "
            "the evidence model and the threshold were never fitted on (see [calibration.md](calibration.md))."
        )
    if split == "fitting":
        return "the fitting split only: the questions `eval/calibrate.py` fits on (in-sample numbers)."
    return (
        "every query. Two thirds of the answerable and negative questions are the evidence model's fitting side "
        "(in-sample there); see the held-out rows in [calibration.md](calibration.md) and the gate."
    )


def render_markdown(run: EvalRun, command: str) -> str:
    lines = [
        "# Eval results",
        "",
        f"`{command}` — definitions in [README.md](README.md). Generated; do not edit by hand.",
        "",
        (
            f"Index: {run.meta['index_chunks']} chunks (curated corpus + vLLM docs); embedding model "
            f"`{run.meta['embedding_model']}`; answer backend `{run.meta['answer_backend']}`; "
            f"min_confidence {run.meta['min_confidence']} (pastes {run.meta.get('min_confidence_paste', '—')}); "
            f"{run.meta['torch_threads']} PyTorch thread(s) per query, as served; "
            f"{run.meta['machine']}. Latency is wall time per query, warm, "
            f"on a shared machine (1-min load average {run.meta.get('load_avg', '?')} at the end of the run): read it as an "
            "order of magnitude; `CPU p50` is the process CPU time per query (all threads), which waiting for a core does not add to."
        ),
        "",
        markdown_table(run.rows),
        "",
        (
            "Row `all`: retrieval and key-fact metrics over the answerable sets (seed + docs + docs_zh + reports + entry_questions + entry_questions_fit), "
            "citation validity "
            "over every answered query, abstention over negatives (should abstain) vs the answerable sets (should answer), "
            "wrong-fix rate over near-misses, latency over every query. Baselines abstain only when nothing is retrieved, "
            "the question instructs the assistant, says vLLM is not involved or is about another engine and never mentions "
            "vLLM (the refusals of the extractive composer they share). "
            "Key-fact recall is scored on the answer's lead (the answering source's passage), not on the related sections "
            "listed under it. `false abstentions`: answerable questions abstained on. `answered without fix`: answerable "
            "questions answered with a lead that lacks a key fact, the error a user pays most for."
        ),
        "",
        f"Queries: {_split_note(run.meta.get('split', 'all'))}",
    ]
    lines += makerun_section() + release_section()

    lines += _paired_lines(run) + _llm_lines(run)
    for system in run.systems:
        failures = failure_lines(run.results, system)
        lines += ["", f"## Failures: {system} ({len(failures)})", ""]
        lines += failures or ["none"]
    return "\n".join(lines) + "\n"


def write_results(run: EvalRun, out_dir: Path, command: str, stem: str = "results") -> tuple[Path, Path]:
    """results.md/.json (or `stem`); a run on `make run`'s corpus writes results-makerun.md/.json and its section
    of results.md."""
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    md, js = out_dir / f"{stem}.md", out_dir / f"{stem}.json"
    if stem == "results-makerun":
        md.write_text(render_makerun(run, command), encoding="utf-8")
        splice_makerun_section(out_dir / "results.md", makerun_section(md))
    else:
        md.write_text(render_markdown(run, command), encoding="utf-8")
    payload = {
        "command": command,
        "meta": run.meta,
        "rows": [r.to_dict() for r in run.rows],
        "queries": [result_record(r) for r in run.results],
    }
    js.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return md, js
