"""`python -m assistant feedback`: feedback and knowledge gaps listed, feedback exported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.feedback.store import FeedbackStore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    store = FeedbackStore(tmp_path / "feedback.sqlite3")
    qid = store.record_question("ui", "RuntimeError: not home_path.empty()", False)
    store.record("ui", "up", "RuntimeError: not home_path.empty()", "answer [1]", False, "fixed it", question_id=qid)
    store.record_question("slack", "How long do I proof sourdough?", True)
    store.close()
    return tmp_path / "feedback.sqlite3"


def test_lists_feedback_and_gaps(db: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["feedback", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "[+]" in out and "fixed it" in out
    gaps = out.split("Knowledge gaps")[1]
    assert "How long do I proof sourdough?" in gaps and "home_path" not in gaps


def test_json_listing(db: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["feedback", "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["feedback"][0]["comment"] == "fixed it"
    assert [g["question"] for g in data["gaps"]] == ["How long do I proof sourdough?"]


def test_export_and_bad_suffix(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["feedback", "--db", str(db), "--export", str(tmp_path / "out.csv")]) == 0
    assert "exported 1 feedback records" in capsys.readouterr().out
    assert (tmp_path / "out.csv").read_text().startswith("id,ts,face")
    assert main(["feedback", "--db", str(db), "--export", str(tmp_path / "out.txt")]) == 2
    assert "use a .json or .csv" in capsys.readouterr().err


def test_empty_database(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["feedback", "--db", str(tmp_path / "new.sqlite3")]) == 0
    assert capsys.readouterr().out.count("(none yet)") == 2
