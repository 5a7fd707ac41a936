"""One DB-API connection to SQLite or PostgreSQL behind the same four calls.

The stores write portable SQL (`?` placeholders, `INSERT ... ON CONFLICT`, `RETURNING`, both of
which SQLite has had since 3.35) and run their own transactions (`BEGIN` ... `COMMIT`) on a
connection in autocommit mode, so a statement outside `BEGIN` is its own transaction on both.
Every driver error comes out as `DatabaseError`, so callers need not import either driver.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

Dialect = Literal["sqlite", "postgresql"]
CONNECT_TIMEOUT_SECONDS = 5
# How long a SQLite write waits for another process's write transaction before "database is locked". Writes are
# tiny; this covers API workers that start together, each migrating the same new file, on a loaded machine.
SQLITE_BUSY_TIMEOUT_SECONDS = 10.0


class DatabaseError(Exception):
    """The database could not be opened or a statement failed; the message names the driver's error."""


@dataclass(frozen=True)
class Target:
    """Where the shared state lives: `location` is a SQLite file path or a postgresql:// URL."""

    location: str

    @classmethod
    def of(cls, location: Path | str) -> Target:
        return cls(str(location))

    @property
    def dialect(self) -> Dialect:
        return "postgresql" if self.location.startswith(("postgresql://", "postgres://")) else "sqlite"

    @property
    def path(self) -> Path | None:
        return Path(self.location) if self.dialect == "sqlite" else None

    @property
    def label(self) -> str:
        """What messages may show: the file name, or the server and database without user or password."""
        if self.dialect == "sqlite":
            return Path(self.location).name
        parts = urlsplit(self.location)
        host = parts.hostname or "localhost"
        port = f":{parts.port}" if parts.port else ""
        return f"postgresql://{host}{port}{parts.path or '/'}"


class Connection:
    """A driver connection in autocommit mode; `execute` takes `?` placeholders on both dialects."""

    def __init__(self, raw: Any, dialect: Dialect):
        self.raw = raw
        self.dialect = dialect

    def execute(self, sql: str, params: tuple | list = ()) -> Any:
        """The driver's cursor (fetchone, fetchall, rowcount); `DatabaseError` when the statement fails."""
        if self.dialect == "postgresql":
            sql = sql.replace("?", "%s")  # the stores' SQL has no other question mark and no percent sign
        try:
            return self.raw.execute(sql, tuple(params))
        except _driver_errors(self.dialect) as exc:
            raise DatabaseError(f"{type(exc).__name__}: {exc}".strip()) from exc

    @property
    def broken(self) -> bool:
        """A PostgreSQL connection the server dropped (restart, network): open a new one."""
        return self.dialect == "postgresql" and bool(self.raw.closed or self.raw.broken)

    def close(self) -> None:
        try:
            self.raw.close()
        except _driver_errors(self.dialect):
            pass  # closing a connection the server already dropped


def connect(target: Target) -> Connection:
    """Open the database: a new SQLite file is created readable by its owner only (folder 0700, file 0600)."""
    if target.dialect == "postgresql":
        import psycopg

        try:
            raw = psycopg.connect(target.location, autocommit=True, connect_timeout=CONNECT_TIMEOUT_SECONDS)
        except psycopg.Error as exc:
            raise DatabaseError(f"{type(exc).__name__}: {_first_line(exc)}") from exc
        return Connection(raw, "postgresql")
    path = Path(target.location)
    try:
        if not path.exists():
            _create_private(path)
        raw = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=SQLITE_BUSY_TIMEOUT_SECONDS)
    except (sqlite3.Error, OSError) as exc:
        raise DatabaseError(f"{type(exc).__name__}: {exc}") from exc
    conn = Connection(raw, "sqlite")
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except DatabaseError:
        conn.close()
        raise
    return conn


def _create_private(path: Path) -> None:
    """Create the folder (0700) and the file (0600) before SQLite does, so no one else can read them."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)


def _driver_errors(dialect: Dialect) -> tuple[type[BaseException], ...]:
    if dialect == "postgresql":
        import psycopg

        return (psycopg.Error,)
    return (sqlite3.Error,)


def _first_line(exc: BaseException) -> str:
    """psycopg's connection errors span lines (one per address tried); the first says what happened."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
