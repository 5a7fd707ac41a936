"""The UI's side panels and history conversion (pure)."""

from __future__ import annotations

from assistant.models import Answer, Chunk, Citation, Hit, Turn
from assistant.ui.render import IDK_BANNER, entry_facts_md, history_turns, message_md, sources_md, status_md


def _entry(id: str, title: str, kind: str = "entry", **data) -> Chunk:
    return Chunk(id=id, kind=kind, title=title, source=f"corpus/entries/{id}.yaml", origin="x", dense_text="",
                 lexical_text="", data=data)  # fmt: skip


def _answer(abstained: bool = False, kind: str = "entry") -> Answer:
    chunk = _entry(
        "e1",
        "Crash on SM120",
        kind,
        affected_versions="0.10.0-0.10.2",
        fixed_in="0.11.0",
        hardware=["H100"],
        models=[],
        env_vars=["VLLM_X=0"],
        references=["https://github.com/vllm-project/vllm/issues/1"],
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


def test_facts_describe_the_entry_the_answer_cited_not_the_top_hit() -> None:
    top = _entry("top", "Ranked first, not used", hardware=["B200"], models=["Qwen/Qwen3-8B"])
    used = _entry("used", "The cited entry", affected_versions="0.11.0")
    doc = _entry("d1", "A docs section", kind="doc")
    answer = Answer(
        "body [1] [2]",
        False,
        "en",
        (Citation(1, "d1", "A docs section", "docs/x.md#a"), Citation(2, "used", "The cited entry", "p")),
        (Hit(top, 1.0, 0.9), Hit(doc, 0.9, 0.8), Hit(used, 0.8, 0.7)),
    )
    md = entry_facts_md(answer)
    assert md.startswith("**Matched entry [2]:** The cited entry") and "Ranked first" not in md
    # the entry names no hardware, no model and no fix version: it does not say "any"
    assert "| Hardware | not stated |" in md and "| Models | not stated |" in md and "| Fixed in | not stated |" in md
    assert "any" not in md.lower().split()


def test_the_chat_message_lists_the_sources_once_in_the_answer_language() -> None:
    zh = Answer("解决方法：设置 `VLLM_X=0` [1]", False, "zh", (Citation(1, "e1", "崩溃", "https://x.example/e1"),), ())
    md = message_md(zh)
    assert md == "解决方法：设置 `VLLM_X=0` [1]\n\n**来源:**\n[1] [崩溃](https://x.example/e1)"
    assert message_md(_answer(abstained=True)) == "text [1]"


def test_history_from_chatbot_messages() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "q1"}]},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": ""},
    ]
    assert history_turns(messages) == [Turn("user", "q1"), Turn("assistant", "a1")]
