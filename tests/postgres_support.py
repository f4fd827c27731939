"""A throwaway PostgreSQL server for the tests that run on PostgreSQL as well as SQLite (tests/test_ledger_store.py,
tests/test_app_tournament_browser.py): Debian's `postgresql` package (`initdb` + `pg_ctl`) listening only on a
unix socket in a temporary folder; as root it runs as the `postgres` user. Where it cannot start, the
PostgreSQL cases are skipped with the reason (the `postgres` fixture)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class PostgresServer:
    """initdb + pg_ctl in a temp folder, unix socket only; stop() removes everything."""

    def __init__(self) -> None:
        initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        if not initdb or not pg_ctl:
            raise RuntimeError("initdb/pg_ctl not found: install Debian's postgresql package")
        self.pg_ctl = pg_ctl
        self.folder = Path(tempfile.mkdtemp(prefix="mcr-pg-"))
        self.data = self.folder / "data"
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root
            user = "postgres" if _user_exists("postgres") else "nobody"
            shutil.chown(self.folder, user=user)
            runuser = shutil.which("runuser")
            if not runuser:
                raise RuntimeError("running as root without runuser to start PostgreSQL as another user")
            self.prefix = [runuser, "-u", user, "--"]
        self._run([initdb, "-D", str(self.data), "-U", "mcr", "--auth=trust", "-E", "UTF8", "--no-sync"])
        options = f"-k {self.folder} -c listen_addresses='' -F"
        self._run([pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "-t", "60", "start"])
        self.admin_url = f"postgresql+psycopg://mcr@/postgres?host={self.folder}"

    def _run(self, command: list[str]) -> None:
        done = subprocess.run(self.prefix + command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.folder / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-2000:]} {tail}")

    def new_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        engine = sa.create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name}")
        engine.dispose()
        return f"postgresql://mcr@/{name}?host={self.folder}"

    def stop(self) -> None:
        subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False



def start_postgres() -> Iterator[PostgresServer]:
    """The `postgres` fixture's body: a server for the session, skipped with the reason where it cannot start."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("PostgreSQL cases need psycopg (the dev extra)")
    try:
        server = PostgresServer()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot start a throwaway PostgreSQL server: {exc}")
    yield server
    server.stop()
