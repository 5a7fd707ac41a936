"""The problem share (`Hit.problem`, `Settings.problem_evidence`) on real retrieval: a real index of two docs sections,
the real model. One section shares the user's setup (the command, the flags they pass), the other what went wrong."""

import pytest

from assistant.retrieval.query import analyze
from assistant.service import Assistant
from tests.conftest import make_settings

PAGES = {
    "features/lora.md": """# LoRA Adapters

## Serving adapters

Start the server with `vllm serve meta-llama/Llama-3.1-8B --enable-lora --max-lora-rank 64` and pass
`--lora-modules name=path` for each adapter; `--max-loras` bounds how many are active at once.
""",
    "usage/troubleshooting.md": """# Troubleshooting

## Illegal memory access

`RuntimeError: CUDA error: an illegal memory access was encountered` usually comes from a kernel bug: rerun with
`CUDA_LAUNCH_BLOCKING=1` to see the failing kernel, and with `--enforce-eager` to rule out CUDA graphs.
""",
    "serving/offline_inference.md": "# Offline Inference\n\n## Batches\n\nThe `LLM` class runs a batch of prompts.\n",
}
QUESTION = (
    "vllm serve meta-llama/Llama-3.1-8B --enable-lora --max-lora-rank 64\n"
    "crashes with RuntimeError: CUDA error: an illegal memory access was encountered"
)
LORA, TROUBLE = "docs/features/lora.md", "docs/usage/troubleshooting.md"


def test_problem_tokens_leave_out_the_command_line_and_the_model():
    q = analyze(QUESTION)
    assert {"illegal", "memory", "access", "runtimeerror"} <= set(q.problem_tokens)
    assert not {"--enable-lora", "lora", "serve", "llama-3.1-8b"} & set(q.problem_tokens)
    assert "lora" in q.focus_tokens  # what the older coverage reads: the setup counts there


@pytest.fixture(scope="module")
def index(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("problem-docs")
    for rel, text in PAGES.items():
        path = root / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    index = tmp_path_factory.mktemp("problem-index")
    assistant = Assistant(make_settings(index, use_channel=False), embedder=embedder)
    assert not assistant.ingest([root]).skipped
    return index


def _hits(index, embedder, **settings):
    assistant = Assistant(make_settings(index, use_channel=False, **settings), embedder=embedder)
    _, hits = assistant.retrieve(QUESTION)
    return {h.chunk.source.split("#")[0]: h for h in hits}


def test_the_problem_share_tells_the_setup_section_from_the_problem_section(index, embedder):
    hits = _hits(index, embedder, problem_evidence=True)
    lora, trouble = hits[LORA], hits[TROUBLE]
    assert lora.coverage > 0.1  # the setup section shares many of the message's words
    assert trouble.problem > 2 * lora.problem  # but few of its problem's
    assert len(lora.features) == 5 and lora.features[-1] == lora.problem


def test_off_by_setting_the_hits_are_those_of_the_four_feature_model(index, embedder):
    off = _hits(index, embedder)
    assert all(h.problem is None and len(h.features) == 4 for h in off.values())
    on = _hits(index, embedder, problem_evidence=True)
    assert {s: h.coverage for s, h in off.items()} == {s: h.coverage for s, h in on.items()}
