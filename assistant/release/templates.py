"""From a message-building expression to a Template (pure; `ast` only).

Messages are built as string literals, f-strings, `"..." % args`, `"...".format(...)`, `+`
concatenations, or a variable assigned one of those a few lines above the raise. Each becomes literal
parts and holes; a hole keeps the expression's source so an answer can say what fills it.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable

from assistant.release.models import Template

_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[sdrfixXeEgGcaub%]")

Resolve = Callable[[str], ast.expr | None]  # a variable name -> the expression last assigned to it


def _merge(parts: list[tuple[bool, str]]) -> Template:
    """Alternate literal / hole, joining adjacent literals and adjacent holes."""
    out: list[str] = [""]
    for is_hole, text in parts:
        if is_hole:
            if len(out) % 2 == 0:  # last is a hole: two holes in a row read as one
                out[-1] = f"{out[-1]}, {text}"
            else:
                out.append(text)
        else:
            if len(out) % 2 == 0:
                out.append(text)
            else:
                out[-1] += text
    if len(out) % 2 == 0:
        out.append("")
    return Template(tuple(out))


def _arg(node: ast.expr) -> tuple[bool, str]:
    """A value filled into a message: literal text when the code passes a string constant, else a hole."""
    return (False, node.value) if _is_str(node) else (True, ast.unparse(node))


def _percent(fmt: str, args: list[tuple[bool, str]]) -> list[tuple[bool, str]]:
    parts: list[tuple[bool, str]] = []
    pos, n = 0, 0
    for m in _PERCENT.finditer(fmt):
        parts.append((False, fmt[pos : m.start()]))
        if m.group() == "%%":
            parts.append((False, "%"))
        else:
            parts.append(args[n] if n < len(args) else (True, "?"))
            n += 1
        pos = m.end()
    parts.append((False, fmt[pos:]))
    return parts


def _format(fmt: str, args: list[tuple[bool, str]], kwargs: dict[str, tuple[bool, str]]) -> list[tuple[bool, str]]:
    parts: list[tuple[bool, str]] = []
    auto = 0
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError:
        return [(False, fmt)]
    for literal, name, _spec, _conv in parsed:
        parts.append((False, literal))
        if name is None:
            continue
        if name == "":
            parts.append(args[auto] if auto < len(args) else (True, "?"))
            auto += 1
        elif name.isdigit():
            i = int(name)
            parts.append(args[i] if i < len(args) else (True, "?"))
        else:
            parts.append(kwargs.get(name.split(".")[0].split("[")[0], (True, name)))
    return parts


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _parts(node: ast.expr, resolve: Resolve, depth: int = 0) -> list[tuple[bool, str]]:
    if depth > 4:
        return [(True, ast.unparse(node))]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(False, node.value)]
    if isinstance(node, ast.JoinedStr):
        out: list[tuple[bool, str]] = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                out.append((False, v.value))
            elif isinstance(v, ast.FormattedValue):
                out.append((True, ast.unparse(v.value)))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left, resolve, depth + 1) + _parts(node.right, resolve, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str(node.left):
        right = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return _percent(node.left.value, [_arg(a) for a in right])
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        kwargs = {k.arg: _arg(k.value) for k in node.keywords if k.arg}
        return _format(node.func.value.value, [_arg(a) for a in node.args], kwargs)
    if isinstance(node, ast.Name):
        value = resolve(node.id)
        if value is not None:
            return _parts(value, resolve, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join":
        return [(True, ast.unparse(node))]
    return [(True, ast.unparse(node))]


def template_of(node: ast.expr, resolve: Resolve = lambda _n: None) -> Template:
    """The template a message expression builds."""
    return _merge(_parts(node, resolve))


def log_template(args: list[ast.expr], resolve: Resolve = lambda _n: None) -> Template:
    """A logging call's message: its format string with `%s` holes filled by the remaining arguments."""
    first = args[0]
    if isinstance(first, ast.Name):
        first = resolve(first.id) or first
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and len(args) > 1:
        return _merge(_percent(first.value, [_arg(a) for a in args[1:]]))
    return template_of(args[0], resolve)
