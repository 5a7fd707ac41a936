"""A release's documentation from its source distribution on the package index: found through the simple API
(a local server standing in for the index), hash-checked, cached, indexed once into a real Chroma with the real
model, cited at the release's docs URL; failures are clear errors and leave the assistant answering."""

from __future__ import annotations

import json

import pytest

from assistant.api.readiness import Readiness
from assistant.cli import main
from assistant.errors import ConfigError, ReleaseError
from assistant.release.sdist import download_sdist
from assistant.service import Assistant
from assistant.sync.sources import parse_sources, release_docs_source
from tests.conftest import CURATED, make_settings
from tests.release.small_wheel import build_wheel
from tests.helpers.corpus import some_entries
from tests.sync.conftest import docs_tarball
from tests.sync.fake_index import FakeIndex

VERSION = "0.0.1"
SDIST = f"vllm-{VERSION}.tar.gz"
HANG = "vllm hangs at startup, how do I get more logging to debug the hang?"


def _settings(tmp_path, index_url: str):
    """An index of its own, the release `VERSION` at start-up, and the package index at `index_url`."""
    return make_settings(
        tmp_path / "index", vllm_releases=[VERSION], package_index_url=index_url, wheel_cache_dir=tmp_path / "w"
    )


def _blob() -> bytes:
    return docs_tarball(f"vllm-{VERSION}", folders=("usage",))  # a source distribution's layout: vllm-X.Y.Z/docs/


@pytest.mark.parametrize("html", [False, True], ids=["pep691-json", "pep503-html"])
def test_the_sdist_is_found_downloaded_checked_and_cached(tmp_path, html):
    blob = _blob()  # once: gzip stamps the time into its header
    with FakeIndex(html=html) as index:
        index.add(SDIST, blob)
        index.add("vllm-0.0.2.tar.gz", b"another release")
        said: list[str] = []
        path = download_sdist(VERSION, tmp_path, said.append, index.url)
        assert path == tmp_path / VERSION / SDIST and path.read_bytes() == blob
        assert any("downloaded" in s for s in said)
        asked = len(index.requests)
        assert download_sdist(VERSION, tmp_path, said.append, index.url) == path
        assert len(index.requests) == asked  # from the cache: the index is not asked again


def test_a_file_that_does_not_match_its_hash_is_not_kept(tmp_path):
    with FakeIndex() as index:
        index.add(SDIST, _blob())
        index.wrong_hash.add(SDIST)
        with pytest.raises(ReleaseError, match="SHA-256"):
            download_sdist(VERSION, tmp_path, lambda _m: None, index.url)
    assert not any((tmp_path / VERSION).iterdir())  # neither the file nor a partial download


def test_a_release_the_index_lacks_and_an_unreachable_index_are_clear_errors(tmp_path):
    with FakeIndex() as index:
        index.add("vllm-0.0.2.tar.gz", b"another release")
        with pytest.raises(ReleaseError, match=f"no source distribution {SDIST}"):
            download_sdist(VERSION, tmp_path, lambda _m: None, index.url)
        dead = index.url
    with pytest.raises(ReleaseError, match="cannot reach the package index"):
        download_sdist(VERSION, tmp_path, lambda _m: None, dead, timeout=5)


def test_the_source_needs_a_release_tag_and_one_origin():
    def parse(line: str):
        return parse_sources(f"sources:\n  - {line}\n", "s.yaml")

    assert parse("{name: d, kind: docs, ref: v0.33.0, package_index: true}")[0].package_index
    with pytest.raises(ConfigError, match="release tag"):
        parse("{name: d, kind: docs, ref: main, package_index: true}")
    with pytest.raises(ConfigError, match="either archive or package_index"):
        parse("{name: d, kind: docs, ref: v0.33.0, package_index: true, archive: x.tar.gz}")
    assert release_docs_source("vllm==0.33.0").ref == "v0.33.0"
    assert release_docs_source("/wheels/vllm-0.33.0-cp38-abi3-linux_x86_64.whl") is None


def test_start_up_indexes_the_releases_docs_once_and_answers_cite_them(tmp_path, embedder):
    with FakeIndex() as index:
        index.add(SDIST, _blob())
        settings = _settings(tmp_path, index.url)
        first = Assistant(settings, embedder=embedder)
        first.ensure_index()
        report = first.ensure_release_docs()
        assert report is not None and report.ok and report.wrote, report.summary()
        answer = first.ask(HANG)  # the same instance answers from the docs the sync made live
        cited = [c.source for c in answer.citations]
        assert not answer.abstained and cited[0].startswith(f"https://docs.vllm.ai/en/v{VERSION}/usage/"), cited

        assert answer.body.startswith(f"**From the vLLM {VERSION} documentation: ")
        assert "you run" not in answer.body  # no version stated: nothing to compare
        older = first.ask(f"on vllm 0.1.0 {HANG}").body
        assert f"These are vLLM {VERSION}'s docs and you run 0.1.0" in older
        assert "0.0.1 的文档，而你用的是 0.1.0" in first.ask("vllm 0.1.0 启动卡住了，怎么打开更多日志来调试？").body

        asked = len(index.requests)
        again = Assistant(settings, embedder=embedder)
        assert again.ensure_index() is None  # the sync's generation kept the build record: nothing rebuilt
        report = again.ensure_release_docs()
        assert report is not None and report.ok and not report.wrote
        assert len(index.requests) == asked  # a release's sdist is read once
        assert again.ask(HANG).citations[0].source == cited[0]


PARAMS = '''class SamplingParams:
    """Sampling parameters for text generation."""

    repetition_penalty: float = 1.0
    """Penalizes new tokens based on whether they appear in the prompt and the
    generated text so far. Values > 1 encourage the model to use new tokens."""
'''


def test_docs_read_by_an_older_reader_are_read_again_once_with_the_reference_pages(tmp_path, embedder, monkeypatch):
    """An index whose release docs were read before the API reference pages existed (an older `READER`, which never
    looked at the source beside docs/) gets them on its next start, from the cached sdist; later starts read nothing."""
    from assistant.sync import docs_archive

    page = f"https://docs.vllm.ai/en/v{VERSION}/api/vllm/sampling_params/"
    section = f"{page}#vllm.sampling_params.SamplingParams"
    with FakeIndex() as index:
        index.add(SDIST, docs_tarball(f"vllm-{VERSION}", folders=("usage",), files={"vllm/sampling_params.py": PARAMS}))
        some_entries(tmp_path / "corpus" / "entries", n=10)  # the entries are not what this is about
        settings = _settings(tmp_path, index.url).model_copy(update={"corpus_dir": tmp_path / "corpus"})
        with monkeypatch.context() as old:
            old.setattr(docs_archive, "READER", 1)
            old.setattr(docs_archive, "API_MODULES", ())
            first = Assistant(settings, embedder=embedder)
            first.ensure_index()
            assert first.ensure_release_docs().wrote
            assert section not in set(first.store.hashes())

        said: list[str] = []
        again = Assistant(settings, embedder=embedder)
        report = again.ensure_release_docs(progress=said.append)
        assert report is not None and report.ok and report.wrote, report.summary()
        assert section in set(again.store.hashes())
        assert not any("already read" in s for s in said)
        answer = again.ask("With vLLM, how can I penalise repetition in the generated text?")
        assert not answer.abstained and answer.citations[0].source == section, answer.body

        said.clear()
        third = Assistant(settings, embedder=embedder)
        assert not third.ensure_release_docs(progress=said.append).wrote
        assert any("already read" in s for s in said)


def test_without_the_index_the_assistant_starts_and_answers_from_the_rest(tmp_path, embedder):
    with FakeIndex() as index:
        dead = index.url
    settings = _settings(tmp_path, dead)
    assistant = Assistant(settings, embedder=embedder)
    assistant.ensure_index()
    report = assistant.ensure_release_docs()
    assert report is not None and not report.ok
    assert "cannot reach the package index" in report.summary()
    answer = assistant.ask("RuntimeError: not home_path.empty()")
    assert not answer.abstained and answer.citations[0].source.endswith("deepgemm-fp8-home-path-empty.yaml")


def _with_release(tmp_path, embedder, index_url: str) -> Assistant:
    """An assistant whose release's code is already indexed, so that a start-up only has the docs left to sync."""
    assistant = Assistant(_settings(tmp_path, index_url), embedder=embedder)
    assistant.sync([str(build_wheel(tmp_path, VERSION))])
    return assistant


@pytest.mark.parametrize("reachable", [True, False], ids=["index-up", "index-down"])
def test_the_server_start_indexes_the_releases_docs_before_ready_or_serves_without_them(tmp_path, embedder, reachable):
    with FakeIndex() as index:
        index.add(SDIST, _blob())
        if reachable:
            assistant = _with_release(tmp_path, embedder, index.url)
            ready = Readiness()
            ready.prepare(assistant)
    if not reachable:  # the index's server has stopped: its address answers nothing
        assistant = _with_release(tmp_path, embedder, index.url)
        ready = Readiness()
        ready.prepare(assistant)
    assert ready.state == "ready", ready.detail
    answer = assistant.ask(HANG)
    cited = answer.citations[0].source if answer.citations else None
    if reachable:
        assert ready.chunks is not None and ready.chunks > CURATED  # the curated entries and the release's docs
        assert cited is not None and cited.startswith(f"https://docs.vllm.ai/en/v{VERSION}/usage/"), cited
    else:
        assert ready.chunks == CURATED and (cited is None or "docs.vllm.ai" not in cited)


def test_a_sync_holding_the_index_at_start_up_leaves_the_server_ready_without_the_docs(tmp_path, embedder):
    from assistant.sync.lock import file_lock

    with FakeIndex() as index:
        index.add(SDIST, _blob())
        assistant = _with_release(tmp_path, embedder, index.url)
        settings = assistant.settings
        ready = Readiness()
        with file_lock(settings.index_dir / f"sync-{settings.collection}.lock"):  # e.g. `python -m assistant sync`
            ready.prepare(assistant)
        assert ready.state == "ready" and ready.chunks == CURATED, ready.detail
        assert not any(r.startswith("/files/") for r in index.requests)


def test_the_eval_scores_what_make_run_serves_with_each_items_labels_on_that_release(tmp_path, monkeypatch, capsys):
    """`eval --docs-release` builds its index by the server's start-up step (the entries, the release's code facts
    from its wheel, its docs from its sdist), and a negative labelled as answered by that release is answerable."""
    import shutil

    sets = tmp_path / "sets"
    sets.mkdir()
    label = {"relevant": ["docs/usage/troubleshooting.md#enable-more-logging"], "key_facts": ["VLLM_LOGGING_LEVEL"],
             "quote": "`export VLLM_LOGGING_LEVEL=DEBUG` to turn on more logging."}
    rows = [
        {"id": "n-1", "query": "How do I make a sourdough bread starter?", "lang": "en", "kind": "general",
         "expect": "abstain"},
        {"id": "n-2", "query": HANG, "lang": "en", "kind": "uncovered_vllm", "expect": "abstain",
         "release_labels": {VERSION: label}},
    ]  # fmt: skip
    (sets / "negatives.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    wheel = build_wheel(tmp_path, VERSION)
    (tmp_path / "w" / VERSION).mkdir(parents=True)
    shutil.copy(wheel, tmp_path / "w" / VERSION / wheel.name)  # the wheel cache: nothing for pip to download
    # Some curated entries, not all: the release's part is what this test is about, and each entry is embedded.
    entries = some_entries(tmp_path / "corpus" / "entries")
    with FakeIndex() as index:
        index.add(SDIST, _blob())
        monkeypatch.setenv("ASSISTANT_PACKAGE_INDEX_URL", index.url)
        monkeypatch.setenv("ASSISTANT_WHEEL_CACHE_DIR", str(tmp_path / "w"))
        monkeypatch.setenv("ASSISTANT_CORPUS_DIR", str(tmp_path / "corpus"))
        argv = ["eval", "--sets-dir", str(sets), "--systems", "bm25", "--json", "--index-dir", str(tmp_path / "i")]
        assert main([*argv, "--set", "all", "--docs-release", VERSION]) == 0
    out = capsys.readouterr()
    rows_out = {r["set"]: r for r in json.loads(out.out)["rows"]}
    assert rows_out["negatives"]["n"] == 1  # n-1; n-2 is answered by this release's docs
    assert f"1 negatives are answerable on vLLM {VERSION}'s docs: n-2" in out.err
    assert f"code facts of {VERSION}" in out.err  # the release's source was read, as `make run` reads it
    assert (tmp_path / "i" / "releases" / f"vllm-{VERSION}.json.gz").is_file()
    meta = json.loads(out.out)["meta"]
    assert meta["index_chunks"] > len(entries) and meta["corpus"] == f"make run's for vLLM {VERSION}"
    assert main([*argv, "--docs-release", VERSION, "--docs-dir", str(tmp_path)]) == 2
    assert "cannot be combined with --docs-dir" in capsys.readouterr().err
