"""The lead passage of a docs answer is the paragraph that addresses the question, not the section's opening."""

from assistant.answer.passages import block_scores, select

BLOCKS = [
    "vLLM caches multi-modal inputs; the cache size is set with --mm-processor-cache-gb.",
    "If vLLM fails with 'No available memory for the cache blocks', raise --gpu-memory-utilization or lower --max-model-len.",
    "```bash\nvllm serve MODEL --gpu-memory-utilization 0.95\n```",
    "Other notes about logging.",
]


def test_the_best_block_leads_with_the_command_that_follows_it():
    query = ["no", "available", "memory", "cache", "blocks", "gpu-memory-utilization"]
    order = select(BLOCKS, block_scores(BLOCKS, query, None), limit=10_000)
    assert order[:2] == [1, 2]  # the paragraph that answers, then its command
    assert 0 in order[2:]  # the rest, in page order, after the lead


def test_dense_similarity_decides_when_words_do_not():
    scores = block_scores(BLOCKS, ["unrelated"], dense=[0.1, 0.2, 0.15, 0.9])
    assert select(BLOCKS, scores, limit=10_000)[0] == 3


def test_a_code_block_that_scores_best_brings_its_introduction():
    scores = [0.0, 0.2, 1.0, 0.0]
    assert select(BLOCKS, scores, limit=10_000)[:2] == [1, 2]


def test_the_limit_keeps_the_lead_and_drops_what_does_not_fit():
    scores = block_scores(BLOCKS, ["logging"], None)
    assert select(BLOCKS, scores, limit=30) == [3]


def test_a_paragraph_that_scores_best_brings_the_list_after_it():
    blocks = [
        "Building the image takes hours.",
        "If you have not changed any C++ code, you can use precompiled wheels to cut build time.",
        "*   Enable it with `--build-arg VLLM_USE_PRECOMPILED=1`.\n*   It finds the matching nightly wheel.",
        "Podman users may need `--security-opt label=disable`.",
    ]
    assert select(blocks, [0.1, 1.0, 0.3, 0.2], limit=10_000)[:2] == [1, 2]
    # a list item scoring best does not pull in the next list
    items = ["* first step", "* second step", "Closing words."]
    assert select(items, [1.0, 0.0, 0.0], limit=20) == [0]
