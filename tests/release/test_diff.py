"""What changed between two releases (`diff_releases`), on the two small releases of small_wheel.py synced the way
`sync` reads a wheel, and on hand-made pairs for messages and for releases that do not differ."""

from __future__ import annotations

from assistant.release.diff import diff_releases
from assistant.release.extract import assemble, extract_file
from assistant.release.models import ReleaseFacts
from tests.release.conftest import NEW, OLD
from tests.release.small_wheel import release_files


def test_env_vars_and_flags_added_removed_and_with_another_default(synced) -> None:
    d = diff_releases(synced.load(OLD), synced.load(NEW))
    assert (d.old, d.new) == (OLD, NEW)
    assert d.env_added == ()
    assert d.env_removed == ("VLLM_ENGINE_ITERATION_TIMEOUT_S",)  # only the old envs.py has it
    assert d.env_default_changed == (("VLLM_ENGINE_READY_TIMEOUT_S", "300", "600"),)
    assert d.flags_added == ("--kv-offload-gb",)  # only the new arg_utils.py adds it
    assert d.flags_removed == ()
    assert d.flags_default_changed == (("--gpu-memory-utilization", "0.9", "0.92"),)  # CacheConfig's field default
    assert d.messages_added == d.messages_removed == ()  # the same raise sites in both


def test_the_other_way_round_swaps_added_and_removed(synced) -> None:
    d = diff_releases(synced.load(NEW), synced.load(OLD))
    assert d.env_added == ("VLLM_ENGINE_ITERATION_TIMEOUT_S",) and d.env_removed == ()
    assert d.flags_removed == ("--kv-offload-gb",) and d.flags_added == ()
    assert d.env_default_changed == (("VLLM_ENGINE_READY_TIMEOUT_S", "600", "300"),)


def test_a_release_against_itself_changes_nothing(synced) -> None:
    d = diff_releases(synced.load(OLD), synced.load(OLD))
    assert not any(getattr(d, f) for f in d.__dataclass_fields__ if f not in ("old", "new"))
    assert d.render().splitlines()[1:] == [
        "env vars added: 0",
        "env vars removed: 0",
        "env var defaults changed: 0",
        "flags added: 0",
        "flags removed: 0",
        "flag defaults changed: 0",
        "messages added: 0",
        "messages removed: 0",
    ]


def _release(version: str, extra: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> ReleaseFacts:
    files = {p: s for p, s in {**release_files("0.98.0"), **(extra or {})}.items() if p not in drop}
    return assemble(version, "test", [extract_file(p, s, version) for p, s in files.items()], len(files))


NEW_RAISE = '''
def check(n):
    if n < 0:
        raise ValueError(f"num_gpu_blocks_override must be positive, got {n}")
'''


def test_messages_added_and_removed_are_the_raise_sites_that_differ() -> None:
    old = _release("1.0.0")
    new = _release("1.1.0", extra={"vllm/v1/core/overrides.py": NEW_RAISE}, drop=("vllm/third_party/pynvml.py",))
    d = diff_releases(old, new)
    assert d.messages_added == ("num_gpu_blocks_override must be positive, got {n}",)
    assert d.messages_removed == ("NVML_ERROR_UNINITIALIZED: the NVML library was not initialized first",)
    assert d.env_added == d.env_removed == d.flags_added == d.flags_removed == ()
    rendered = d.render()
    assert "messages added: 1\n  num_gpu_blocks_override must be positive, got {n}" in rendered
    assert rendered.startswith("vLLM 1.0.0 -> 1.1.0")


def test_a_message_raised_in_two_places_counts_once() -> None:
    twice = {"vllm/v1/core/a.py": NEW_RAISE, "vllm/v1/core/b.py": NEW_RAISE}
    d = diff_releases(_release("1.0.0"), _release("1.1.0", extra=twice))
    assert d.messages_added == ("num_gpu_blocks_override must be positive, got {n}",)
