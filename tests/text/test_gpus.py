import pytest

from assistant.text.gpus import gpu_terms


@pytest.mark.parametrize(
    "name, terms",
    [
        ("V100", ["Volta", "SM70"]),
        ("T4", ["Turing", "SM75"]),
        ("A100", ["Ampere", "SM80"]),
        ("RTX 3090", ["Ampere", "SM86"]),
        ("A10G", ["Ampere", "SM86"]),
        ("L40S", ["Ada Lovelace", "SM89"]),
        ("H100", ["Hopper", "SM90"]),
        ("B200", ["Blackwell", "SM100"]),
        ("RTX 5090", ["Blackwell", "SM120"]),
        ("sm_86", ["SM86"]),
        ("SM120", ["SM120"]),
        ("Blackwell", []),
        ("Z9000", []),
    ],
)
def test_gpu_names_map_to_architecture_and_sm(name, terms):
    assert gpu_terms(name) == terms


@pytest.mark.parametrize(
    "name, terms",
    [("MI300X", ["CDNA3", "gfx942"]), ("MI325X", ["CDNA3", "gfx942"]), ("MI250X", ["CDNA2", "gfx90a"])],
)
def test_amd_instinct_maps_to_its_gfx_target(name, terms):
    assert gpu_terms(name) == terms
