"""The command-line contract, through real subprocesses (each loads the model: keep them few)."""

import json
import subprocess
import sys

import pytest

from assistant.settings import REPO_ROOT
from tests.helpers.corpus import some_entries
from tests.helpers.env import clean_env

HIT_KEYS = {"id", "title", "source", "score"}


def run(*args, stdin: str | None = None, index_dir=None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "assistant", *args]
    if index_dir is not None:
        cmd += ["--index-dir", str(index_dir)]
    return subprocess.run(cmd, check=False, input=stdin, capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)


def env_with(**values: str) -> dict[str, str]:
    return clean_env(**values)


# The entries the tests below ask about; with them, some others (a process of its own embeds every entry it builds:
# all of them would make this slower with each entry written, and test nothing more).
ASKED = (
    "deepgemm-fp8-home-path-empty",
    "structured-outputs-invalid-grammar-engine-dead",
    "deepseek-v4-dspark-cudagraph-illegal-memory-access",  # the two that quote "an illegal memory access"
    "qwen3-next-illegal-memory-access-data-parallel-cudagraph-piecewise",
)


@pytest.fixture(scope="module")
def built_index(tmp_path_factory):
    """ask on the configured index builds it from the corpus folder on first run, with progress on stderr."""
    index, corpus = tmp_path_factory.mktemp("cli-index"), tmp_path_factory.mktemp("cli-corpus")
    some_entries(corpus / "entries", n=40, also=ASKED)
    cmd = [sys.executable, "-m", "assistant", "ask", "RuntimeError: not home_path.empty()", "--json"]
    env = env_with(ASSISTANT_INDEX_DIR=str(index), ASSISTANT_CORPUS_DIR=str(corpus))
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=REPO_ROOT, timeout=300, env=env)
    return index, proc, len(list((corpus / "entries").glob("*.yaml")))


def test_first_ask_builds_the_index_and_answers_in_json(built_index):
    _, proc, built = built_index
    assert proc.returncode == 0, proc.stderr
    assert "building the index" in proc.stderr and f"embedded {built}/{built} chunks" in proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert set(out) == {"answer", "abstained", "language", "citations", "hits"}
    assert out["abstained"] is False and out["language"] == "en"
    assert "VLLM_USE_DEEP_GEMM=0" in out["answer"]
    cited = out["citations"][0]
    assert cited["id"] == "deepgemm-fp8-home-path-empty" and cited["title"] == out["hits"][0]["title"]
    assert cited["source"] == "entries/deepgemm-fp8-home-path-empty.yaml"  # the file, under the corpus folder
    assert all(set(h) == HIT_KEYS for h in out["hits"])
    scores = [h["score"] for h in out["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_stdin_and_batch(built_index, tmp_path):
    index, _, _ = built_index
    proc = run("ask", "-", "--json", stdin="CUDA error: an illegal memory access was encountered\n", index_dir=index)
    assert proc.returncode == 0, proc.stderr
    # The line read from stdin reaches the curated entries that quote it (several do: which leads is the ranker's)
    top = json.loads(proc.stdout)["hits"][0]["id"]
    quoting = {p.stem for p in (REPO_ROOT / "corpus" / "entries").glob("*.yaml") if "illegal memory access" in p.read_text()}
    assert top in quoting, top

    batch = tmp_path / "q.jsonl"
    batch.write_text(
        "\n".join(
            json.dumps(q, ensure_ascii=False)
            for q in [
                {"id": "a", "query": "EngineDeadError after a malformed EBNF grammar"},
                {"id": "b", "query": "如何做红烧肉？"},
                {"id": "c", "query": ""},
            ]
        )
        + "\nnot json\n",
        encoding="utf-8",
    )
    proc = run("ask", "--batch", str(batch), "--json", index_dir=index)
    rows = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", 3, 4]
    assert rows[0]["hits"][0]["id"] == "structured-outputs-invalid-grammar-engine-dead" and not rows[0]["abstained"]
    assert rows[1]["abstained"] is True and rows[1]["language"] == "zh"
    assert "empty" in rows[2]["error"] and "line 4" in rows[3]["error"]
    assert proc.returncode == 2


def test_usage_errors_are_one_line_not_a_traceback(built_index):
    index, _, _ = built_index
    proc = run("ask", "   ", index_dir=index)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: the question is empty")
    assert "Traceback" not in proc.stderr


def test_ingest_reports_skipped_files_with_exit_code_1(built_index, tmp_path):
    index, _, _ = built_index
    (tmp_path / "ok.md").write_text("# Page\n\n## Section\n\nUse `--enforce-eager`.\n", encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"\x00\x01")
    proc = run("ingest", str(tmp_path), index_dir=index)
    assert proc.returncode == 1
    assert "bad.md: binary file" in proc.stderr
    assert "1 added" in proc.stdout and "1 files skipped" in proc.stdout


def test_a_named_index_that_is_empty_or_partial_is_reported_not_replaced(built_index, tmp_path):
    empty = tmp_path / "empty-index"
    proc = run("ask", "RuntimeError: not home_path.empty()", index_dir=empty)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "is empty" in proc.stderr and "ingest" in proc.stderr
    assert "embedded" not in proc.stderr  # nothing was built into it

    # An ingest that stops part-way (here: killed after its first batch) leaves a "building" manifest.
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\n## Part\n\nUse `--flag-{i}` to fix error {i}.\n")
    partial = tmp_path / "partial-index"
    from assistant.index.manifest import begin
    from assistant.index.store import ChromaStore
    from assistant.settings import Settings

    store = ChromaStore(Settings(index_dir=partial))
    begin(store, [docs])  # what `ingest` writes before its first chunk; the process died before finishing
    del store
    proc = run("ask", "error 1 --flag-1", index_dir=partial)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "incomplete" in proc.stderr and str(docs.resolve()) in proc.stderr
    # Running the ingest again finishes it, and the index answers.
    assert run("ingest", str(docs), index_dir=partial).returncode == 0
    proc = run("ask", "error 1 --flag-1", "--json", index_dir=partial)
    assert proc.returncode == 0, proc.stderr


def test_wordless_questions_are_a_one_line_usage_error(built_index):
    index, _, _ = built_index
    for proc in (run("ask", "???", index_dir=index), run("ask", "-", stdin="\x00 😀\n", index_dir=index)):
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr
        assert lines[0].startswith("error: the question") and "paste the error message" in lines[0]


def test_ingest_keeps_every_repeated_section_of_a_docs_folder(tmp_path):
    """Nine "Extra parameters" sections on one page: each is indexed under the anchor the docs render."""
    from assistant.index.store import ChromaStore
    from assistant.settings import Settings
    from tests.conftest import VLLM_DOCS

    proc = run("ingest", str(VLLM_DOCS / "docs" / "serving"), index_dir=tmp_path)  # 3 pages: a quick ingest
    assert proc.returncode == 0, proc.stderr
    ids = set(ChromaStore(Settings(index_dir=tmp_path)).hashes())
    base = "openai_compatible_server.md#extra-parameters"
    assert {base, *(f"{base}_{n}" for n in range(1, 9))} <= ids
    assert f"{base}_9" not in ids
