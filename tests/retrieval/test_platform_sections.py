"""A docs section for another hardware platform does not answer a user on theirs (real index, real model)."""

import pytest

from assistant.service import Assistant
from tests.conftest import make_settings

PAGES = {
    "gpu.cuda.inc.md": """# Installation

## Python-only build

If you only change Python code, you can build vLLM without compilation. `VLLM_USE_PRECOMPILED=1 uv pip
install --editable .` downloads the precompiled wheel of the commit you are on and reuses its compiled
kernels. A precompiled wheel is only published for commits on main.
""",
    "cpu.md": """# CPU

## Python-only build

The CPU backend has no precompiled wheel: a Python-only build of vLLM for CPUs still compiles the CPU
kernels. Set `VLLM_TARGET_DEVICE=cpu` and run `uv pip install --editable .` with a recent GCC.
""",
    "gpu.rocm.inc.md": """# Installation

## Python-only build

On ROCm, a Python-only build with `VLLM_USE_PRECOMPILED=1 uv pip install --editable .` reuses the
precompiled ROCm wheel of the commit you are on; set `VLLM_TARGET_DEVICE=rocm`.
""",
}


@pytest.fixture(scope="module")
def platform_assistant(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("platform-docs")
    folder = root / "docs" / "getting_started" / "installation"
    folder.mkdir(parents=True)
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    assistant = Assistant(make_settings(tmp_path_factory.mktemp("platform-index")), embedder=embedder)
    assistant.ingest([root / "docs"])
    return assistant


def _pages(assistant: Assistant, question: str) -> list[str]:
    _, hits = assistant.retrieve(question)
    return [h.chunk.origin.rsplit("/", 1)[-1] for h in hits]


def test_a_user_who_names_no_platform_gets_the_default_platform_section_first(platform_assistant):
    # Worded like the CPU section, which would come first on words alone.
    pages = _pages(
        platform_assistant, "python-only build still compiles kernels with GCC: is there no precompiled wheel?"
    )
    assert pages[0] == "gpu.cuda.inc.md"
    assert set(pages) == set(PAGES)  # the other platforms' sections still come, after it


def test_a_named_platform_rules_out_the_sections_of_the_others(platform_assistant):
    cpu = _pages(platform_assistant, "Python-only build of vllm on a CPU-only server: what do I set? torch 2.6.0+cpu")
    assert "cpu.md" in cpu and "gpu.rocm.inc.md" not in cpu
    rocm = _pages(platform_assistant, "python-only build on our MI300X box with ROCm 6.3 fails")
    assert "gpu.rocm.inc.md" in rocm and "cpu.md" not in rocm
    cuda = _pages(platform_assistant, "python-only build on an H100 with CUDA 12.8: precompiled wheel not found")
    assert cuda[0] == "gpu.cuda.inc.md" and "cpu.md" not in cuda and "gpu.rocm.inc.md" not in cuda


def test_a_platform_named_in_an_earlier_turn_still_holds(platform_assistant):
    from assistant.models import Turn

    history = [Turn(role="user", content="We run vLLM on an MI300X box."), Turn(role="assistant", content="OK.")]
    # An error of its own: the question is retrieved alone, not with the earlier turn (`contextualize`).
    question = (
        "python-only build still compiles kernels with GCC\nRuntimeError: no precompiled wheel for commit 3f2a9c1"
    )
    _, hits = platform_assistant.retrieve(question, history)
    pages = [h.chunk.origin.rsplit("/", 1)[-1] for h in hits]
    assert "gpu.rocm.inc.md" in pages and "cpu.md" not in pages
