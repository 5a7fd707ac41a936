"""The UI's side panels and history conversion (pure)."""

from __future__ import annotations

from assistant.models import Answer, Chunk, Citation, Hit, Turn
from assistant.ui.render import IDK_BANNER, entry_facts_md, history_turns, sources_md, status_md


def _answer(abstained: bool = False, kind: str = "entry") -> Answer:
    chunk = Chunk(
        id="e1",
        kind=kind,
        title="Crash on SM120",
        source="corpus/entries/e1.yaml",
        origin="x",
        dense_text="",
        lexical_text="",
        data={
            "affected_versions": "0.10.0-0.10.2",
            "fixed_in": "0.11.0",
            "hardware": ["H100"],
            "models": [],
            "env_vars": ["VLLM_X=0"],
            "references": ["https://github.com/vllm-project/vllm/issues/1"],
        },
    )
    cites = (
        ()
        if abstained
        else (
            Citation(1, "e1", "Crash on SM120", "corpus/entries/e1.yaml"),
            Citation(2, "d1", "Docs", "https://docs.vllm.ai/x"),
        )
    )
    return Answer("text [1]", abstained, "en", cites, (Hit(chunk, 1.0, 0.9),))


def test_sources_link_urls_and_show_paths() -> None:
    md = sources_md(_answer())
    assert "1. Crash on SM120 — `corpus/entries/e1.yaml`" in md and "2. [Docs](https://docs.vllm.ai/x)" in md
    assert sources_md(_answer(abstained=True)) == "**Sources:** none"


def test_entry_facts_and_abstention() -> None:
    md = entry_facts_md(_answer())
    assert "| Affected versions | 0.10.0-0.10.2 |" in md and "| Fixed in | 0.11.0 |" in md
    assert (
        "| Hardware | H100 |" in md and "`VLLM_X=0`" in md and "(https://github.com/vllm-project/vllm/issues/1)" in md
    )
    assert entry_facts_md(_answer(kind="doc")) == "" and entry_facts_md(_answer(abstained=True)) == ""
    assert status_md(_answer(abstained=True)) == IDK_BANNER


def test_history_from_chatbot_messages() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "q1"}]},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": ""},
    ]
    assert history_turns(messages) == [Turn("user", "q1"), Turn("assistant", "a1")]
