"""Out-of-scope rules end to end (issue 21 item 6), through the real index of the curated corpus and the real
embedding model: what makes the message out of scope is what it says, and the same problem without it is answered."""

from __future__ import annotations

ENVIRONMENT = (
    "PyTorch version              : 2.9.1+cu128\nPython version               : 3.12.3\n"
    "GPU models and configuration : GPU 0: NVIDIA H100 80GB HBM3\nvLLM Version                 : 0.30.0"
)
FORKED = (
    "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
    "the 'spawn' start method"
)


def test_a_bug_report_that_is_only_its_title_is_an_abstention_asking_for_the_error(corpus_assistant):
    report = f"[Bug]: workers fork although CUDA was already initialized\n\n{ENVIRONMENT}"
    answer = corpus_assistant.ask(report)
    assert answer.abstained and not answer.declined
    assert "Your report states the problem in its title only" in answer.body
    pasted = corpus_assistant.ask(f"[Bug]: workers fork although CUDA was already initialized\n\n{FORKED}\n{ENVIRONMENT}")
    assert "Your report states the problem in its title only" not in pasted.body  # the error says which
    assert any(c.id == "cuda-reinitialized-in-forked-subprocess" for c in pasted.citations)


def test_a_fix_the_user_says_already_had_no_effect_is_not_given_again(corpus_assistant):
    plain = corpus_assistant.ask(FORKED)
    assert not plain.abstained and plain.citations[0].id == "cuda-reinitialized-in-forked-subprocess"
    tried = corpus_assistant.ask(f"{FORKED}\n\nI already export VLLM_WORKER_MULTIPROC_METHOD=spawn but it has no effect.")
    assert tried.abstained and not tried.declined
    assert "What my sources recommend for this is the setting you already use" in tried.body
    set_only = corpus_assistant.ask(f"{FORKED}\n\nI export VLLM_WORKER_MULTIPROC_METHOD=fork in my launcher.")
    assert not set_only.abstained  # the setting named, not said to have no effect: the entry still answers


def test_vllm_as_another_products_backend_is_an_abstention_naming_it(corpus_assistant):
    relayed = corpus_assistant.ask(f"Xinference with the vLLM backend fails to start the model:\n\n{FORKED}")
    assert relayed.abstained and not relayed.declined
    assert "You run vLLM through Xinference" in relayed.body
