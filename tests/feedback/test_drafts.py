"""Drafts from Slack threads a person answered after the assistant abstained; similar gaps grouped."""

from __future__ import annotations

import pytest

from assistant.cli import main
from assistant.feedback.drafts import group_gaps
from assistant.feedback.store import FeedbackStore
from assistant.ingest.loader import load_file

QUESTION = "<@UBOT> vllm serve dies on 2x L4 with --tensor-parallel-size 2:\nRuntimeError: fixture allocator exhausted"
REPLY = "That happens when `--fixture-pool-mb` is below 64; set it to 128 and restart."


@pytest.fixture
def db(make_store, location: str, monkeypatch) -> list[str]:
    """The CLI arguments that name the store: `--db FILE`, or none and ASSISTANT_DATABASE_URL for PostgreSQL."""
    store = make_store()
    key = "slack:C1:1700000000.000100"
    abstained = store.record_question("slack", QUESTION, True)
    store.link_thread(key, abstained)
    assert store.record_reply(key, "1700000050.000200", "U2", REPLY)
    assert not store.record_reply("slack:C1:999.1", "999.2", "U2", "a thread the assistant is not in")
    answered = store.record_question("slack", "RuntimeError: not home_path.empty()", False)
    store.link_thread("slack:C1:1700000100.000100", answered)
    store.record_reply("slack:C1:1700000100.000100", "1700000150.000100", "U3", "thanks!")  # answered: no draft
    unanswered = store.record_question("slack", "why is my model slow", True)
    store.link_thread("slack:C2:1700000200.000100", unanswered)  # nobody replied: no draft
    store.close()
    if store.path is None:
        monkeypatch.setenv("ASSISTANT_DATABASE_URL", location)
        return []
    return ["--db", location]


def test_a_thread_answered_by_a_person_becomes_a_draft_the_entry_loader_accepts(db, tmp_path, capsys):
    out = tmp_path / "drafts"
    assert main(["feedback", "drafts", *db, "--out", str(out)]) == 0
    [path] = sorted(out.glob("*.yaml"))
    assert f"draft: {path}" in capsys.readouterr().out
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# DRAFT") and "Not published" in text
    [chunk] = load_file(path, out)  # the real loader: a valid curated entry
    data = chunk.data
    assert data["id"] == path.stem
    assert data["fix"]["en"] == REPLY
    assert data["error_strings"] == ["RuntimeError: fixture allocator exhausted"]
    assert "--tensor-parallel-size" in data["flags"] and "<@UBOT>" not in data["question"]["en"]
    assert data["source"].startswith("slack thread 1700000000.000100 in channel C1")
    assert data["root_cause"]["en"].startswith("unknown")
    path.write_text(text + "# reviewer notes\n", encoding="utf-8")
    assert main(["feedback", "drafts", *db, "--out", str(out)]) == 0  # a draft being edited is kept
    assert path.read_text(encoding="utf-8").endswith("# reviewer notes\n")


def test_similar_unanswered_questions_are_grouped(tmp_path, capsys):
    store = FeedbackStore(tmp_path / "f.sqlite3")  # the grouping is the store's rows, whatever the backend
    for q in [
        "RuntimeError: fixture allocator exhausted when serving Qwen3-8B",
        "how to fix RuntimeError: fixture allocator exhausted on L4",
        "How long should I proof sourdough bread?",
        "how long to proof sourdough bread dough",
    ]:
        store.record_question("ui", q, True)
    groups = group_gaps(store.gaps())
    assert [g.count for g in groups] == [2, 2]
    assert {len({q.question for q in g.questions}) for g in groups} == {2}
    assert main(["feedback", "--db", str(tmp_path / "f.sqlite3")]) == 0
    out = capsys.readouterr().out.split("Knowledge gaps")[1]
    assert out.count("2x") == 2
