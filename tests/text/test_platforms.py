"""The hardware platform of a docs section and of a user's setup."""

import pytest

from assistant.text.platforms import section_platform, user_platforms, verdict

COLLECT_ENV = """PyTorch version: 2.5.1+cu124
CUDA used to build PyTorch: 12.4
ROCM used to build PyTorch: N/A
GPU models and configuration: GPU 0: NVIDIA L40S
HIP runtime version: N/A
MIOpen runtime version: N/A
ROCM Version: Could not collect
CUDA Archs: Not Set; ROCm: Disabled; Neuron: Disabled"""


@pytest.mark.parametrize(
    ("page", "headings", "platform"),
    [
        ("/docs/getting_started/installation/cpu.md", (), "cpu"),
        ("docs:vllm-project/vllm@v0.33.0:getting_started/installation/cpu.x86.inc.md", (), "cpu"),
        ("https://docs.vllm.ai/en/v0.33.0/getting_started/installation/cpu/#python-only-build", (), "cpu"),
        ("docs/getting_started/installation/gpu.rocm.inc.md", (), "rocm"),
        ("docs/getting_started/installation/gpu.xpu.inc.md", (), "xpu"),
        ("docs/getting_started/installation/cpu.apple.inc.md", (), "apple"),
        ("docs/design/rocm_octave.md", (), "rocm"),
        ("docs/features/batch_invariance.md", ("Batch Invariance", "Attention Backend Selection for XPU"), "xpu"),
        # CUDA is the default: its pages are vLLM's general ones (they also say how to build on an unsupported OS)
        ("docs/getting_started/installation/gpu.cuda.inc.md", ("Unsupported OS build",), None),
        ("docs/usage/troubleshooting.md", ("Troubleshooting", "Out of memory"), None),
        ("docs/configuration/optimization.md", ("Minimum CPU requirements",), None),
    ],
)
def test_a_section_platform_comes_from_its_page_and_headings(page, headings, platform):
    assert section_platform(page, headings) == platform


@pytest.mark.parametrize(
    ("text", "gpus", "platforms"),
    [
        (COLLECT_ENV, (), {"cuda"}),  # collect_env names ROCm with N/A: that is not a ROCm machine
        ("python-only build fails with precompiled wheel not found", (), set()),
        ("outputs differ on my A100", ("A100",), {"cuda"}),
        ("hipErrorNoBinaryForGpu on an MI300X", ("MI300X",), {"rocm"}),
        ("running vllm on CPU, torch 2.6.0+cpu, the server is slow", (), {"cpu"}),
        ("what value for VLLM_CPU_KVCACHE_SPACE?", (), {"cpu"}),
        ("How do I install vllm on my MacBook?", (), {"apple"}),
        ("pip install fails with libtpu.so: cannot open shared object", (), {"tpu"}),
        ("纯 CPU 的机器上能跑 vllm 吗", (), {"cpu"}),
        ("the API server uses 100% of one CPU core on our H100 box", ("H100",), {"cuda"}),
        ("vllm behind the CUDA MPS daemon", (), {"cuda"}),  # NVIDIA's Multi-Process Service, not Apple's
    ],
)
def test_a_user_platform_is_what_they_name(text, gpus, platforms):
    assert user_platforms(text, gpus) == platforms


def test_a_section_for_another_platform_contradicts_a_named_one_and_waits_when_none_is_named():
    assert verdict("cpu", frozenset({"cuda"})) == "contradicts"
    assert verdict("cpu", frozenset()) == "unknown"
    assert verdict("cpu", frozenset({"cpu"})) == "applies"
    assert verdict("rocm", frozenset({"cuda", "rocm"})) == "applies"
    assert verdict(None, frozenset({"rocm"})) == "applies"
