"""The env vars and flags one release defines, read from its config files only (pure but for the reading).

Checking that a curated entry names real flags needs `vllm/envs.py`, `vllm/engine/arg_utils.py`, the
`cli_args.py` files and the config dataclasses they read, not the release's 7,000 raise sites: reading
those few files takes seconds where a full sync takes minutes. The facts are the ones `sync` extracts
(`extract.extract_file` and `extract.assemble`), so the two cannot disagree on what a flag is.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.release.extract import ENVS_FILE, _is_config_file, assemble, extract_file
from assistant.release.fetch import SourceFiles
from assistant.text.commands import canonical_flag


@dataclass(frozen=True)
class ReleaseNames:
    version: str
    env_vars: frozenset[str]
    flags: frozenset[str]  # every spelling: `--x`, its aliases
    bool_flags: frozenset[str]  # flags that may take the `--no-x` form (BooleanOptionalAction, or a type not read)

    def has_flag(self, name: str) -> bool:
        name = canonical_flag(name)
        if name in self.flags:
            return True
        return name.startswith("--no-") and "--" + name[5:] in self.bool_flags

    def has_env(self, name: str) -> bool:
        return name in self.env_vars


def release_names(source: SourceFiles) -> ReleaseNames:
    """The release's env vars and flags (every spelling), from its env and config files."""
    paths = [p for p in source.paths if p == ENVS_FILE or _is_config_file(p)]
    files = [extract_file(p, source.read(p), source.version) for p in paths]
    facts = assemble(source.version, source.origin, files, len(paths))
    flags = frozenset(name for f in facts.flags for name in (f.flag, *f.aliases))
    # `--no-x` for a flag with argparse.BooleanOptionalAction (vLLM gives it to its boolean config fields); a flag
    # whose type was not resolved through its config class may be one of them.
    bools = frozenset(f.flag for f in facts.flags if f.negatable or f.type is None)
    return ReleaseNames(source.version, frozenset(e.name for e in facts.env_vars), flags, bools)
