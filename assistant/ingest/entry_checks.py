"""Checks a curated entry must pass before it is trusted (pure): where it comes from, what it names, what it matches.

An entry is what the assistant answers from first, and the verifier trusts it, so a wrong fact in one is
a wrong fact in every answer it gives. These checks catch the mistakes a reviewer misses:

- a `source` that is not a URL, or a path to a file that is not there;
- a flag or env var that the release the entry applies to does not have (invented, or renamed since),
  unless the entry's `renamed` list says when it went and what replaced it;
- an error string that two entries share with no condition to tell them apart, so that a paste
  matches both and the answer depends on the ranking alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from assistant.entry import Entry
from assistant.release.names import ReleaseNames
from assistant.text.vocab import ENV_NAME, FLAG, WORD_START

_FLAG = re.compile(f"{WORD_START}({FLAG})")
_ENV = re.compile(f"(?<!\\.){WORD_START}({ENV_NAME})")  # `CompilationMode.VLLM_COMPILE` is an enum member
_URL = re.compile(r"^https?://\S+$")


def _texts(entry: Entry) -> list[str]:
    """The entry's own words (not its error strings, which are the logs' words, nor `original`)."""
    parts = [entry.title.en, entry.title.zh, entry.question.en, entry.question.zh, entry.root_cause.en,
             entry.root_cause.zh, entry.fix.en, entry.fix.zh]  # fmt: skip
    parts += entry.symptoms.en + entry.symptoms.zh + entry.workarounds.en + entry.workarounds.zh
    return parts


def named_flags(entry: Entry) -> list[str]:
    """Every vLLM flag the entry names: its `flags` and each `--x` in its text, other tools' flags left out."""
    found = [re.split(r"[= ]", f.strip(), maxsplit=1)[0] for f in entry.flags]
    found += [m.group(1) for text in _texts(entry) for m in _FLAG.finditer(text)]
    external = {n.split("=", 1)[0] for n in entry.external_names}
    return [f for f in dict.fromkeys(found) if f not in external]


def named_env_vars(entry: Entry) -> list[str]:
    """Every vLLM env var (`VLLM_*`) the entry names; CUDA_HOME or NCCL_P2P_DISABLE are not vLLM's to define."""
    found = [e.split("=", 1)[0].strip() for e in entry.env_vars]
    found += [m.group(1) for text in _texts(entry) for m in _ENV.finditer(text)]
    external = {n.split("=", 1)[0] for n in entry.external_names}
    return [e for e in dict.fromkeys(found) if e.startswith("VLLM_") and e not in external]


def applies_to_release(entry: Entry, release: str) -> bool:
    """Whether the entry's version conditions include this release (a release with the fix, or one older than
    where the behaviour began, does not have the problem, so its names need not be there)."""
    cond = entry.conditions
    version = Version(release)
    if cond.fixed_in and SpecifierSet(cond.fixed_in).contains(version, prereleases=True):
        return False
    if cond.introduced_in and version < Version(cond.introduced_in):
        return False
    return not cond.affected_versions or SpecifierSet(cond.affected_versions).contains(version, prereleases=True)


def release_problems(entry: Entry, names: ReleaseNames) -> list[str]:
    """ "<id>: --x does not exist in vLLM 0.33.0 ..." for each name the release lacks and `renamed` does not explain."""
    if not applies_to_release(entry, names.version):
        return []
    gone = {r.name.split("=", 1)[0]: r for r in entry.renamed}
    problems = []
    kinds = (("flag", named_flags(entry), names.has_flag), ("env var", named_env_vars(entry), names.has_env))
    for kind, items, has in kinds:
        for name in items:
            if has(name):
                continue
            r = gone.get(name)
            if r is None:
                problems.append(
                    f"{entry.id}: the {kind} {name} does not exist in vLLM {names.version}; fix the name, or add it "
                    f"to `renamed` with the release that removed it"
                )
            elif Version(r.removed_in) > Version(names.version):
                problems.append(
                    f"{entry.id}: {name} is said removed in {r.removed_in}, but vLLM {names.version} lacks it already"
                )
    for r in entry.renamed:
        new = r.replaced_by
        if new and Version(r.removed_in) <= Version(names.version):
            ok = names.has_flag(new) if new.startswith("--") else names.has_env(new) if new.startswith("VLLM_") else True
            if not ok:
                problems.append(f"{entry.id}: {r.name} is said replaced by {new}, which vLLM {names.version} lacks")
        name = r.name.split("=", 1)[0]
        present = names.has_flag(name) if name.startswith("--") else names.has_env(name)
        if present and Version(r.removed_in) <= Version(names.version):
            problems.append(f"{entry.id}: {name} is said removed in {r.removed_in}, but vLLM {names.version} has it")
    return problems


def removal_version_problems(entry: Entry) -> list[str]:
    """An error string that names a removed flag or env var is printed either only by the releases without it
    ("unrecognized arguments: --x") or only by those that still had it (a check on it), so the entry must say
    which: `introduced_in`, `affected_versions` or `fixed_in` (a specifier, or prose naming the release).
    Otherwise a user on the other side of the removal, who cannot have the error, is told its fix."""
    cond = entry.conditions
    if cond.introduced_in or cond.affected_versions or cond.fixed_in or entry.fixed_in.strip() not in ("", "unknown"):
        return []
    problems = []
    for r in entry.renamed:
        name = r.name.split("=", 1)[0]
        hit = next((e for e in entry.error_strings if re.search(f"{WORD_START}{re.escape(name)}(?![\\w-])", e)), None)
        if hit is not None:
            problems.append(
                f"{entry.id}: the error string {hit!r} names {name}, removed in {r.removed_in}, but the entry says "
                f"no release: set `introduced_in: {r.removed_in!r}` if the error is the name being gone, or "
                f"`affected_versions` / `fixed_in` if only releases that had it print it"
            )
    return problems


def source_problems(entry: Entry, exists: Callable[[str], bool]) -> list[str]:
    """The `source` is an http(s) URL, or a path (optionally with `#anchor` and a URL after it) that `exists`."""
    source = entry.source.strip()
    if _URL.match(source):
        return []
    path = source.split(" ", 1)[0].split("#", 1)[0]
    if path.startswith(("http://", "https://")):
        return [f"{entry.id}: source {source!r} is not one URL"]
    if not path or not exists(path):
        return [f"{entry.id}: source {source!r} is neither an http(s) URL nor a file that exists"]
    return []


def reference_problems(entry: Entry) -> list[str]:
    return [f"{entry.id}: reference {r!r} is not an http(s) URL" for r in entry.references if not _URL.match(r)]


def error_named_problems(entry: Entry) -> list[str]:
    """An entry offered only when the user quotes its message (`conditions.error_named`) needs a full message among
    its `error_strings` (`Entry.full_messages`, what the applicability check compares): without one the condition
    holds nothing back."""
    if not entry.conditions.error_named or entry.full_messages:
        return []
    return [f"{entry.id}: error_named, but no error string is a full message (with a space): {entry.error_strings}"]


# --------------------------------------------------------------------------- shared error strings


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _probe_versions(specs: Iterable[str]) -> list[Version]:
    """Releases on both sides of every bound the specifiers name: enough to tell whether two ranges meet."""
    out = {Version("0.0.1"), Version("9999")}
    for spec in specs:
        for s in SpecifierSet(spec):
            v = Version(s.version.replace(".*", ""))
            major, minor, micro = (list(v.release) + [0, 0, 0])[:3]
            out |= {v, Version(f"{major}.{minor}.{micro + 1}"), Version(f"{major}.{minor + 1}.0")}
            if micro:
                out.add(Version(f"{major}.{minor}.{micro - 1}"))
            if minor:
                out.add(Version(f"{major}.{minor - 1}.99"))
    return sorted(out)


def _version_range(entry: Entry) -> list[str]:
    """The entry's affected releases as specifiers that must all hold (fixed_in excluded as a complement)."""
    cond = entry.conditions
    out = []
    if cond.affected_versions:
        out.append(cond.affected_versions)
    if cond.introduced_in:
        out.append(f">={cond.introduced_in}")
    return out


def _versions_disjoint(a: Entry, b: Entry) -> bool:
    ra, rb = _version_range(a), _version_range(b)
    fa, fb = a.conditions.fixed_in, b.conditions.fixed_in
    if not (ra or rb or fa or fb):
        return False
    probes = _probe_versions(ra + rb + [f for f in (fa, fb) if f])

    def inside(v: Version, spec: list[str], fixed: str | None) -> bool:
        if fixed and SpecifierSet(fixed).contains(v, prereleases=True):
            return False
        return all(SpecifierSet(s).contains(v, prereleases=True) for s in spec)

    return not any(inside(v, ra, fa) and inside(v, rb, fb) for v in probes)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", name.rsplit("/", 1)[-1].lower())


def _models_disjoint(a: Sequence[str], b: Sequence[str]) -> bool:
    if not a or not b:
        return False
    return not any(x in y or y in x for x in map(_key, a) for y in map(_key, b))


def distinguishable(a: Entry, b: Entry) -> bool:
    """Whether some condition both entries state rules one out wherever the other applies."""
    ca, cb = a.conditions, b.conditions
    for left, right in ((ca.hardware, cb.hardware), (ca.platforms, cb.platforms), (ca.quantization, cb.quantization)):
        if left and right and not set(left) & set(right):
            return True
    if set(ca.symptoms) and set(cb.symptoms) and not set(ca.symptoms) & set(cb.symptoms):
        return True
    if _models_disjoint(ca.models, cb.models) or _versions_disjoint(a, b):
        return True
    fa, fb = ca.features.stated(), cb.features.stated()
    for name in fa.keys() & fb.keys():
        x, y = fa[name], fb[name]
        if isinstance(x, bool) and x != y:
            return True
        if isinstance(x, list) and not set(x) & set(y):
            return True
    return False


def shared_error_problems(entries: Sequence[Entry]) -> list[str]:
    """Each pair of entries with an error string in common and no condition that tells them apart."""
    problems = []
    for a, b in combinations(entries, 2):
        shared = {_norm(e) for e in a.error_strings} & {_norm(e) for e in b.error_strings}
        if shared and not distinguishable(a, b):
            problems.append(
                f"{a.id} and {b.id} share the error string {min(shared)!r} and no condition tells them apart "
                "(hardware, platform, release, model, quantization, feature or symptom)"
            )
    return problems
