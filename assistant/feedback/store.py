"""SQLite store shared by the UI, the Slack bot and the API: asked questions, feedback, Slack threads.

One file, WAL mode, one connection guarded by a lock: writes are tiny and the faces share a process.
Every text is masked by `redact` before it is written; the file is created readable by its owner only
(0600); rows older than `retention_days` are purged; `log_questions=False` keeps no asked questions.
A write that fails raises `StoreError` and is remembered in `failure`, so callers can keep answering.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from assistant.errors import InputError, StoreError
from assistant.models import Turn
from assistant.text.redact import redact
from assistant.text.sanitize import clean_text

log = logging.getLogger(__name__)

Face = Literal["api", "chat", "ui", "slack", "cli"]
Rating = Literal["up", "down"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS questions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    face TEXT NOT NULL,
    question TEXT NOT NULL,
    abstained INTEGER NOT NULL,
    top_hit TEXT
);
CREATE INDEX IF NOT EXISTS questions_abstained ON questions (abstained, ts);
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    face TEXT NOT NULL,
    question_id INTEGER REFERENCES questions (id),
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    abstained INTEGER NOT NULL,
    rating TEXT NOT NULL CHECK (rating IN ('up', 'down')),
    comment TEXT NOT NULL DEFAULT '',
    user TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS threads (
    conversation TEXT NOT NULL,
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    ts REAL
);
CREATE INDEX IF NOT EXISTS threads_conversation ON threads (conversation, seq);
CREATE TABLE IF NOT EXISTS thread_questions (
    conversation TEXT NOT NULL,
    question_id INTEGER NOT NULL REFERENCES questions (id),
    PRIMARY KEY (conversation, question_id)
);
CREATE TABLE IF NOT EXISTS thread_replies (
    conversation TEXT NOT NULL,
    ts TEXT NOT NULL,
    user TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (conversation, ts)
);
"""

MAX_COMMENT_CHARS = 2000
_PURGE_EVERY_SECONDS = 3600.0


def _masked(text: str) -> str:
    """What may be written: valid Unicode without NULs, secrets masked."""
    return redact(clean_text(text))


@dataclass(frozen=True)
class AskedQuestion:
    id: int
    ts: float
    face: str
    question: str
    abstained: bool
    top_hit: str | None


@dataclass(frozen=True)
class FeedbackRecord:
    id: int
    ts: float
    face: str
    question_id: int | None
    question: str
    answer: str
    abstained: bool
    rating: str
    comment: str
    user: str

    def to_dict(self) -> dict:
        return asdict(self)


class FeedbackStore:
    def __init__(self, path: Path, retention_days: float = 0, log_questions: bool = True):
        self.path = Path(path)
        self.retention_days = retention_days  # 0: keep forever
        self.log_questions = log_questions
        self.failure: str | None = None  # the last write failure, until a write succeeds again
        self.failures = 0
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._purged_at = 0.0

    @classmethod
    def from_settings(cls, settings) -> FeedbackStore:
        return cls(settings.feedback_db, settings.feedback_retention_days, settings.log_questions)

    def _create_private(self) -> None:
        """Create the folder (0700) and the file (0600) before SQLite does, so no one else can read them."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            if not self.path.exists():
                self._create_private()
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=2.0)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
                if "ts" not in {r[1] for r in conn.execute("PRAGMA table_info(threads)")}:
                    conn.execute("ALTER TABLE threads ADD COLUMN ts REAL")  # stores created before retention
            except sqlite3.Error:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                conn = self._connection()
                conn.execute("BEGIN")
            except (sqlite3.Error, OSError) as exc:
                raise self._failed(exc) from exc
            try:
                yield conn
            except sqlite3.Error as exc:
                _rollback(conn)
                raise self._failed(exc) from exc
            except BaseException:
                _rollback(conn)
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(conn)
                raise self._failed(exc) from exc
            self.failure = None

    def check(self) -> str | None:
        """Open the store, check it and try a write that is rolled back, so that a corrupt, read-only or
        unreadable file shows in `failure` (and /readyz) at start, not only when the first write fails.
        None when the store is writable; else the reason, also kept in `failure`."""
        with self._lock:
            conn = None
            try:
                conn = self._connection()
                verdict = conn.execute("PRAGMA quick_check(1)").fetchone()
                if not verdict or verdict[0] != "ok":
                    raise sqlite3.DatabaseError(f"integrity check failed: {verdict[0] if verdict else 'no answer'}")
                conn.execute("BEGIN IMMEDIATE")
                # A read-only file (or folder) accepts BEGIN; only a real write finds out. Rolled back below.
                conn.execute("INSERT INTO thread_replies (conversation, ts, user, text) VALUES ('', '', '', '')")
            except (sqlite3.Error, OSError) as exc:
                self._failed(exc)
                log.error("feedback store unusable", extra={"store": self.path.name, "error": self.failure})
                return self.failure
            finally:
                if conn is not None:
                    _rollback(conn)
            self.failure = None
            return None

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._connection().execute(sql, params).fetchall()
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(
                    f"the feedback store {self.path.name} cannot be read ({type(exc).__name__}: {exc})"
                ) from exc

    def _failed(self, exc: BaseException) -> StoreError:
        self.failures += 1
        self.failure = f"{type(exc).__name__}: {exc}"
        return StoreError(f"the feedback store {self.path.name} cannot be written ({self.failure})")

    def purge(self, now: float | None = None) -> int:
        """Delete questions, feedback and Slack turns older than `retention_days`; returns rows deleted."""
        if not self.retention_days:
            return 0
        now = time.time() if now is None else now
        cutoff = now - self.retention_days * 86400
        with self._tx() as conn:
            n = conn.execute("DELETE FROM questions WHERE ts < ?", (cutoff,)).rowcount
            n += conn.execute("DELETE FROM feedback WHERE ts < ?", (cutoff,)).rowcount
            n += conn.execute("DELETE FROM threads WHERE ts IS NULL OR ts < ?", (cutoff,)).rowcount
            n += conn.execute("DELETE FROM thread_questions WHERE question_id NOT IN (SELECT id FROM questions)").rowcount
            n += conn.execute(
                "DELETE FROM thread_replies WHERE conversation NOT IN (SELECT conversation FROM thread_questions)"
            ).rowcount
        self._purged_at = now
        if n:
            log.info("feedback store purged", extra={"rows": n, "retention_days": self.retention_days})
        return n

    def _maybe_purge(self) -> None:
        if self.retention_days and time.time() - self._purged_at > _PURGE_EVERY_SECONDS:
            self.purge()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # Asked questions: the knowledge gaps are the abstained ones.
    def record_question(self, face: Face, question: str, abstained: bool, top_hit: str | None = None) -> int | None:
        """The new row's id; None when question logging is off."""
        if not self.log_questions:
            return None
        self._maybe_purge()
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT INTO questions (ts, face, question, abstained, top_hit) VALUES (?, ?, ?, ?, ?)",
                (time.time(), face, _masked(question), int(abstained), top_hit),
            )
            return int(cur.lastrowid)

    def question(self, question_id: int) -> AskedQuestion | None:
        rows = self._read(
            "SELECT id, ts, face, question, abstained, top_hit FROM questions WHERE id = ?", (question_id,)
        )
        return _asked(rows[0]) if rows else None

    def gaps(self, limit: int = 100) -> list[AskedQuestion]:
        """Most recent abstained questions: what the knowledge base should learn next."""
        rows = self._read(
            "SELECT id, ts, face, question, abstained, top_hit FROM questions WHERE abstained = 1 "
            "ORDER BY ts DESC, id DESC LIMIT ?",
            (limit,),
        )
        return [_asked(r) for r in rows]

    # Feedback
    def record(
        self,
        face: Face,
        rating: Rating,
        question: str,
        answer: str,
        abstained: bool,
        comment: str = "",
        user: str = "",
        question_id: int | None = None,
    ) -> int:
        if rating not in ("up", "down"):
            raise InputError(f"unknown rating {rating!r}; choose one of: up, down")
        comment = (comment or "").strip()
        if len(comment) > MAX_COMMENT_CHARS:
            raise InputError(f"the comment is {len(comment)} characters long; the limit is {MAX_COMMENT_CHARS}")
        self._maybe_purge()
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT INTO feedback (ts, face, question_id, question, answer, abstained, rating, comment, user) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    time.time(),
                    face,
                    question_id,
                    _masked(question),
                    _masked(answer),
                    int(abstained),
                    rating,
                    _masked(comment),
                    user,
                ),
            )
            return int(cur.lastrowid)

    def list(self, limit: int | None = None) -> list[FeedbackRecord]:
        sql = (
            "SELECT id, ts, face, question_id, question, answer, abstained, rating, comment, user "
            "FROM feedback ORDER BY ts DESC, id DESC"
        )
        params: tuple = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (limit,)
        rows = self._read(sql, params)
        return [FeedbackRecord(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7], r[8], r[9]) for r in rows]

    def export(self, path: Path) -> int:
        """Write every feedback record to `path` (.json or .csv, by suffix); returns how many."""
        path = Path(path)
        records = [r.to_dict() for r in self.list()]
        suffix = path.suffix.lower()
        if suffix not in (".json", ".csv"):
            raise InputError(f"cannot export to {path.name!r}; use a .json or .csv file name")
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".json":
            path.write_text(json.dumps(records, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        else:
            fields = list(FeedbackRecord.__dataclass_fields__)
            with path.open("w", encoding="utf-8", newline="") as fh:
                writer = csv.DictWriter(fh, fieldnames=fields)
                writer.writeheader()
                writer.writerows(records)
        return len(records)

    # Slack threads where the assistant abstained and a person answered: drafts for new entries.
    def link_thread(self, conversation: str, question_id: int) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO thread_questions (conversation, question_id) VALUES (?, ?)",
                (conversation, question_id),
            )

    def record_reply(self, conversation: str, ts: str, user: str, text: str) -> bool:
        """Keep a person's reply in a thread the assistant answered in; False (nothing kept) for other threads."""
        text = (text or "").strip()
        if not text:
            return False
        with self._tx() as conn:
            known = conn.execute("SELECT 1 FROM thread_questions WHERE conversation = ?", (conversation,)).fetchone()
            if not known:
                return False
            conn.execute(
                "INSERT OR REPLACE INTO thread_replies (conversation, ts, user, text) VALUES (?, ?, ?, ?)",
                (conversation, ts, user, _masked(text[: MAX_COMMENT_CHARS * 5])),
            )
        return True

    def answered_gaps(self) -> list[AnsweredGap]:
        """Abstained questions of Slack threads in which someone replied afterwards, oldest first."""
        with self._lock:
            conn = self._connection()
            rows = conn.execute(
                "SELECT t.conversation, q.id, q.ts, q.face, q.question, q.abstained, q.top_hit "
                "FROM thread_questions t JOIN questions q ON q.id = t.question_id "
                "WHERE q.abstained = 1 ORDER BY q.ts, q.id"
            ).fetchall()
            out = []
            for row in rows:
                replies = conn.execute(
                    "SELECT ts, user, text FROM thread_replies WHERE conversation = ? ORDER BY CAST(ts AS REAL)",
                    (row[0],),
                ).fetchall()
                # Replies are kept only once the assistant has answered in the thread: they came after it.
                if replies:
                    out.append(AnsweredGap(row[0], _asked(row[1:]), tuple(ThreadReply(*r) for r in replies)))
        return out

    # Slack threads: the conversation so far, for follow-ups.
    def append_turn(self, conversation: str, turn: Turn) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO threads (conversation, role, content, ts) VALUES (?, ?, ?, ?)",
                (conversation, turn.role, _masked(turn.content), time.time()),
            )

    def turns(self, conversation: str, limit: int = 20) -> list[Turn]:
        rows = self._read(
            "SELECT role, content FROM threads WHERE conversation = ? ORDER BY seq DESC LIMIT ?", (conversation, limit)
        )
        return [Turn(role=r[0], content=r[1]) for r in reversed(rows)]


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # no transaction was open (BEGIN failed) or the connection is gone


@dataclass(frozen=True)
class ThreadReply:
    ts: str
    user: str
    text: str


@dataclass(frozen=True)
class AnsweredGap:
    """A question the assistant abstained on in a Slack thread, and what people replied there afterwards."""

    conversation: str
    question: AskedQuestion
    replies: tuple[ThreadReply, ...]


def _asked(row: tuple) -> AskedQuestion:
    return AskedQuestion(row[0], row[1], row[2], row[3], bool(row[4]), row[5])

