"""Test helper: a real PostgreSQL server for one test session, from Debian's `postgresql` package.

`initdb` a cluster in a temp folder and `pg_ctl start` it on a free loopback port, its socket in the
same folder. `initdb` refuses to run as root, so as root the cluster belongs to a `pgtest` user
(created when missing) and every server command runs through `runuser`. Durability is switched off
(fsync, synchronous_commit): the data is thrown away with the folder. `make test` installs the package.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from tests.helpers.server import free_port

USER = "pgtest"
INSTALL_HINT = "install Debian's postgresql package (`apt-get install -y postgresql`; `make test` does it)"


class PostgresUnavailable(RuntimeError):
    """PostgreSQL cannot be started here; the message says what to install or what the server said."""


def bin_dir() -> Path:
    """The newest installed server's binaries (Debian keeps them off PATH, under /usr/lib/postgresql/N/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise PostgresUnavailable(f"no PostgreSQL server binaries (initdb, pg_ctl) were found: {INSTALL_HINT}")


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", USER, "--", *cmd] if os.geteuid() == 0 else cmd


def _ensure_user() -> None:
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)


class PostgresServer:
    """`start()` → a server at `url` (superuser `postgres`, trust auth on loopback); `stop()` removes it all."""

    def __init__(self) -> None:
        self.bin = bin_dir()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="assistant-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"

    @property
    def url(self) -> str:
        return self.database_url("postgres")

    def database_url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, cmd: list[str]) -> None:
        done = subprocess.run(_as_owner(cmd), capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise PostgresUnavailable(f"{Path(cmd[0]).name} failed ({done.returncode}): {done.stderr.strip()}\n{log}")

    def start(self) -> PostgresServer:
        if os.geteuid() == 0:
            _ensure_user()
            shutil.chown(self.root, USER, USER)
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                   "--locale=C", "--no-sync"])  # fmt: skip
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=100"
        )
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.log), "-w",
                   "-t", "60", "start"])  # fmt: skip
        return self

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = name or f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
