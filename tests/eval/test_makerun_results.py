"""results.md shows the summary of the run on `make run`'s corpus (results-makerun.md) in a section of its own,
replaced in place when that run is written again, and kept when results.md itself is generated again."""

from __future__ import annotations

from assistant.eval.runner import MAKERUN_HEADING, makerun_section, splice_makerun_section


def _makerun(path, table: str):
    path.write_text(f"# Eval results\n\nintro\n\n<!-- summary -->\n{table}\n<!-- /summary -->\n\n## Failures: full (0)\n\nnone\n")
    return path


def test_the_summary_goes_into_its_own_section_and_is_replaced_not_repeated(tmp_path):
    results = tmp_path / "results.md"
    results.write_text("# Eval results\n\n| gate |\n\n## Raise sites\n\n| r |\n\n## Failures: full (1)\n\n- x\n")
    first = makerun_section(_makerun(tmp_path / "results-makerun.md", "| run 1 |"))
    assert first[:2] == ["", MAKERUN_HEADING] and "| run 1 |" in first and "## Failures" not in "\n".join(first)
    splice_makerun_section(results, first)
    splice_makerun_section(results, makerun_section(_makerun(tmp_path / "results-makerun.md", "| run 2 |")))
    text = results.read_text()
    assert text.count(MAKERUN_HEADING) == 1 and "| run 2 |" in text and "| run 1 |" not in text
    assert text.index("| gate |") < text.index(MAKERUN_HEADING) < text.index("## Raise sites")
    assert "## Failures: full (1)\n\n- x" in text  # the gate's own sections are untouched


def test_no_summary_no_section(tmp_path):
    assert makerun_section(tmp_path / "missing.md") == []
    (tmp_path / "other.md").write_text("# no markers\n")
    assert makerun_section(tmp_path / "other.md") == []
