from assistant.ingest.loader import load_file
from assistant.ingest.markdown_docs import load_markdown, slugify, split_sections
from tests.conftest import VLLM_DOCS

TROUBLESHOOTING = VLLM_DOCS / "docs" / "usage" / "troubleshooting.md"


def test_slugs_match_the_rendered_docs():
    assert slugify("Error near `self.graph.replay()`") == "error-near-selfgraphreplay"
    assert slugify("`RuntimeError` Exception") == "runtimeerror-exception"
    assert slugify("NCCL error: unhandled system error during `ncclCommInitRank`") == (
        "nccl-error-unhandled-system-error-during-ncclcomminitrank"
    )


def test_troubleshooting_page_sections_carry_heading_path_and_file():
    chunks = load_file(TROUBLESHOOTING, VLLM_DOCS)
    by_source = {c.source: c for c in chunks}
    graph = by_source["docs/usage/troubleshooting.md#error-near-selfgraphreplay"]
    assert graph.data["heading_path"] == ["Troubleshooting", "Error near `self.graph.replay()`"]
    assert "--enforce-eager" in graph.data["body"]
    nested = by_source["docs/usage/troubleshooting.md#runtimeerror-exception"]
    assert nested.data["heading_path"][1] == "Python multiprocessing"


def test_code_blocks_stay_whole_and_their_comments_are_not_headings(tmp_path):
    text = (
        "# Page\n\nIntro.\n\n## Setup\n\nRun this:\n\n```bash\n# install first\npip install x\n\n# then run\nx --go\n```\n\n"
        "??? code\n\n    ```python\n    # a comment\n    print(1)\n\n    print(2)\n    ```\n\n## Next {#custom-id}\n\nDone.\n"
    )
    sections = split_sections(text, "page")
    assert [s.anchor for s in sections] == ["page", "setup", "custom-id"]
    setup = sections[1]
    fenced = [b for b in setup.blocks if "```bash" in b]
    assert len(fenced) == 1 and "# then run" in fenced[0] and fenced[0].rstrip().endswith("```")
    indented = [b for b in setup.blocks if "```python" in b]
    assert len(indented) == 1 and "print(2)" in indented[0] and "??? code" not in indented[0]


def test_long_sections_are_split_in_parts_that_cite_the_same_section(tmp_path):
    body = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(20))
    chunks = load_markdown(f"# Big\n\n## Long one\n\n{body}\n", tmp_path / "big.md", "big.md")
    parts = [c for c in chunks if c.source == "big.md#long-one"]
    assert len(parts) > 1
    assert parts[0].id == "big.md#long-one" and parts[1].id == "big.md#long-one~2"
    assert all(len(c.data["body"]) <= 1600 for c in parts)


def test_long_tables_become_row_groups_under_their_header(tmp_path):
    rows = "\n".join(f"| `VAR_{i}` | `0` | Description number {i} of a variable. |" for i in range(40))
    text = f"# Vars\n\n## Runtime\n\n| Variable | Default | Description |\n|---|---|---|\n{rows}\n"
    chunks = load_markdown(text, tmp_path / "vars.md", "vars.md")
    assert len(chunks) > 3
    for c in chunks:
        assert c.data["body"].startswith("| Variable | Default | Description |")
    assert sum(c.data["body"].count("`VAR_") for c in chunks) == 40
