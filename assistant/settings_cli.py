"""`python -m assistant settings`: every setting with its env var, default and description, from `Settings` itself.

The README's settings table is this command's output (`--markdown`), and a test compares the two, so
the docs cannot drift from the code.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic.fields import FieldInfo

from assistant.settings import REPO_ROOT, Settings

ENV_PREFIX = "ASSISTANT_"


def env_name(field: str) -> str:
    return ENV_PREFIX + field.upper()


def default_text(info: FieldInfo) -> str:
    """A field's default as the docs show it: `unset` for None, paths relative to the repository."""
    value = info.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, Path):
        try:
            return value.relative_to(REPO_ROOT).as_posix()
        except ValueError:
            return value.as_posix()
    if isinstance(value, (list, dict, bool)):
        return json.dumps(value)
    return str(value)


def settings_rows() -> list[tuple[str, str, str]]:
    """(env var, default, description) of every field, in declaration order."""
    return [
        (env_name(name), default_text(info), info.description or "")
        for name, info in Settings.model_fields.items()
    ]


def markdown_table() -> str:
    lines = ["| variable | default | what |", "|---|---|---|"]
    for var, default, description in settings_rows():
        shown = "unset" if default == "unset" else f"`{default}`"
        lines.append(f"| `{var}` | {shown} | {description.replace('|', '/')} |")
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("settings", help="list every setting: env var, default, description")
    p.add_argument("--markdown", action="store_true", help="print the README's Markdown table")
    p.set_defaults(func=cmd_settings)


def cmd_settings(args: argparse.Namespace) -> int:
    if args.markdown:
        print(markdown_table())
        return 0
    for var, default, description in settings_rows():
        print(f"{var}={default}\n    {description}")
    return 0
