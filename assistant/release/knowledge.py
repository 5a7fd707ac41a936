"""What the indexed releases say about a question: raise sites matched, env vars and flags looked up, per version.

Loaded from the `ReleaseStore` on first use and again when a release is synced; shared by every
question the process answers.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import cached_property

from assistant.answer.absence import NameKind, NamesList
from assistant.answer.verify import ReleaseCheck
from assistant.release.match import SiteMatch, SiteMatcher, norm
from assistant.release.models import EnvVar, Flag, KnownName, ReleaseFacts
from assistant.release.refused import refused_names
from assistant.release.store import ReleaseStore, version_key
from assistant.release.version import detect_version, resolve_version
from assistant.text.commands import canonical_flag, other_program_flags

Item = EnvVar | Flag
_VLLM_CLI = re.compile(
    r"vllm\s+serve|unrecognized argument|engine ?args|python -m vllm|vllm\.entrypoints|--\w[\w-]* flag", re.IGNORECASE
)


@dataclass(frozen=True)
class NameFact:
    """An env var or flag the question names, and the indexed releases that have it."""

    name: str
    kind: str  # "env" | "flag"
    present: tuple[Item, ...]  # one per release that has it, oldest first
    absent: tuple[str, ...]  # indexed releases without it, oldest first
    closest: str | None = None  # in none of them: the newest release's name it misspells (`NamesList.closest`)

    @property
    def newest(self) -> Item | None:
        return self.present[-1] if self.present else None


@dataclass(frozen=True)
class Findings:
    """The code facts for one question; empty when no release is indexed."""

    indexed: tuple[str, ...]  # indexed releases, oldest first
    stated: str | None  # the version the user gave or the paste states (may not be indexed)
    release: str | None  # the indexed release the code facts come from
    sites: tuple[SiteMatch, ...] = ()  # attributed raise/log sites, best first
    same_message: tuple[str, ...] = ()  # other indexed releases with the best site's message
    missing_message: tuple[str, ...] = ()  # indexed releases without it
    names: tuple[NameFact, ...] = ()
    # names the user's error refuses that the newest indexed release accepts (their vLLM is older: upgrade), or lists
    # as removed or served by a plugin
    known: tuple[KnownName, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.sites and not self.names and not self.known


class _Release:
    def __init__(self, facts: ReleaseFacts):
        self.facts = facts

    @cached_property
    def matcher(self) -> SiteMatcher:
        return SiteMatcher(self.facts.sites)

    @cached_property
    def env(self) -> dict[str, EnvVar]:
        return {e.name: e for e in self.facts.env_vars}

    @cached_property
    def flags(self) -> dict[str, Flag]:
        out: dict[str, Flag] = {}
        for f in self.facts.flags:
            for name in (f.flag, *f.aliases):
                out.setdefault(name, f)
        return out

    @cached_property
    def known(self) -> dict[tuple[str, str], KnownName]:
        """(kind group, name) -> what the release says of it; architectures by exact name (the registry's key, as a
        checkpoint's config.json spells it), the other kinds by lower-case name."""
        out: dict[tuple[str, str], KnownName] = {}
        for k in self.facts.known:
            group = "architecture" if k.kind.endswith("architecture") else k.kind
            out.setdefault((group, k.name if group == "architecture" else k.name.lower()), k)
        return out

    def accepts(self, kind: str, name: str) -> KnownName | None:
        """What the release says of a refused name; a `flag_choice` (`--flag=value`) among that flag's choices."""
        if kind == "flag_choice":
            flag_name, _, value = name.partition("=")
            flag = self.flag(flag_name)
            if flag is None or value not in flag.choices:
                return None
            return KnownName.flag_choice(flag, value)
        return self.known.get((kind, name if kind == "architecture" else name.lower()))

    @cached_property
    def messages(self) -> frozenset[str]:
        return frozenset(norm(s.template.render()) for s in self.facts.sites)

    def names_list(self, kind: NameKind) -> NamesList:
        """Every env var, or every flag spelling `flag` accepts (aliases, the `--no-x` of a negatable `--x`)."""
        if kind == "env":
            return NamesList(self.facts.version, kind, frozenset(self.env))
        negative = {"--no-" + n[2:] for n, f in self.flags.items() if f.negatable}
        return NamesList(self.facts.version, kind, frozenset(self.flags) | frozenset(negative))

    def flag(self, name: str) -> Flag | None:
        """A flag by any of its names; `--no-x` is the negative form of a `--x` with BooleanOptionalAction."""
        name = canonical_flag(name)  # `--max_model_len` is `--max-model-len` to vLLM's parser
        found = self.flags.get(name)
        if found is None and name.startswith("--no-"):
            base = self.flags.get("--" + name[5:])
            if base is not None and base.negatable:
                return base
        return found


class ReleaseKnowledge:
    def __init__(self, store: ReleaseStore):
        self.store = store
        self._lock = threading.Lock()
        self._revision: tuple | None = None
        self._releases: dict[str, _Release] = {}

    def releases(self) -> dict[str, _Release]:
        revision = self.store.revision()
        if revision != self._revision:
            with self._lock:
                if revision != self._revision:
                    loaded = {v: self._releases.get(v) or _Release(self.store.load(v)) for v in self.store.versions()}
                    self._releases, self._revision = loaded, revision
        return self._releases

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(sorted(self.releases(), key=version_key))

    def warm_up(self) -> None:
        for r in self.releases().values():
            _ = r.matcher

    def get(self, version: str) -> _Release:
        return self.releases()[version]

    def check(self, version: str | None) -> ReleaseCheck | None:
        """Flag / env var existence in one indexed release, for the verifier; None when none is indexed."""
        if not version or version not in self.releases():
            return None
        release = self.get(version)

        def exists(kind: str, name: str) -> bool | None:
            if kind == "flag":
                return release.flag(name) is not None
            if name in release.env:
                return True
            return False if name.startswith("VLLM_") else None  # CUDA_HOME, NCCL_DEBUG: not vLLM's to say

        return ReleaseCheck(version, exists)

    def name_fact(self, name: str) -> NameFact | None:
        """Which indexed releases have this env var or flag; None when it is not something to check."""
        versions = self.versions
        kind = "flag" if name.startswith("--") else "env"
        present, absent = [], []
        for v in versions:
            r = self.get(v)
            item = r.flag(name) if kind == "flag" else r.env.get(name)
            (present.append(item) if item is not None else absent.append(v))
        if not present and not (kind == "env" and name.startswith("VLLM_")) and kind != "flag":
            return None  # another program's variable (CUDA_HOME, NCCL_DEBUG): vLLM's source cannot say
        closest = None if present or not versions else self.get(versions[-1]).names_list(kind).closest(name)
        return NameFact(name, kind, tuple(present), tuple(absent), closest)

    def findings(
        self,
        text: str,
        env_vars: tuple[str, ...] = (),
        flags: tuple[str, ...] = (),
        version: str | None = None,
        default_version: str | None = None,
    ) -> Findings:
        """Raise sites and named env vars / flags for a question, from the user's release when it is indexed.

        The user's release: `version` when given explicitly, else what the paste states, else `default_version`.
        """
        versions = self.versions
        stated = version or detect_version(text) or default_version
        if not versions:
            return Findings((), stated, None)
        release = resolve_version(stated, versions) or versions[-1]
        order = [release] + [v for v in reversed(versions) if v != release]
        sites: list[SiteMatch] = []
        for v in order:  # the user's release first; another release only when the message is not in it
            # a site that relays another message (a worker's wrapper) does not say where that one was raised
            # nor does one that only announces a failure it caught (the error is the traceback it prints)
            sites = [m for m in self.get(v).matcher.match(text) if m.attributed and not m.relays and not m.announces]
            if sites:
                release = v
                break
        same, missing = (), ()
        if sites:
            message = norm(sites[0].site.template.render())
            same = tuple(v for v in versions if v != release and message in self.get(v).messages)
            missing = tuple(v for v in versions if v != release and message not in self.get(v).messages)
        names = []
        about_cli = bool(_VLLM_CLI.search(text))
        foreign = other_program_flags(text)  # `docker run --gpus all ... vllm/vllm-openai`: Docker's flags
        # A flag by the name vLLM's parser gives it (`--max_model_len` is `--max-model-len`): one fact, and the
        # citation names the flag the release defines.
        given = (n.split("=", 1)[0] for n in (*env_vars, *flags))
        for name in dict.fromkeys(canonical_flag(n) for n in given if n not in foreign):
            fact = self.name_fact(name)
            # A flag no release has is worth stating only where the text is about vLLM's command line
            # (`pip download --no-deps` is not a vLLM flag, and nobody asked).
            if fact is not None and (fact.present or fact.kind == "env" or about_cli):
                names.append(fact)
        known = self._known(text, stated, versions)
        return Findings(tuple(versions), stated, release, _distinct(sites), same, missing, tuple(names), known)

    def _known(self, text: str, stated: str | None, versions: tuple[str, ...]) -> tuple[KnownName, ...]:
        """What the newest indexed release says of each name the text's errors refuse. A name it accepts says the
        user's vLLM is older, unless they run that release or a newer one (then the refusal has another cause, and
        nothing is said); a removed architecture or a plugin's is said to anyone."""
        newest = versions[-1]
        out = []
        for kind, name in refused_names(text):
            k = self.get(newest).accepts(kind, name)
            if k is None:
                continue
            current = k.kind not in ("removed_architecture", "plugin_architecture")
            if current and stated and version_key(stated.lstrip("v")) >= version_key(newest):
                continue
            out.append(k)
        return tuple(out)


def _distinct(matches: list[SiteMatch], limit: int = 3) -> tuple[SiteMatch, ...]:
    """The best match, then others within reach of it (the same message raised elsewhere, other pasted errors)."""
    if not matches:
        return ()
    best = matches[0]
    keep = [m for m in matches if m.score >= best.score * 0.8]
    return tuple(keep[:limit])
