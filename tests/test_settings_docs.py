"""The documented settings are the code's settings: every field in the README table, every default right."""

from __future__ import annotations

import re
from pathlib import Path

from assistant.settings import REPO_ROOT, Settings
from assistant.settings_cli import default_text, env_name, markdown_table

_VAR = re.compile(r"`(ASSISTANT_[A-Z0-9_]+)`")
_CODE = re.compile(r"`([^`]*)`")
FIX = "update the table from `python -m assistant settings --markdown`"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def documented(path: Path) -> dict[str, tuple[str, int]]:
    """env var -> (default as written, line number) from Markdown table rows naming settings."""
    out: dict[str, tuple[str, int]] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.lstrip().startswith("|"):
            continue
        cells = _cells(line)
        if len(cells) < 2:
            continue
        names = _VAR.findall(cells[0])
        defaults = [d.strip() for d in cells[1].split(" / ")]
        if not names or len(names) != len(defaults):
            continue  # e.g. `ASSISTANT_SLACK_*`, or "`X` / `_MODEL`"
        for name, default in zip(names, defaults):
            code = _CODE.search(default)
            out[name] = (code.group(1) if code else default.split(" ")[0], lineno)
    return out


def _expected() -> dict[str, str]:
    return {env_name(n): default_text(info) for n, info in Settings.model_fields.items()}


def test_every_setting_is_in_the_readme_table() -> None:
    readme = documented(REPO_ROOT / "README.md")
    missing = [var for var in _expected() if var not in readme]
    assert not missing, f"README.md's settings table lacks {', '.join(missing)}: {FIX}"


def test_documented_defaults_are_the_code_defaults() -> None:
    expected = _expected()
    wrong = []
    for path in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        for var, (default, lineno) in documented(path).items():
            where = f"{path.relative_to(REPO_ROOT)}:{lineno}"
            if var not in expected:
                wrong.append(f"{where}: {var} is not a setting")
            elif default != expected[var]:
                wrong.append(f"{where}: {var} says {default!r}, the code's default is {expected[var]!r}")
    assert not wrong, "\n".join(wrong) + f"\n({FIX})"


def test_the_generated_table_has_one_row_per_setting() -> None:
    rows = markdown_table().splitlines()[2:]
    assert [_VAR.search(r).group(1) for r in rows] == list(_expected())
    assert "| `ASSISTANT_INDEX_DIR` | `.index` |" in rows[1]  # a path inside the repository is shown relative
