import pytest

from assistant.errors import LoadError
from assistant.ingest.entries import parse_entry
from assistant.ingest.loader import discover, load_file
from assistant.settings import REPO_ROOT

ENTRIES = REPO_ROOT / "corpus" / "entries"


def test_every_curated_entry_is_valid_and_cites_its_source():
    files = sorted(ENTRIES.glob("*.yaml"))
    assert len(files) >= 5
    for path in files:
        (chunk,) = load_file(path, REPO_ROOT / "corpus")
        assert chunk.id == path.stem
        assert chunk.source == f"corpus/entries/{path.name}"
        assert chunk.data["source"], path
        assert chunk.data["fix"]["en"] and chunk.data["root_cause"]["en"], path


def test_seed_entries_keep_the_original_chinese():
    entry = parse_entry((ENTRIES / "deepgemm-fp8-home-path-empty.yaml").read_text(encoding="utf-8"), "x")
    assert entry.original is not None and entry.original.language == "zh"
    assert "VLLM_USE_DEEP_GEMM=0" in entry.original.answer
    assert "VLLM_USE_DEEP_GEMM=0" in entry.fix.en and "VLLM_USE_DEEP_GEMM=0" in entry.fix.zh


@pytest.mark.parametrize(
    "text, reason",
    [
        ("id: [unclosed", "invalid YAML"),
        ("- just\n- a list\n", "YAML mapping"),
        ("id: ok-id\ntitle: {en: T}\nroot_cause: {en: R}\nsource: s\n", "not a valid entry: fix: Field required"),
        ("id: Bad Id!\ntitle: {en: T}\nroot_cause: {en: R}\nfix: {en: F}\nsource: s\n", "not a valid entry: id: String should match pattern"),
        ("id: ok-id\ntitle: {en: T}\nroot_cause: {en: R}\nfix: {en: F}\nsource: s\ncolour: red\n", "colour: Extra inputs"),
    ],
)
def test_bad_entries_say_what_is_wrong(text, reason):
    with pytest.raises(LoadError) as err:
        parse_entry(text, "corpus/entries/bad.yaml")
    assert reason in str(err.value)
    assert "corpus/entries/bad.yaml" in str(err.value)


def test_discover_skips_hidden_and_unsupported_files(tmp_path):
    (tmp_path / ".hidden.md").write_text("# x\n\ny", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\x00")
    (tmp_path / "page.md").write_text("# x\n\ny", encoding="utf-8")
    (tmp_path / "README.md").write_text("# About this folder", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "README.md").write_text("# A real page\n\ntext", encoding="utf-8")
    assert [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)] == ["page.md", "sub/README.md"]
