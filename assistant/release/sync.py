"""Sync one release into an index: fetch its source, extract its facts, store them (the entry point `sync` calls)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from assistant.release.extract import FileFacts, _extract_job, assemble
from assistant.release.fetch import SourceFiles, open_source, parse_spec
from assistant.release.models import ReleaseSpec, SyncReport
from assistant.release.store import ReleaseStore

Progress = Callable[[str], None]


def extract_all(source: SourceFiles, progress: Progress, workers: int = 0) -> list[FileFacts]:
    """Parse every file; in `workers` processes when more than one (ast parsing is CPU-bound)."""
    workers = workers or min(2, os.cpu_count() or 1)
    total = len(source.paths)
    jobs = ((path, text, source.version) for path, text in source)
    out: list[FileFacts] = []
    step = max(1, total // 10)

    def tick(i: int) -> None:
        if i % step == 0 or i == total:
            progress(f"vLLM {source.version}: parsed {i}/{total} files")

    if workers <= 1 or total < 50:
        for i, job in enumerate(jobs, start=1):
            out.append(_extract_job(job))
            tick(i)
        return out
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        for i, facts in enumerate(pool.map(_extract_job, jobs, chunksize=16), start=1):
            out.append(facts)
            tick(i)
    return out


def sync_release(
    spec: ReleaseSpec | str,
    store: ReleaseStore,
    progress: Progress = lambda _m: None,
    cache_dir: Path = Path(".data/wheels"),
    workers: int = 0,
    as_version: str | None = None,
    force: bool = False,
) -> SyncReport:
    """Index one release; a release already indexed is skipped (nothing downloaded) unless `force`."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    started = time.perf_counter()
    known = as_version or spec.version
    if known and store.has(known) and not force:
        return _skipped(store, known)
    source = open_source(spec, cache_dir, progress, as_version)
    if store.has(source.version) and not force:
        return _skipped(store, source.version)
    progress(f"vLLM {source.version}: reading {len(source.paths)} Python files from {source.origin}")
    files = extract_all(source, progress, workers)
    facts = assemble(source.version, source.origin, files, len(source.paths))
    store.save(facts)
    report = SyncReport(
        version=facts.version,
        origin=facts.origin,
        files=facts.files,
        env_vars=len(facts.env_vars),
        flags=len(facts.flags),
        sites=len(facts.sites),
        seconds=time.perf_counter() - started,
    )
    progress(report.summary())
    return report


def _skipped(store: ReleaseStore, version: str) -> SyncReport:
    facts = store.load(version)
    return SyncReport(
        version=version,
        origin=facts.origin,
        files=facts.files,
        env_vars=len(facts.env_vars),
        flags=len(facts.flags),
        sites=len(facts.sites),
        skipped=True,
    )
