"""Read a release's facts from its Python source with `ast` (pure: text in, dataclasses out; vLLM is never imported).

Per file: every `raise X(...)` and `logger.warning/error/exception/critical(...)` with its message
template, enclosing class and function, and guarding condition. From `vllm/envs.py`: the env vars.
From `vllm/engine/arg_utils.py`, `vllm/entrypoints/**/cli_args.py` and the config dataclasses they
read: the engine / `vllm serve` flags with type, default, choices and help text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from assistant.release.models import KNOWN_KINDS, CodeSite, EnvVar, Flag, KnownName, ReleaseFacts, Template
from assistant.release.templates import log_template, template_of

ENVS_FILE = "vllm/envs.py"
ARG_FILE = "vllm/engine/arg_utils.py"
CLI_MAIN = "vllm/entrypoints/cli/main.py"  # the `vllm` command's own options (`vllm --version`)
# Vendored copies of other projects (pynvml, flash-attention kernels): their messages are not vLLM's.
VENDORED = ("vllm/third_party/", "vllm/vllm_flash_attn/")
_LOG_LEVELS = {
    "warning": "warning",
    "warn": "warning",
    "warning_once": "warning",
    "error": "error",
    "exception": "exception",
    "critical": "critical",
}
_LOGGER_NAME = re.compile(r"^_?(logger|log|LOGGER|_logger)$")
_MIN_LITERAL = 8  # a message with less literal text than this cannot be recognised in a paste
# The files that name what a release accepts: its model registry (`_TEXT_GENERATION_MODELS = {"LlamaForCausalLM":
# ...}`, `_PREVIOUSLY_SUPPORTED_MODELS = {"QWenLMHeadModel": "0.23.0"}`), its quantization methods
# (`QuantizationMethods = Literal[...]`) and its parsers (`_TOOL_PARSERS_TO_REGISTER = {"hermes": ...}`; older
# releases register each parser with `@ToolParserManager.register_module("hermes")` in its own file).
REGISTRY_FILE = "vllm/model_executor/models/registry.py"
QUANT_FILE = "vllm/model_executor/layers/quantization/__init__.py"
_PARSER_DIRS = {
    "vllm/tool_parsers/": "tool_parser",
    "vllm/entrypoints/openai/tool_parsers/": "tool_parser",
    "vllm/reasoning/": "reasoning_parser",
}
_MODEL_DICT = re.compile(r"^_[A-Z_]*_MODELS$")
_MODEL_DICT_KIND = {
    "_PREVIOUSLY_SUPPORTED_MODELS": "removed_architecture",  # value: the last release that served it
    "_OOT_SUPPORTED_MODELS": "plugin_architecture",  # value: the plugin's URL
}


def wanted(path: str) -> bool:
    """Whether a file of the wheel is vLLM's own Python source."""
    return path.startswith("vllm/") and path.endswith(".py") and not path.startswith(VENDORED)


def _is_config_file(path: str) -> bool:
    return path.startswith("vllm/config/") or path == ARG_FILE or _is_cli_args(path)


def _is_cli_args(path: str) -> bool:
    return path == CLI_MAIN or (path.startswith("vllm/entrypoints/") and path.endswith("/cli_args.py"))


@dataclass
class ClassFields:
    name: str
    path: str
    bases: tuple[str, ...]
    fields: dict[str, tuple[str | None, str | None, str, int]]  # name -> (type, default, doc, line)


@dataclass
class ArgCall:
    """One `add_argument("--flag", ...)` call, with where its kwargs come from."""

    flags: tuple[str, ...]
    path: str
    line: int
    explicit: dict[str, str]  # type/default/help/choices/action written in the call
    source: tuple[str, str] | None  # (config class, field) behind **kwargs["field"]


@dataclass
class FileFacts:
    """What one file contributes; assembled across files by `assemble`."""

    sites: list[CodeSite] = field(default_factory=list)
    env_vars: list[EnvVar] = field(default_factory=list)
    classes: list[ClassFields] = field(default_factory=list)
    args: list[ArgCall] = field(default_factory=list)
    served: list[str] = field(default_factory=list)  # classes whose fields are all flags (FrontendArgs)
    literal_aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # X = Literal[...] in the module
    known: list[KnownName] = field(default_factory=list)  # names the release accepts (`extract_known`)


# --- raise and log sites ---------------------------------------------------------------------------


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ast.unparse(func)


class _SiteVisitor(ast.NodeVisitor):
    def __init__(self, path: str, version: str):
        self.path = path
        self.version = version
        self.scope: list[str] = []
        self.guards: list[str] = []
        self.assigned: list[dict[str, ast.expr]] = [{}]
        self.sites: list[CodeSite] = []

    # scopes
    def _scoped(self, node, name: str) -> None:
        self.scope.append(name)
        saved, self.guards = self.guards, []
        self.assigned.append({})
        self.generic_visit(node)
        self.assigned.pop()
        self.guards = saved
        self.scope.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, node.name)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scoped(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    # guards
    def _under(self, guard: str, body: Iterable[ast.stmt]) -> None:
        self.guards.append(guard)
        for stmt in body:
            self.visit(stmt)
        self.guards.pop()

    def visit_If(self, node: ast.If) -> None:
        test = ast.unparse(node.test)
        self.visit(node.test)
        self._under(test, node.body)
        if node.orelse:
            negated = test[4:] if test.startswith("not ") and " " not in test[4:] else f"not ({test})"
            self._under(negated, node.orelse)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        caught = f"except {ast.unparse(node.type)}" if node.type is not None else "except (any exception)"
        self._under(caught, node.body)

    # message variables: msg = f"..."; raise ValueError(msg)
    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.assigned[-1][node.targets[0].id] = node.value
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            prev = self.assigned[-1].get(node.target.id)
            if prev is not None:
                self.assigned[-1][node.target.id] = ast.BinOp(prev, ast.Add(), node.value)
        self.generic_visit(node)

    def _resolve(self, name: str) -> ast.expr | None:
        return self.assigned[-1].get(name)

    def _add(self, kind, exception: str, template: Template, node: ast.AST) -> None:
        if template.literal_chars < _MIN_LITERAL:
            return
        self.sites.append(
            CodeSite(
                release=self.version,
                kind=kind,
                exception=exception,
                template=template,
                path=self.path,
                line=node.lineno,
                function=".".join(self.scope) or "<module>",
                condition=self.guards[-1] if self.guards else None,
            )
        )

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            self._add("raise", _call_name(exc.func), template_of(exc.args[0], self._resolve), node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _LOG_LEVELS
            and isinstance(func.value, ast.Name)
            and _LOGGER_NAME.match(func.value.id)
            and node.args
        ):
            self._add("log", _LOG_LEVELS[func.attr], log_template(node.args, self._resolve), node)
        self.generic_visit(node)


# --- env vars --------------------------------------------------------------------------------------


def _comment_above(lines: list[str], lineno: int) -> str:
    """The `#` comment block right above a line (banners like `# ==== ... ====` excluded)."""
    out: list[str] = []
    i = lineno - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        text = lines[i].strip().lstrip("#").strip()
        if text.startswith("=") or set(text) <= {"=", "-", " "}:
            break
        out.append(text)
        i -= 1
    return " ".join(reversed(out)).strip()


def _env_call_default(value: ast.expr, name: str) -> tuple[str | None, tuple[str, ...]]:
    """Default and choices from `os.getenv("X", d)` / `os.environ.get("X", d)` / `env_with_choices("X", d, [..])`."""
    for node in ast.walk(value):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and first.value == name):
            continue
        fname = _call_name(node.func)
        default = ast.unparse(node.args[1]) if len(node.args) > 1 else None
        choices: tuple[str, ...] = ()
        if fname.startswith("env_") and len(node.args) > 2 and isinstance(node.args[2], (ast.List, ast.Tuple)):
            choices = tuple(str(e.value) for e in node.args[2].elts if isinstance(e, ast.Constant))
        return default, choices
    return None, ()


def extract_env_vars(tree: ast.Module, lines: list[str], path: str, version: str) -> list[EnvVar]:
    typed: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    typed[stmt.target.id] = (
                        ast.unparse(stmt.annotation),
                        ast.unparse(stmt.value) if stmt.value is not None else None,
                    )
    out: list[EnvVar] = []
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        if target != "environment_variables" or not isinstance(value, ast.Dict):
            continue
        for key, val in zip(value.keys, value.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            name = key.value
            call_default, choices = _env_call_default(val, name)
            typ, default = typed.get(name, (None, None))
            out.append(
                EnvVar(
                    release=version,
                    name=name,
                    type=typ,
                    default=default if default is not None else call_default,
                    doc=_comment_above(lines, key.lineno),
                    path=path,
                    line=key.lineno,
                    choices=choices,
                )
            )
    return out


# --- flags -----------------------------------------------------------------------------------------


def _literal_values(node: ast.expr) -> tuple[str, ...]:
    """`Literal["a", "b"]` (or a union containing it) -> ("a", "b")."""
    out: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and ast.unparse(sub.value).endswith("Literal"):
            elts = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
            out += [str(e.value) for e in elts if isinstance(e, ast.Constant)]
    return tuple(out)


def _field_default(value: ast.expr | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, ast.Call) and _call_name(value.func) in ("Field", "field"):
        for kw in value.keywords:
            if kw.arg == "default":
                return ast.unparse(kw.value)
            if kw.arg == "default_factory":  # list -> list(); lambda: ["*"] -> ["*"]
                v = kw.value
                return ast.unparse(v.body) if isinstance(v, ast.Lambda) else ast.unparse(v) + "()"
        return ast.unparse(value.args[0]) if value.args else None
    return ast.unparse(value)


def class_fields(node: ast.ClassDef, path: str) -> ClassFields:
    """A class's annotated fields: type, default (a `Field`'s or `field`'s own), the docstring under each (one line),
    and its line."""
    fields: dict[str, tuple[str | None, str | None, str, int]] = {}
    body = node.body
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(stmt.annotation):
            continue
        doc = ""
        nxt = body[i + 1] if i + 1 < len(body) else None
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
            doc = " ".join(nxt.value.value.split())
        fields[stmt.target.id] = (ast.unparse(stmt.annotation), _field_default(stmt.value), doc, stmt.lineno)
    return ClassFields(node.name, path, tuple(ast.unparse(b) for b in node.bases), fields)


def _kwargs_sources(func: ast.FunctionDef) -> dict[str, tuple[str, str | None]]:
    """`x_kwargs = get_kwargs(Cls)` -> {x_kwargs: (Cls, None)}; `y = get_kwargs(Cls)["f"]` -> {y: (Cls, "f")}."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(func):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value, fieldname = node.value, None
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant):
            fieldname, value = str(value.slice.value), value.value
        if isinstance(value, ast.Call) and _call_name(value.func) == "get_kwargs" and value.args:
            out[node.targets[0].id] = (ast.unparse(value.args[0]), fieldname)
    return out


def _arg_calls(tree: ast.Module, path: str) -> list[ArgCall]:
    out: list[ArgCall] = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        sources = _kwargs_sources(func)
        for node in ast.walk(func):
            if not (isinstance(node, ast.Call) and _call_name(node.func) == "add_argument"):
                continue
            flags = tuple(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
            if not any(f.startswith("--") for f in flags):
                continue
            explicit: dict[str, str] = {}
            source = None
            for kw in node.keywords:
                if kw.arg is not None:
                    v = kw.value
                    if isinstance(v, ast.Constant):
                        explicit[kw.arg] = v.value if isinstance(v.value, str) else repr(v.value)
                    else:
                        explicit[kw.arg] = _help_text(v) if kw.arg == "help" else ast.unparse(v)
                elif isinstance(kw.value, ast.Subscript) and isinstance(kw.value.value, ast.Name):
                    cls = sources.get(kw.value.value.id)
                    if cls and isinstance(kw.value.slice, ast.Constant):
                        source = (cls[0], str(kw.value.slice.value))
                elif isinstance(kw.value, ast.Name) and sources.get(kw.value.id, (None, None))[1]:
                    cls, fname = sources[kw.value.id]
                    source = (cls, fname)  # type: ignore[assignment]
            out.append(ArgCall(flags, path, node.lineno, explicit, source))
    return out


def _help_text(node: ast.expr) -> str:
    """A help= value: literal text, an f-string or a `+` of literals, shown as the template it builds."""
    try:
        return template_of(node).render()
    except Exception:  # noqa: BLE001 - odd expressions are shown as written
        return ast.unparse(node)


def _served_classes(tree: ast.Module) -> list[str]:
    """Classes whose every field becomes a flag: those `make_arg_parser` registers with `X.add_cli_args(parser)`.

    Only classes defined in the same file (the frontend's); the engine's are read from their own
    explicit `add_argument` calls in arg_utils.py.
    """
    local = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    out: list[str] = []
    for func in ast.walk(tree):
        if isinstance(func, ast.FunctionDef) and func.name == "make_arg_parser":
            for node in ast.walk(func):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_cli_args"
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in local
                ):
                    out.append(node.func.value.id)
    return out


# --- names the release accepts ---------------------------------------------------------------------


def _parser_kind(path: str) -> str | None:
    return next((kind for prefix, kind in _PARSER_DIRS.items() if path.startswith(prefix)), None)


def _assigned(node: ast.stmt) -> tuple[str, ast.expr] | None:
    """`NAME = value` or `NAME: type = value` at module level: (NAME, value)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return node.target.id, node.value
    return None


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extract_known(tree: ast.Module, path: str, version: str) -> list[KnownName]:
    """The names this file says the release accepts, each with the line that names it."""

    def known(kind: str, name: str, line: int, note: str = "") -> KnownName:
        return KnownName(version, kind, name, path, line, KNOWN_KINDS[kind], note)

    out: list[KnownName] = []
    parser = _parser_kind(path)
    for node in tree.body:
        got = _assigned(node)
        if got is None:
            continue
        name, value = got
        if path == REGISTRY_FILE and _MODEL_DICT.match(name) and isinstance(value, ast.Dict):
            kind = _MODEL_DICT_KIND.get(name, "architecture")
            for key, val in zip(value.keys, value.values):
                arch = _str(key)
                if arch:
                    out.append(known(kind, arch, key.lineno, _str(val) or ""))
        elif path == QUANT_FILE and name == "QuantizationMethods":
            elts = value.slice.elts if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Tuple) else []
            out += [known("quantization", v, e.lineno) for e in elts if (v := _str(e))]
        elif parser and name.endswith("_PARSERS_TO_REGISTER") and isinstance(value, ast.Dict):
            out += [known(parser, v, k.lineno) for k in value.keys if k is not None and (v := _str(k))]
    if parser:  # `@ToolParserManager.register_module("hermes")`, `register_module(["a", "b"])`, `name="x"`
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node.func).endswith("register_module"):
                args = [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("name", "names"))]
                for arg in args:
                    items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg]
                    out += [known(parser, v, node.lineno) for e in items if (v := _str(e))]
    return out


# --- one file --------------------------------------------------------------------------------------


_WORTH_PARSING = re.compile(r"\braise\b|\b_?(?:logger|log|LOGGER)\.")


def extract_file(path: str, source: str, version: str) -> FileFacts:
    """Everything one file contributes (a file that does not parse contributes nothing)."""
    facts = FileFacts()
    names_known = path in (REGISTRY_FILE, QUANT_FILE) or _parser_kind(path) is not None
    if not (_WORTH_PARSING.search(source) or path == ENVS_FILE or _is_config_file(path) or names_known):
        return facts  # nothing raised or logged here: skip the parse (about 40% of the files)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return facts
    visitor = _SiteVisitor(path, version)
    visitor.visit(tree)
    facts.sites = visitor.sites
    if path == ENVS_FILE:
        facts.env_vars = extract_env_vars(tree, source.splitlines(), path, version)
    if _is_config_file(path):
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                facts.classes.append(class_fields(node, path))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values = _literal_values(node.value)
                if values:
                    facts.literal_aliases[node.targets[0].id] = values
    if path == ARG_FILE or _is_cli_args(path):
        facts.args = _arg_calls(tree, path)
        facts.served = _served_classes(tree)
    if names_known:
        facts.known = extract_known(tree, path, version)
    return facts


def _extract_job(job: tuple[str, str, str]) -> FileFacts:
    return extract_file(*job)


# --- across files ----------------------------------------------------------------------------------


def _flag_name(fieldname: str) -> str:
    return "--" + fieldname.replace("_", "-")


def _choices(typ: str | None, aliases: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if not typ:
        return ()
    try:
        node = ast.parse(typ, mode="eval").body
    except SyntaxError:
        return ()
    found = list(_literal_values(node))
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in aliases:
            found += aliases[sub.id]
    return tuple(dict.fromkeys(found))


def negatable_type(typ: str | None) -> bool:
    """Whether vLLM's `get_kwargs` gives a config field of this annotation `argparse.BooleanOptionalAction` (so
    `--no-<flag>` exists): a type with `bool` in it, but `bool | str | None` (bare flag True, else a string)."""
    if not typ:
        return False
    members = {m.strip() for m in re.split(r"[|\[\],]", typ) if m.strip()} - {"Optional", "Union"}
    if "Optional[" in typ:
        members.add("None")
    return "bool" in members and members != {"bool", "str", "None"}


def assemble(version: str, origin: str, files: list[FileFacts], n_files: int) -> ReleaseFacts:
    """Join per-file facts: resolve each flag's config field through the class hierarchy."""
    classes: dict[str, ClassFields] = {}
    aliases: dict[str, tuple[str, ...]] = {}
    for f in files:
        aliases.update(f.literal_aliases)
        for c in f.classes:
            # A config class defined under vllm/config/ wins over a same-named class elsewhere.
            if c.name not in classes or c.path.startswith("vllm/config/"):
                classes[c.name] = c

    def lookup(cls: str, name: str, seen: frozenset[str] = frozenset()) -> tuple[ClassFields, tuple] | None:
        c = classes.get(cls)
        if c is None or cls in seen:
            return None
        if name in c.fields:
            return c, c.fields[name]
        for base in c.bases:
            got = lookup(base, name, seen | {cls})
            if got:
                return got
        return None

    def all_fields(cls: str, seen: frozenset[str] = frozenset()) -> dict[str, tuple[ClassFields, tuple]]:
        c = classes.get(cls)
        if c is None or cls in seen:
            return {}
        out: dict[str, tuple[ClassFields, tuple]] = {}
        for base in c.bases:
            out.update(all_fields(base, seen | {cls}))
        out.update({name: (c, spec) for name, spec in c.fields.items()})
        return out

    flags: dict[str, Flag] = {}
    for f in files:
        for call in f.args:
            long = next(x for x in call.flags if x.startswith("--"))
            if long in flags:
                continue
            typ = call.explicit.get("type")
            default = call.explicit.get("default")
            help_ = call.explicit.get("help", "")
            path, line, fieldref = call.path, call.line, None
            choices: tuple[str, ...] = ()
            if call.source:
                got = lookup(*call.source)
                if got:
                    cls, (ftype, fdefault, fdoc, fline) = got
                    typ, default, path, line = typ or ftype, default or fdefault, cls.path, fline
                    help_ = help_ or fdoc
                    fieldref = f"{cls.name}.{call.source[1]}"
                    choices = _choices(ftype, aliases)
            action = call.explicit.get("action", "")
            if (action in ("store_true", "store_false") or action.endswith("BooleanOptionalAction")) and not typ:
                typ = "bool"
            # `--no-<flag>`: an explicit BooleanOptionalAction, or a config field's kwargs (vLLM's get_kwargs gives
            # its boolean fields that action); an explicit store_true / store_false has no negative form.
            from_field = not action and fieldref is not None
            negatable = action.endswith("BooleanOptionalAction") or (from_field and negatable_type(typ))
            flags[long] = Flag(
                release=version,
                flag=long,
                aliases=tuple(x for x in call.flags if x != long),
                type=typ,
                default=default,
                choices=choices,
                help=help_,
                path=path,
                line=line,
                field=fieldref,
                negatable=negatable,
            )
        for served in f.served:
            for name, (cls, (ftype, fdefault, fdoc, fline)) in all_fields(served).items():
                if name.startswith("_"):
                    continue
                flag = _flag_name(name)
                flags.setdefault(
                    flag,
                    Flag(
                        release=version,
                        flag=flag,
                        aliases=(),
                        type=ftype,
                        default=fdefault,
                        choices=_choices(ftype, aliases),
                        help=fdoc,
                        path=cls.path,
                        line=fline,
                        field=f"{cls.name}.{name}",
                        negatable=negatable_type(ftype),
                    ),
                )
    env_vars = [e for f in files for e in f.env_vars]
    sites = [s for f in files for s in f.sites]
    known = {(k.kind, k.name): k for f in files for k in f.known}  # a parser registered twice is one name
    return ReleaseFacts(
        version=version,
        origin=origin,
        env_vars=env_vars,
        flags=sorted(flags.values(), key=lambda x: x.flag),
        sites=sites,
        files=n_files,
        known=sorted(known.values(), key=lambda k: (k.kind, k.name)),
    )
