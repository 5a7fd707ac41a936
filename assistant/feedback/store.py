"""The store shared by the UI, the Slack bot and the API: asked questions, feedback, Slack threads.

A SQLite file by default (WAL mode, created readable by its owner only: 0600), or a PostgreSQL database
when `database_url` names one, so several hosts share one feedback list, one gap report and one view of
each Slack thread. One connection per process, guarded by a lock: writes are tiny. The schema is
brought up to date on first use (`assistant.db.migrations`). Every text is masked by `redact` before it
is written; rows older than `retention_days` are purged; `log_questions=False` keeps no asked questions.
A write that fails raises `StoreError` and is remembered in `failure`, so callers can keep answering;
a PostgreSQL connection the server dropped is replaced on the next call.
"""

from __future__ import annotations

import csv
import json
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from assistant.db.connection import Connection, DatabaseError, Target, connect
from assistant.db.migrations import migrate
from assistant.errors import InputError, StoreError
from assistant.models import Turn
from assistant.text.redact import redact
from assistant.text.sanitize import clean_text

log = logging.getLogger(__name__)

Face = Literal["api", "chat", "ui", "slack", "cli"]
Rating = Literal["up", "down"]

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
    def __init__(self, location: Path | str, retention_days: float = 0, log_questions: bool = True):
        """`location`: a SQLite file, or a postgresql:// URL."""
        self.target = Target.of(location)
        self.retention_days = retention_days  # 0: keep forever
        self.log_questions = log_questions
        self.failure: str | None = None  # the last write failure, until a write succeeds again
        self.failures = 0
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._purged_at = 0.0

    @classmethod
    def from_settings(cls, settings) -> FeedbackStore:
        return cls(settings.database_url or settings.feedback_db, settings.feedback_retention_days, settings.log_questions)

    @property
    def location(self) -> str:
        return self.target.location

    @property
    def path(self) -> Path | None:
        """The SQLite file; None on PostgreSQL."""
        return self.target.path

    @property
    def label(self) -> str:
        """The store as messages name it (no credentials)."""
        return self.target.label

    def _connection(self) -> Connection:
        if self._conn is not None and self._conn.broken:
            self._conn.close()
            self._conn = None
        if self._conn is None:
            conn = connect(self.target)
            try:
                migrate(conn)
            except DatabaseError:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self._lock:
            try:
                conn = self._begin()
            except DatabaseError as exc:
                raise self._failed(exc) from exc
            try:
                yield conn
            except DatabaseError as exc:
                _rollback(conn)
                raise self._failed(exc) from exc
            except BaseException:
                _rollback(conn)
                raise
            try:
                conn.execute("COMMIT")
            except DatabaseError as exc:
                _rollback(conn)
                raise self._failed(exc) from exc
            self.failure = None

    def _begin(self) -> Connection:
        """BEGIN on the store's connection; a session the server ended since (a restart, an idle timeout) is
        noticed here, before anything was written, and the transaction starts again on a new connection.

        On SQLite the write lock is taken now (`BEGIN IMMEDIATE`), waiting out another process's write: a transaction
        that has only read (a statement's schema lookup is a read) is refused at once, not waited for, when it
        writes after another process has committed."""
        conn = self._connection()
        begin = "BEGIN IMMEDIATE" if conn.dialect == "sqlite" else "BEGIN"
        try:
            conn.execute(begin)
        except DatabaseError:
            if not conn.broken:
                raise
            conn = self._connection()  # replaces the broken one
            conn.execute(begin)
        return conn

    def check(self) -> str | None:
        """Open the store, check it and try a write that is rolled back, so that a corrupt, read-only or
        unreachable database shows in `failure` (and /readyz) at start, not only when the first write fails.
        None when the store is writable; else the reason, also kept in `failure`."""
        with self._lock:
            conn = None
            try:
                conn = self._connection()
                if self.target.dialect == "sqlite":
                    verdict = conn.execute("PRAGMA quick_check(1)").fetchone()
                    if not verdict or verdict[0] != "ok":
                        raise DatabaseError(f"integrity check failed: {verdict[0] if verdict else 'no answer'}")
                    conn.execute("BEGIN IMMEDIATE")
                else:
                    conn.execute("BEGIN")
                # A read-only file (or folder) accepts BEGIN; only a real write finds out. Rolled back below.
                conn.execute("""INSERT INTO thread_replies (conversation, ts, "user", text) VALUES ('', '', '', '')""")
            except (DatabaseError, OSError) as exc:
                self._failed(exc)
                log.error("feedback store unusable", extra={"store": self.label, "error": self.failure})
                return self.failure
            finally:
                if conn is not None:
                    _rollback(conn)
            self.failure = None
            return None

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                try:
                    return self._connection().execute(sql, params).fetchall()
                except DatabaseError:
                    if self._conn is None or not self._conn.broken:
                        raise
                    return self._connection().execute(sql, params).fetchall()  # once more, on a new connection
            except DatabaseError as exc:
                raise StoreError(f"the feedback store {self.label} cannot be read ({exc})") from exc

    def _failed(self, exc: BaseException) -> StoreError:
        self.failures += 1
        self.failure = str(exc)
        return StoreError(f"the feedback store {self.label} cannot be written ({self.failure})")

    def open(self) -> None:
        """Connect and migrate the schema now (start-up) rather than on the first question; StoreError, and
        `failure` set, when the database cannot be reached."""
        with self._tx():
            pass

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
                "INSERT INTO questions (ts, face, question, abstained, top_hit) VALUES (?, ?, ?, ?, ?) RETURNING id",
                (time.time(), face, _masked(question), int(abstained), top_hit),
            )
            return int(cur.fetchone()[0])

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
                'INSERT INTO feedback (ts, face, question_id, question, answer, abstained, rating, comment, "user") '
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
            return int(cur.fetchone()[0])

    def list(self, limit: int | None = None) -> list[FeedbackRecord]:
        sql = (
            'SELECT id, ts, face, question_id, question, answer, abstained, rating, comment, "user" '
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
                "INSERT INTO thread_questions (conversation, question_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
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
                'INSERT INTO thread_replies (conversation, ts, "user", text) VALUES (?, ?, ?, ?) '
                'ON CONFLICT (conversation, ts) DO UPDATE SET "user" = excluded."user", text = excluded.text',
                (conversation, ts, user, _masked(text[: MAX_COMMENT_CHARS * 5])),
            )
        return True

    def answered_gaps(self) -> list[AnsweredGap]:
        """Abstained questions of Slack threads in which someone replied afterwards, oldest first."""
        rows = self._read(
            "SELECT t.conversation, q.id, q.ts, q.face, q.question, q.abstained, q.top_hit "
            "FROM thread_questions t JOIN questions q ON q.id = t.question_id "
            "WHERE q.abstained = 1 ORDER BY q.ts, q.id"
        )
        out = []
        for row in rows:
            replies = self._read(
                'SELECT ts, "user", text FROM thread_replies WHERE conversation = ? '
                "ORDER BY CAST(ts AS DOUBLE PRECISION)",
                (row[0],),
            )
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


def _rollback(conn: Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except DatabaseError:
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

