import pytest

from assistant.errors import LoadError
from assistant.ingest.loader import load_file
from assistant.ingest.markdown_docs import adjacent_part_ids, load_markdown, slugify, split_sections
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


def test_a_paragraph_stays_with_the_list_or_code_it_introduces(tmp_path):
    filler = "\n\n".join(f"Background paragraph {i} " + "about building images. " * 14 for i in range(4))
    intro = "If you have not changed any C++ code, you can use precompiled wheels to save build time."
    steps = "*   Enable it with `--build-arg VLLM_USE_PRECOMPILED=1`.\n*   It finds the matching nightly wheel."
    text = f"# Install\n\n## Build image\n\n{filler}\n\n{intro}\n\n{steps}\n"
    chunks = load_markdown(text, tmp_path / "install.md", "install.md")
    assert len(chunks) == 2  # the section is long enough to be cut in two
    assert intro in chunks[1].data["body"] and "VLLM_USE_PRECOMPILED" in chunks[1].data["body"]
    assert intro not in chunks[0].data["body"]
    # a paragraph followed by more prose is not carried: the cut stays where the size puts it
    prose = f"# Install\n\n## Build image\n\n{filler}\n\n{intro}\n\nAnother plain paragraph " + "of text. " * 40
    first, second = load_markdown(prose, tmp_path / "install.md", "install.md")
    assert intro in first.data["body"] and intro not in second.data["body"]


def test_the_parts_either_side_of_a_part_are_named_by_id(tmp_path):
    blocks = "\n\n".join(f"Paragraph {i} " + "of a long section. " * 40 for i in range(6))
    chunks = load_markdown(f"# P\n\n## Long one\n\n{blocks}\n\n## Short\n\nOne line.\n", tmp_path / "p.md", "p.md")
    long = [c for c in chunks if c.source == "p.md#long-one"]
    assert [c.id for c in long] == ["p.md#long-one"] + [f"p.md#long-one~{n}" for n in range(2, len(long) + 1)]
    assert len(long) >= 3
    assert adjacent_part_ids(long[0]) == ["p.md#long-one~2"]
    assert adjacent_part_ids(long[1]) == ["p.md#long-one", "p.md#long-one~3"]
    assert adjacent_part_ids(long[-1]) == [f"p.md#long-one~{len(long) - 1}"]
    assert adjacent_part_ids(next(c for c in chunks if c.source == "p.md#short")) == []


def test_repeated_headings_get_the_renderers_suffixes():
    # python-markdown toc's unique(): foo, foo_1, foo_2; ids the page sets itself are taken first.
    text = (
        "# Page\n\n## Extra parameters\n\na\n\n## Other\n\n### Extra Parameters\n\nb\n\n#### Extra parameters\n\nc\n\n"
        "[](){ #chat-api }\n\n## Chat API\n\nd\n\n## Setup {#setup_1}\n\ne\n\n## Setup\n\nf\n\n## Setup\n\ng\n"
    )
    anchors = [s.anchor for s in split_sections(text, "page")]
    assert anchors == [
        "extra-parameters",
        "extra-parameters_1",
        "extra-parameters_2",
        "chat-api",  # the heading renders as chat-api_1; the anchor above it is the same place
        "setup_1",
        "setup",
        "setup_2",  # setup_1 is the explicit id of the section above
    ]


def test_all_extra_parameters_sections_of_the_openai_server_page_are_kept():
    page = VLLM_DOCS / "docs" / "serving" / "openai_compatible_server.md"
    chunks = load_file(page, VLLM_DOCS)
    ids = [c.id for c in chunks]
    assert len(ids) == len(set(ids))
    extra = [c.source for c in chunks if c.data["heading_path"][-1].lower() == "extra parameters"]
    base = "docs/serving/openai_compatible_server.md#extra-parameters"
    assert extra == [base] + [f"{base}_{n}" for n in range(1, 9)]


def test_a_page_giving_two_sections_one_id_is_a_load_error_naming_both(tmp_path):
    text = "# Page\n\n## First {#same}\n\na\n\n## Second {#same}\n\nb\n"
    with pytest.raises(LoadError) as err:
        load_markdown(text, tmp_path / "p.md", "p.md")
    assert "'First' (line 3)" in err.value.reason and "'Second' (line 7)" in err.value.reason


def test_a_pages_own_css_is_not_text(tmp_path):
    page = VLLM_DOCS / "docs" / "features" / "quantization" / "README.md"
    chunks = [c for c in load_file(page, VLLM_DOCS) if c.source.endswith("#supported-hardware")]
    assert chunks and not any("writing-mode" in c.lexical_text or "<style>" in c.lexical_text for c in chunks)
    assert "| Implementation" in chunks[0].data["body"]  # the table with its header comes right after the intro
    text = "# P\n\n<style>\ntd {\n  padding: 0;\n}\n\nth { x: y }\n</style>\n\n## Later\n\nWords.\n"
    sections = split_sections(text, "p")
    assert [s.blocks for s in sections] == [["Words."]]
    assert sections[0].line == 11  # line numbers are still those of the file


def test_an_include_files_snippet_regions_are_sections_of_their_own():
    page = VLLM_DOCS / "docs" / "getting_started" / "installation" / "gpu.cuda.inc.md"
    chunks = {c.id: c for c in load_file(page, VLLM_DOCS)}
    ids = {cid.split("#")[-1] for cid in chunks}
    # The Docker image region is not read as the end of "Unsupported OS build", the section before it.
    assert {"pre-built-wheels", "pre-built-images", "unsupported-os-build", "supported-features"} <= ids
    base = "docs/getting_started/installation/gpu.cuda.inc.md"
    assert "docker run" not in chunks[f"{base}#unsupported-os-build"].data["body"]
    assert "docker run" in chunks[f"{base}#pre-built-images"].data["body"]
    assert chunks[f"{base}#running-on-systems-with-older-cuda-drivers"].data["heading_path"][-2] == "Pre built images"
    assert not any("--8<--" in c.lexical_text or "markdownlint" in c.lexical_text for c in chunks.values())


def test_snippet_markers_and_html_comments_are_not_text():
    text = (
        "# P\n\n<!-- TODO: limits -->\n--8<-- [start:set-up]\n\nInstall it.\n\n--8<-- [end:set-up]\n"
        '## Params\n\n??? code\n\n    --8<-- "vllm/protocol.py:extra-params"\n\nText.\n'
    )
    sections = split_sections(text, "p")
    assert [(s.anchor, s.path, s.blocks, s.line) for s in sections] == [
        ("set-up", ["P", "Set up"], ["Install it."], 4),
        ("params", ["P", "Params"], ["Text."], 9),
    ]


def test_admonitions_and_tabs_read_as_text_not_as_indented_code():
    text = (
        "# P\n\n## Build\n\n"
        '!!! note "Compiler requirement"\n    Needs GCC 11.3.\n\n    ```bash\n    apt-get install gcc-11\n    ```\n\n'
        'After.\n\n??? code\n\n    ```python\n    x = 1\n    ```\n\n=== "pip"\n\n    !!! warning\n        Nested.\n\n'
        "```bash\n!!! not a marker in code\n```\n"
    )
    (section,) = split_sections(text, "p")
    assert section.blocks == [
        "**Compiler requirement**\nNeeds GCC 11.3.",
        "```bash\napt-get install gcc-11\n```",
        "After.",
        "```python\nx = 1\n```",
        "**pip**",
        "Nested.",
        "```bash\n!!! not a marker in code\n```",
    ]
    assert section.line == 3
