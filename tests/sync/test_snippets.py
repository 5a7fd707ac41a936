"""Source lines a docs page includes with an MkDocs snippet (assistant/sync/snippets.py; pure, no archive)."""

from __future__ import annotations

from assistant.sync.snippets import MAX_LINES, included_files, region, resolve_includes

SOURCE = """class Request:
    model: str
    # --8<-- [start:extra-params]
    min_tokens: int = 0
    repetition_penalty: float | None = None

    skip_special_tokens: bool = True
    # --8<-- [end:extra-params]
    other: int = 1
"""

PAGE = """## Extra parameters

??? code

    ```python
    --8<-- "vllm/entrypoints/protocol.py:extra-params"
    ```

    ```python
    --8<-- "vllm/entrypoints/protocol.py:no-such-region"
    ```
--8<-- "docs/getting_started/installation/gpu.cuda.inc.md:requirements"
"""


def test_a_region_replaces_its_include_dedented_and_indented_like_the_directive():
    assert included_files(PAGE) == {"vllm/entrypoints/protocol.py"}  # a Markdown include is a page of its own
    text = resolve_includes(PAGE, {"vllm/entrypoints/protocol.py": SOURCE})
    assert "    min_tokens: int = 0\n    repetition_penalty: float | None = None\n\n    skip_special_tokens" in text
    assert "other: int" not in text and "[start:" not in text  # only the region, without its markers
    assert '--8<-- "vllm/entrypoints/protocol.py:no-such-region"' in text  # a missing region is left as it was
    assert '--8<-- "docs/getting_started' in text


def test_a_missing_file_or_an_include_too_long_is_left_as_it_was():
    assert resolve_includes(PAGE, {}) == PAGE
    whole = '    --8<-- "vllm/big.py"'
    assert resolve_includes(whole, {"vllm/big.py": "x = 1\n" * (MAX_LINES + 1)}) == whole
    assert resolve_includes(whole, {"vllm/big.py": "x = 1\ny = 2"}) == "    x = 1\n    y = 2"
    assert region(SOURCE, "extra-params")[0] == "    min_tokens: int = 0"
    assert region(SOURCE, "absent") is None
