"""What changed between two releases, from their source: env vars and flags added, removed or with another
default, and error / warning messages added or removed (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.release.match import norm
from assistant.release.models import ReleaseFacts


@dataclass(frozen=True)
class ReleaseDiff:
    old: str
    new: str
    env_added: tuple[str, ...]
    env_removed: tuple[str, ...]
    env_default_changed: tuple[tuple[str, str | None, str | None], ...]  # (name, old default, new default)
    flags_added: tuple[str, ...]
    flags_removed: tuple[str, ...]
    flags_default_changed: tuple[tuple[str, str | None, str | None], ...]
    messages_added: tuple[str, ...]
    messages_removed: tuple[str, ...]

    def render(self) -> str:
        lines = [f"vLLM {self.old} -> {self.new}"]

        def block(title: str, items) -> None:
            lines.append(f"{title}: {len(items)}")
            lines.extend(f"  {i}" for i in items)

        block("env vars added", self.env_added)
        block("env vars removed", self.env_removed)
        block("env var defaults changed", [f"{n}: {a} -> {b}" for n, a, b in self.env_default_changed])
        block("flags added", self.flags_added)
        block("flags removed", self.flags_removed)
        block("flag defaults changed", [f"{n}: {a} -> {b}" for n, a, b in self.flags_default_changed])
        block("messages added", self.messages_added)
        block("messages removed", self.messages_removed)
        return "\n".join(lines)


def _changed(old: dict, new: dict) -> tuple[tuple[str, str | None, str | None], ...]:
    return tuple(
        (k, old[k].default, new[k].default) for k in sorted(old.keys() & new.keys()) if old[k].default != new[k].default
    )


def diff_releases(old: ReleaseFacts, new: ReleaseFacts) -> ReleaseDiff:
    old_env, new_env = {e.name: e for e in old.env_vars}, {e.name: e for e in new.env_vars}
    old_flags, new_flags = {f.flag: f for f in old.flags}, {f.flag: f for f in new.flags}
    old_msgs = {norm(s.template.render()): s.template.render() for s in old.sites}
    new_msgs = {norm(s.template.render()): s.template.render() for s in new.sites}
    return ReleaseDiff(
        old=old.version,
        new=new.version,
        env_added=tuple(sorted(new_env.keys() - old_env.keys())),
        env_removed=tuple(sorted(old_env.keys() - new_env.keys())),
        env_default_changed=_changed(old_env, new_env),
        flags_added=tuple(sorted(new_flags.keys() - old_flags.keys())),
        flags_removed=tuple(sorted(old_flags.keys() - new_flags.keys())),
        flags_default_changed=_changed(old_flags, new_flags),
        messages_added=tuple(sorted(new_msgs[k] for k in new_msgs.keys() - old_msgs.keys())),
        messages_removed=tuple(sorted(old_msgs[k] for k in old_msgs.keys() - new_msgs.keys())),
    )
