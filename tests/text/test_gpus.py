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
