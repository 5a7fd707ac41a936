"""GPU model → architecture and SM version (AMD: gfx target), so "A100" meets an entry written for "SM80".

Users name the card they have; known problems are often reported per architecture or compute
capability. Values are NVIDIA's published compute capabilities.
"""

from __future__ import annotations

import re

_TABLE: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(p, re.IGNORECASE), arch, sm)
    for p, arch, sm in [
        (r"^V100", "Volta", "SM70"),
        (r"^(T4|RTX\s?20\d0)", "Turing", "SM75"),
        (r"^(A100|A800|A30)$", "Ampere", "SM80"),
        (r"^(A10G?|A40|A6000|RTX\s?30\d0)", "Ampere", "SM86"),
        (r"^(L4|L40S?|RTX\s?40\d0)", "Ada Lovelace", "SM89"),
        (r"^(H100|H200|H800|H20|GH200)$", "Hopper", "SM90"),
        (r"^(B200|GB200|B100)$", "Blackwell", "SM100"),
        (r"^(RTX\s?50\d0|RTX\s?PRO\s?6000)", "Blackwell", "SM120"),
        # AMD Instinct: LLVM gfx targets (AMD's ROCm GPU support tables)
        (r"^MI3(00|25)[XA]?$", "CDNA3", "gfx942"),
        (r"^MI35[05]X?$", "CDNA4", "gfx950"),
        (r"^MI2(10|50)X?$", "CDNA2", "gfx90a"),
    ]
]
_SM = re.compile(r"^sm_?(\d{2,3})[a-z]?$", re.IGNORECASE)


def gpu_terms(name: str) -> list[str]:
    """Architecture and SM code of a GPU name or SM string; [] when unknown."""
    name = name.strip()
    sm = _SM.match(name)
    if sm:
        return [f"SM{sm.group(1)}"]
    for pattern, arch, code in _TABLE:
        if pattern.search(name):
            return [arch, code]
    return []
