"""Typed facts read from one vLLM release's own source: env vars, CLI flags, raise and log sites."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

GITHUB = "https://github.com/vllm-project/vllm/blob"

SpecKind = Literal["pypi", "wheel", "tree", "installed"]


def code_url(version: str, path: str, line: int) -> str:
    """The citation: the file on GitHub at the release's tag, at the line."""
    return f"{GITHUB}/v{version}/{path}#L{line}"


# The files that list every name of a kind: `environment_variables` in envs.py; the engine's parser, which reads
# the config dataclasses (`vllm serve` adds the `cli_args.py` front-end flags to it).
NAMES_FILES = {"env": "vllm/envs.py", "flag": "vllm/engine/arg_utils.py"}


def names_list_id(version: str, kind: str) -> str:
    """The citation id of a release's complete list of env vars (`vllm-0.33.0:env-vars`) or flags (`…:flags`)."""
    return f"vllm-{version}:" + ("env-vars" if kind == "env" else "flags")


def names_list_url(version: str, kind: str) -> str:
    return f"{GITHUB}/v{version}/{NAMES_FILES[kind]}"


@dataclass(frozen=True)
class ReleaseSpec:
    """What `sync` was asked for: a version on the package index, a local wheel, a source tree, or the installed package."""

    kind: SpecKind
    value: str  # the version (pypi) or the path (wheel, tree); empty for installed
    version: str | None = None  # known up front for pypi; read from the source otherwise

    def describe(self) -> str:
        return {"pypi": f"vllm=={self.value}", "installed": "the installed vllm"}.get(self.kind, self.value)


@dataclass(frozen=True)
class Template:
    """A message as the code builds it: literal text with holes where f-strings / %s / .format put values.

    `parts` alternates literal, hole, literal, ... (even indices literal, odd indices the hole's source).
    """

    parts: tuple[str, ...]

    @property
    def literals(self) -> tuple[str, ...]:
        return self.parts[0::2]

    def render(self) -> str:
        """The message with each hole shown as `{expression}`."""
        return "".join(p if i % 2 == 0 else "{" + p + "}" for i, p in enumerate(self.parts))

    @property
    def literal_chars(self) -> int:
        return sum(len(p.strip()) for p in self.literals)


@dataclass(frozen=True)
class CodeSite:
    """Where vLLM raises an exception or logs an error / warning, and under what condition."""

    release: str
    kind: Literal["raise", "log"]
    exception: str  # the exception class (raise) or the log level (log: warning, error, exception, critical)
    template: Template
    path: str  # repo-relative, e.g. vllm/v1/core/kv_cache_planning.py
    line: int
    function: str  # "Class.method", "function" or "<module>"
    condition: str | None = None  # the guarding `if` test (or `except X`), in the code's own words

    @property
    def url(self) -> str:
        return code_url(self.release, self.path, self.line)

    @property
    def id(self) -> str:
        return f"vllm-{self.release}:{self.path}:{self.line}:{self.kind}"


@dataclass(frozen=True)
class EnvVar:
    """One entry of `vllm/envs.py`: name, type, default and the comment documenting it."""

    release: str
    name: str
    type: str | None
    default: str | None
    doc: str
    path: str
    line: int
    choices: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return code_url(self.release, self.path, self.line)


@dataclass(frozen=True)
class Flag:
    """One engine / `vllm serve` argument: flag, type, default, choices and help text."""

    release: str
    flag: str  # --gpu-memory-utilization
    aliases: tuple[str, ...]
    type: str | None
    default: str | None
    choices: tuple[str, ...]
    help: str
    path: str  # where the help text is written (the config dataclass field, or the add_argument call)
    line: int
    field: str | None = None  # e.g. CacheConfig.gpu_memory_utilization
    negatable: bool = False  # `--no-<flag>` exists too (argparse.BooleanOptionalAction); a store_true flag has none

    @property
    def url(self) -> str:
        return code_url(self.release, self.path, self.line)


# What a release accepts by name, and the flag that takes each kind (none for a model's architecture).
KNOWN_KINDS = {
    "architecture": "",
    "removed_architecture": "",
    "plugin_architecture": "",
    "quantization": "--quantization",
    "tool_parser": "--tool-call-parser",
    "reasoning_parser": "--reasoning-parser",
    "flag_choice": "",  # a value among a flag's choices (`--tokenizer-mode mistral`): the flag is the fact's own
}


@dataclass(frozen=True)
class KnownName:
    """A name a release accepts: a model architecture of its registry, a quantization method, a tool-call or
    reasoning parser; or an architecture it no longer serves (`note`: the last release that did) or serves through
    an out-of-tree plugin (`note`: the plugin's URL)."""

    release: str
    kind: str  # a key of KNOWN_KINDS
    name: str
    path: str
    line: int
    flag: str = ""  # the flag that takes it (`--quantization`), from KNOWN_KINDS
    note: str = ""

    @classmethod
    def flag_choice(cls, flag: Flag, value: str) -> KnownName:
        """A value among a flag's choices, cited where the flag is defined."""
        return cls(flag.release, "flag_choice", value, flag.path, flag.line, flag.flag)

    @property
    def id(self) -> str:
        name = f"{self.flag}={self.name}" if self.kind == "flag_choice" else self.name
        return f"vllm-{self.release}:{self.kind}:{name}"

    @property
    def url(self) -> str:
        return code_url(self.release, self.path, self.line)


@dataclass
class ReleaseFacts:
    """Everything extracted from one release."""

    version: str
    origin: str  # what it was read from (wheel file, folder, installed location)
    env_vars: list[EnvVar] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    sites: list[CodeSite] = field(default_factory=list)
    files: int = 0
    known: list[KnownName] = field(default_factory=list)

    @property
    def items(self) -> int:
        return len(self.env_vars) + len(self.flags) + len(self.sites)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "origin": self.origin,
            "files": self.files,
            "env_vars": [asdict(e) for e in self.env_vars],
            "flags": [asdict(f) for f in self.flags],
            "sites": [{**asdict(s), "template": list(s.template.parts)} for s in self.sites],
            "known": [asdict(k) for k in self.known],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReleaseFacts:
        return cls(
            version=data["version"],
            origin=data["origin"],
            files=data.get("files", 0),
            env_vars=[EnvVar(**{**e, "choices": tuple(e.get("choices", ()))}) for e in data["env_vars"]],
            flags=[
                Flag(**{**f, "aliases": tuple(f["aliases"]), "choices": tuple(f["choices"])}) for f in data["flags"]
            ],
            sites=[CodeSite(**{**s, "template": Template(tuple(s["template"]))}) for s in data["sites"]],
            known=[KnownName(**k) for k in data.get("known", ())],
        )


@dataclass(frozen=True)
class SyncReport:
    """What one `sync` of one release did."""

    version: str
    origin: str
    files: int = 0
    env_vars: int = 0
    flags: int = 0
    sites: int = 0
    skipped: bool = False  # already indexed: nothing done
    seconds: float = 0.0

    @property
    def chunks(self) -> int:
        return self.env_vars + self.flags + self.sites

    def summary(self) -> str:
        if self.skipped:
            return f"vLLM {self.version}: already indexed ({self.chunks} items), nothing to do"
        return (
            f"vLLM {self.version}: {self.files} files read, {self.env_vars} env vars, {self.flags} flags, "
            f"{self.sites} raise/log sites in {self.seconds:.1f}s (from {self.origin})"
        )
