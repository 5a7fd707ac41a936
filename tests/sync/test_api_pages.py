"""The API reference pages rendered from a module's source (assistant/sync/api_pages.py; pure, no archive)."""

from __future__ import annotations

from pathlib import PurePosixPath

from assistant.ingest.markdown_docs import load_markdown
from assistant.sync.api_pages import api_pages, page_path, render_module

SOURCE = '''"""Knobs for a thing.

More about the module than its first paragraph."""


class Knobs:
    """Knobs of a request.

    Attributes:
        speed: How fast it goes.
            A continuation line.
        depth: How deep.
    """

    speed: float = 1.0
    """How fast it goes. Values > 1 go faster.

    NOTE:
        Indented under a section, not code."""
    _hidden: int = 3
    """Private: never rendered."""
    undocumented: int = 0
    factory: dict[str, int] = field(
        default_factory=lambda: {"alpha": 1, "beta": 2, "gamma": 3, "delta": 4, "epsilon": 5, "zeta": 6, "eta": 7}
    )
    """A default too long to show."""
    made: list[str] = field(default_factory=lambda: ["*"])
    """A factory's value is the default shown."""


class NothingDocumented:
    x: int = 1


class _Private:
    y: int = 2
    """Documented, but the class is private."""
'''


def test_each_public_class_is_a_section_at_the_sites_anchor_listing_its_documented_attributes():
    page = render_module("pkg/knobs.py", SOURCE)
    assert page is not None
    path = PurePosixPath(page_path("pkg/knobs.py"))
    parsed = load_markdown(page, path, "https://site/api/pkg/knobs/")  # type: ignore[arg-type]
    chunks = {c.source.partition("#")[2]: c for c in parsed}
    assert set(chunks) == {"pkg.knobs", "pkg.knobs.Knobs"}
    knobs = chunks["pkg.knobs.Knobs"].dense_text
    assert "`Knobs.speed: float = 1.0`" in knobs and "Values > 1 go faster." in knobs
    assert "`Knobs.factory: dict[str, int]`" in knobs  # a default too long is left out, not cut
    assert "`Knobs.made: list[str] = ['*']`" in knobs
    assert "_hidden" not in page and "undocumented" not in page and "_Private" not in page
    assert "    Indented" not in page  # no docstring line is left indented into a code block
    assert "- speed: How fast it goes." in knobs  # a section's items as a list
    assert "More about the module" not in page  # the module's first paragraph only


def test_a_module_without_documented_attributes_or_that_does_not_parse_has_no_page():
    assert render_module("pkg/empty.py", "class A:\n    x: int = 1\n") is None
    assert render_module("pkg/broken.py", "class A(:\n") is None
    assert api_pages({"pkg/knobs.py": SOURCE, "pkg/broken.py": "def ("}).keys() == {"api/pkg/knobs.md"}
