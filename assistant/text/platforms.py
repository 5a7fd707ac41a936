"""Which hardware platform a question is about, and which one a docs section is written for (pure).

vLLM runs on NVIDIA CUDA by default (`pip install vllm` installs the CUDA build), and its docs have
pages and sections for the other platforms: the CPU backend, AMD ROCm, Intel XPU, Google TPU, Apple
silicon. A section for one platform does not answer a user on another: "building from source fails"
on a CUDA machine is not answered by the CPU backend's build steps, however alike the words are.

A section's platform is read from where it sits (its page path and section headings), never from its
prose. A user's platform is what they name: a GPU model, CUDA, ROCm, "CPU only", a Mac. Someone who
names nothing runs the default, CUDA: users on another platform say so, it is the first thing that
matters to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

Platform = str  # "cuda" | "rocm" | "xpu" | "tpu" | "cpu" | "apple"
DEFAULT = "cuda"
Verdict = Literal["applies", "contradicts", "unknown"]

# Pages (their file path, or their URL) written for one platform other than the default. The CUDA pages are
# vLLM's general ones: they also hold the sections for building on an unsupported OS, for example.
_PAGE = [
    (re.compile(p + r"(?:\.md|/|$)"), platform)
    for p, platform in [
        (r"installation/gpu\.rocm\.inc|/rocm_[a-z_]+", "rocm"),
        (r"installation/gpu\.xpu\.inc|hardware_supported_models/xpu", "xpu"),
        (r"installation/(?:gpu|cpu)\.apple\.inc", "apple"),
        (r"installation/cpu(?:\.[a-z0-9]+\.inc)?|hardware_supported_models/cpu", "cpu"),
    ]
]
# Section headings that name an accelerator platform ("Attention Backend Selection for XPU").
_HEADING = [
    (re.compile(p), platform)
    for p, platform in [
        (r"\bROCm\b", "rocm"),
        (r"\bXPU\b|\bIntel GPUs?\b", "xpu"),
        (r"\bTPU\b", "tpu"),
        (r"\bApple silicon\b", "apple"),
    ]
]
# `collect_env.py` reports name every platform, with "N/A" for those the machine lacks.
_NOT_THERE = re.compile(
    r"\b(?:ROCM|ROCm|HIP|MIOpen|Neuron|XPU|TPU)\b[^:\n;]{0,40}:\s*(?:N/A|None|Could not collect|Disabled|False)",
    re.IGNORECASE,
)
# What a user writes when they run a platform. CUDA is also implied by any NVIDIA GPU they name.
_USER = [
    (re.compile(p, re.IGNORECASE | re.ASCII), platform)  # ASCII boundaries: "在ROCm上跑", "mac上跑"
    for p, platform in [
        (r"\bcuda\b|\bcu1[0-3]\d\b|\bnvidia\b|\bnvcc\b|\bnccl\b|英伟达", "cuda"),
        (r"\brocm\b|\bhip\b|\bhipError|\bgfx9\d\d\b|\bMI[23]\d\d[XA]?\b|\bInstinct\b|\bRadeon\b|\bAMD GPU", "rocm"),
        (r"\bxpu\b|\bIntel (?:Arc|GPU|Data Center GPU)\b|\bArc A7\d0\b", "xpu"),
        (r"\btpu\b|\blibtpu\b", "tpu"),
        # Not "MPS": NVIDIA has one too (the Multi-Process Service).
        (r"\bapple silicon\b|\bmac(?: ?os|book)?\b|\bM[1-4] (?:Max|Pro|Ultra)\b|苹果", "apple"),
        (
            (
                r"\bcpu[- ]only\b|\b(?:run|running|runs|serve|serving|install|installing|deploy) (?:vllm )?on (?:a |the )?cpu\b"
                r"|\bcpu (?:backend|inference|build|wheel|docker image)\b|\bVLLM_CPU_\w+|\+cpu\b"
                r"|\bwithout (?:a |any )?gpu\b|\bno gpus?\b|纯\s*cpu|cpu\s*推理|cpu\s*版|没有\s*(?:gpu|显卡)"
                r"|(?:用|在)\s*cpu\s*上?\s*(?:跑|运行|部署|推理)"
            ),
            "cpu",
        ),
    ]
]


def section_platform(page: str, headings: Iterable[str] = ()) -> Platform | None:
    """The platform a docs section is written for, from its page's path and its headings; None: any platform."""
    for pattern, platform in _PAGE:
        if pattern.search(page):
            return platform
    for heading in headings:
        for pattern, platform in _HEADING:
            if pattern.search(heading):
                return platform
    return None


def user_platforms(text: str, gpus: Iterable[str] = ()) -> frozenset[Platform]:
    """The platforms a user says they run (empty: they did not say, so the default applies)."""
    text = _NOT_THERE.sub(" ", text)
    found = {platform for pattern, platform in _USER if pattern.search(text)}
    for gpu in gpus:
        found.add("rocm" if gpu.upper().startswith("MI") else "cuda")
    return frozenset(found)


def verdict(section: Platform | None, user: frozenset[Platform]) -> Verdict:
    """Whether a section written for `section` answers a user who runs `user`.

    "unknown": the user named no platform and the section is for another than the default; it may still
    answer, after every section that applies.
    """
    if section is None or section in user:
        return "applies"
    if user:
        return "contradicts"
    return "applies" if section == DEFAULT else "unknown"
