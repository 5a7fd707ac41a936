"""The page-kind prior reorders real retrieval: a real index of docs pages in two folders and a real curated entry,
the real model. It orders pages among the slots pages hold: the entry stays where fusion put it."""

import shutil

import pytest

from assistant.service import Assistant
from assistant.settings import REPO_ROOT
from tests.conftest import make_settings

# Two sections about the same error, one in a design note and one in the troubleshooting guide: close enough on
# words and meaning that their fused scores are near, so a prior decides which comes first.
PAGES = {
    "design/cuda_graphs.md": """# CUDA Graphs

## Capture and replay

CUDA graph capture records the kernels of a decode step once and replays them. An illegal memory access
during graph replay stops the engine; capture sizes are listed by `cudagraph_capture_sizes`.
""",
    "usage/troubleshooting.md": """# Troubleshooting

## Illegal memory access during CUDA graph replay

An illegal memory access while a CUDA graph is replayed: rerun with `--enforce-eager` to run without CUDA
graphs, which shows the kernel that fails.
""",
    # Pages about something else, so that neither section is the bottom of a channel's min-max range (a score of 0
    # there, which no prior lifts).
    "features/lora.md": "# LoRA Adapters\n\n## Serving adapters\n\nPass `--enable-lora` and `--lora-modules name=path`.\n",
    "serving/offline_inference.md": "# Offline Inference\n\n## Batches\n\nThe `LLM` class runs a batch of prompts.\n",
    "models/supported_models.md": "# Supported Models\n\n## Text\n\nLlama, Qwen and Mistral families are supported.\n",
}
# The real entry on what `--enforce-eager` does: near both sections, and first of neither (fused between them for
# ENTRY_QUESTION, below both for QUESTION).
ENTRY = REPO_ROOT / "corpus" / "entries" / "enforce-eager-disables-cuda-graphs-slower.yaml"
QUESTION = "illegal memory access during CUDA graph replay"
ENTRY_QUESTION = "CUDA graph replay illegal memory access; should I pass --enforce-eager to disable CUDA graphs?"
DESIGN, TROUBLE = "docs/design/cuda_graphs.md", "docs/usage/troubleshooting.md"


@pytest.fixture(scope="module")
def two_folders(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("kind-docs")
    for rel, text in PAGES.items():
        path = root / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "entries").mkdir()
    shutil.copy(ENTRY, root / "entries" / ENTRY.name)
    index = tmp_path_factory.mktemp("kind-index")
    assistant = Assistant(make_settings(index, use_channel=False), embedder=embedder)
    assert not assistant.ingest([root]).skipped
    return root, index


def _order(index, embedder, question: str = QUESTION, **settings) -> list[str]:
    assistant = Assistant(make_settings(index, use_channel=False, **settings), embedder=embedder)
    _, hits = assistant.retrieve(question)
    return ["entry" if h.chunk.kind == "entry" else h.chunk.source.split("#")[0] for h in hits]


def test_the_prior_of_a_kind_moves_its_sections_up_or_down(two_folders, embedder):
    _, index = two_folders
    design, trouble = DESIGN, TROUBLE
    favour_trouble = _order(
        index, embedder, page_kind_prior=True, page_kind_priors={"design": 0.5, "troubleshooting": 2}
    )
    favour_design = _order(
        index, embedder, page_kind_prior=True, page_kind_priors={"design": 2, "troubleshooting": 0.5}
    )
    # Both cannot hold of one order: the priors, and nothing else, decide it.
    assert favour_trouble[:2] == [trouble, design] and favour_design[:2] == [design, trouble]


def test_priors_are_ignored_while_the_setting_is_off(two_folders, embedder):
    _, index = two_folders
    plain = _order(index, embedder, page_kind_prior=False)
    assert _order(index, embedder, page_kind_prior=False, page_kind_priors={"design": 0.01}) == plain
    assert _order(index, embedder, page_kind_prior=True, page_kind_priors={}) == plain  # on, no prior: neutral


@pytest.mark.parametrize(
    "priors",
    [
        {"design": 3.0, "troubleshooting": 3.0},  # every page lifted: multiplied into the score, both passed the entry
        {"design": 0.1, "troubleshooting": 0.1},  # both sunk: the entry would have led (pages of other kinds now do)
        {"design": 3.0, "troubleshooting": 0.1},  # the pages swap; the entry between them stays between them
    ],
)
def test_no_prior_moves_a_page_past_the_entry(two_folders, embedder, priors):
    _, index = two_folders
    plain = _order(index, embedder, ENTRY_QUESTION, page_kind_prior=False)
    assert plain[:3] == [TROUBLE, "entry", DESIGN]  # the case this test is about: the entry fused between the pages
    ordered = _order(index, embedder, ENTRY_QUESTION, page_kind_prior=True, page_kind_priors=priors)
    assert ordered.index("entry") == 1
    assert (ordered.index(DESIGN) < ordered.index(TROUBLE)) == (priors["design"] > priors["troubleshooting"])


def test_a_hits_score_stays_its_fused_score_whatever_the_prior(two_folders, embedder):
    _, index = two_folders
    plain = Assistant(make_settings(index, use_channel=False, page_kind_prior=False), embedder=embedder)
    weighted = Assistant(
        make_settings(index, use_channel=False, page_kind_prior=True, page_kind_priors={"design": 2.0}),
        embedder=embedder,
    )
    before = {h.chunk.id: h.score for h in plain.retrieve(QUESTION)[1]}
    after = weighted.retrieve(QUESTION)[1]
    assert [h.chunk.source.split("#")[0] for h in after[:2]] == [DESIGN, TROUBLE]  # reordered by the prior
    assert {h.chunk.id: h.score for h in after} == pytest.approx(before)  # the scores are the channels' own


def test_a_languages_strength_scales_the_prior_and_zero_turns_it_off(two_folders, embedder):
    # The troubleshooting page leads without a prior; a prior for design lifts that, unless English's strength is 0.
    _, index = two_folders
    plain = _order(index, embedder, page_kind_prior=False)
    priors = {"design": 2.0, "troubleshooting": 0.5}
    lifted = _order(index, embedder, page_kind_prior=True, page_kind_priors=priors)
    assert lifted[:2] == [DESIGN, TROUBLE] != plain[:2]
    off = _order(index, embedder, page_kind_prior=True, page_kind_priors=priors, page_kind_prior_strength={"en": 0.0})
    assert off == plain
    other = _order(index, embedder, page_kind_prior=True, page_kind_priors=priors, page_kind_prior_strength={"zh": 0.0})
    assert other == lifted  # another language's strength leaves an English question alone
