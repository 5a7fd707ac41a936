"""A pasted error that matches a raise site of the user's release is explained by that site first, unless the docs
section found quotes the same message: real index (curated entries, a docs folder, two small releases), real model.

The index holds a fixed set of the curated entries (ones about GPU memory, which compete with the sections here; for
the tests of sections against sites none that quotes the error, so the section is what the site is weighed against),
not the whole corpus: the ranking between a section and an entry rests on
corpus statistics (BM25's document frequencies, the calibration's shares), so with the whole corpus every entry added
anywhere would move these margins, and a test of the code-first rule would become a test of corpus size."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import make_settings

NEW = "0.99.0"
KV = "ValueError: No available memory for the cache blocks. Try increasing gpu_memory_utilization"
SITE = f"https://github.com/vllm-project/vllm/blob/v{NEW}/vllm/v1/core/kv_cache_planning.py#L"
NEAR_PAGE = """# Memory

## Out of memory for the KV cache at start-up

At start-up vLLM profiles the GPU memory the model needs and gives what is left to the KV cache blocks. If no memory
is available for the cache blocks, increase `gpu_memory_utilization` when you initialize the engine, lower
`max_model_len`, or spread the model over more GPUs with tensor parallelism.
"""
QUOTING_PAGE = """# Memory errors

## No available memory for the cache blocks

When the engine starts it profiles memory; `ValueError: No available memory for the cache blocks` means the model's
weights and activations left nothing for the KV cache on this GPU. Raise `--gpu-memory-utilization` (for example to
0.95), lower `--max-model-len`, or shard the model with `--tensor-parallel-size`.
"""


MEMORY = (
    "cuda-graph-memory-profiling-default-smaller-kv-cache",
    "cuda-out-of-memory-model-does-not-fit",
    "free-memory-less-than-gpu-memory-utilization",
    "kv-cache-max-model-len-exceeds-kv-cache",
    "kv-cache-maximum-concurrency-log-meaning",
    "kv-cache-preemption-recompute-warning",
    "offline-llm-free-gpu-memory-second-model",
    "v1-default-max-num-seqs-oom",
)
QUOTING = ("gpu-memory-utilization-global-limit-0-6-4",)  # quotes KV; about certain releases
FLAG = ("enable-reasoning-flag-removed",)
REPO_ENTRIES = Path(__file__).resolve().parents[2] / "corpus" / "entries"


def _corpus(tmp_path, entries: tuple[str, ...]) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "entries").mkdir(parents=True)
    for name in entries:
        shutil.copy(REPO_ENTRIES / f"{name}.yaml", corpus / "entries")
    return corpus


def _assistant(tmp_path, embedder, wheels, docs, entries=MEMORY + QUOTING + FLAG):
    from assistant.service import Assistant

    # the rule is weighed at the ordinary bar: the pasted error never names vLLM (`min_confidence_unnamed`)
    settings = make_settings(tmp_path / "index", corpus_dir=_corpus(tmp_path, entries), min_confidence_unnamed=0.0)
    a = Assistant(settings, embedder=embedder)
    a.ensure_index()  # the fixed entries
    a.sync([str(p) for p in wheels.values()])
    if docs is not None:
        a.ingest([docs])
    return a


def _docs(tmp_path, page: str):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memory.md").write_text(page, encoding="utf-8")
    return docs


def test_the_raise_site_leads_over_a_section_that_does_not_quote_the_error(tmp_path, embedder, wheels):
    a = _assistant(tmp_path, embedder, wheels, _docs(tmp_path, NEAR_PAGE), MEMORY)
    answer = a.ask(KV)
    doc = answer.hits[0]
    assert doc.chunk.kind == "doc" and doc.confidence >= a.settings.min_confidence  # without the rule, it would answer
    assert not answer.abstained and answer.citations[0].source.startswith(SITE)
    assert doc.chunk.source in [c.source for c in answer.citations[1:]]  # offered after the code
    assert "[2]" not in answer.lead  # the lead is the code's alone


def test_a_section_that_quotes_the_error_leads(tmp_path, embedder, wheels):
    a = _assistant(tmp_path, embedder, wheels, _docs(tmp_path, QUOTING_PAGE), MEMORY)
    answer = a.ask(KV)
    assert not answer.abstained
    assert answer.citations[0].source.endswith("#no-available-memory-for-the-cache-blocks"), answer.citations
    assert any(c.source.startswith(SITE) for c in answer.citations[1:])  # the raise site follows the section


def test_an_entry_about_certain_releases_follows_the_raise_site_when_the_user_names_no_release(
    tmp_path, embedder, wheels
):
    a = _assistant(tmp_path, embedder, wheels, None)
    answer = a.ask(KV)
    entry = answer.hits[0]
    assert entry.chunk.kind == "entry" and entry.chunk.entry.conditions.affected_versions  # it ranks first
    assert not answer.abstained and answer.citations[0].source.startswith(SITE)  # the release's site leads
    assert entry.chunk.source in [c.source for c in answer.citations[1:]]  # the entry is still offered, after it


def test_an_entry_whose_releases_include_the_assumed_one_leads_over_the_code_facts(tmp_path, embedder, wheels):
    """A flag removed in 0.10.0: the release the facts are read from (0.99.0, the newest indexed) is one the entry is
    about, so the entry (cause, fix) leads and the facts of that release follow it."""
    a = _assistant(tmp_path, embedder, wheels, None)
    answer = a.ask("vllm serve fails: vllm: error: unrecognized arguments: --enable-reasoning")
    assert not answer.abstained
    assert answer.citations[0].id == "enable-reasoning-flag-removed", answer.citations
    assert "--reasoning-parser" in answer.lead  # the entry's fix
    assert f"does not exist in vLLM {NEW}" in answer.lead  # the code fact, after it


@pytest.fixture
def wheels(tmp_path):
    from tests.release.small_wheel import build_wheel

    return {v: build_wheel(tmp_path / "wheels", v) for v in ("0.98.0", NEW)}
