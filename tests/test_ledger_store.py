"""The ledger's storage, the same tests on SQLite and on a real PostgreSQL server started here.

The PostgreSQL server is a throwaway cluster (Debian's `postgresql` package: `initdb` + `pg_ctl`)
listening only on a unix socket in a temporary folder; as root it runs as the `postgres` user.
Where it cannot start, the PostgreSQL cases are skipped with the reason.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

sa = pytest.importorskip("sqlalchemy")

from datafolder import data_root  # noqa: E402
from ledger.exchange import ledger_from_json, ledger_to_json  # noqa: E402
from ledger.match import DealTaken, LedgerError, Match, draw, false_win, win  # noqa: E402
from ledger.store import SCHEMA_VERSION, LedgerStore, default_url  # noqa: E402
from ledger.tournament import tournament  # noqa: E402

PLAYERS = ("Ann", "Bob", "Cat", "Dan")


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
        subprocess.run(self.prefix + [self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@pytest.fixture(scope="session")
def postgres():
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


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def store(database_url):
    with LedgerStore(database_url) as opened:
        yield opened


def test_a_match_survives_reopening(database_url):
    with LedgerStore(database_url) as first:
        match = Match(PLAYERS, name="club night", table="2", round_label="1").validate()
        match_id = first.create_match(match)
        m = first.match(match_id)
        first.add_deal(match_id, win(m, 1, "Ann", discarder="Cat", hand=_east_pung()))
        first.add_deal(match_id, draw(2))
        first.add_deal(match_id, false_win(m, 3, "Dan"))
        before = first.ledger(match_id)
    with LedgerStore(database_url) as again:
        after = again.ledger(match_id)
        assert again.schema_version() == SCHEMA_VERSION
    assert after.match == match
    assert after.rows == before.rows
    assert after.totals == (56, 2, -20, -38)  # 46/-8/-30/-8, then Dan pays 10 to each
    assert after.rows[0].deal.hand["seat_wind"] == "E" and after.rows[0].deal.total == 22
    assert after.next_deal == 4


def test_a_deal_number_taken_twice_is_refused(store):
    match_id = store.create_match(Match(PLAYERS))
    store.add_deal(match_id, draw(1))
    with pytest.raises(DealTaken, match="deal 1 is already recorded"):
        store.add_deal(match_id, draw(1))
    with pytest.raises(LedgerError, match="before deal 2"):
        store.add_deal(match_id, draw(5))
    assert len(store.deals(match_id)) == 1


def test_edit_and_undo_recompute_the_rest(store):
    match_id = store.create_match(Match(PLAYERS))
    m = store.match(match_id)
    store.add_deal(match_id, draw(1))
    store.add_deal(match_id, win(m, 2, "Bob", total=8))  # Bob dealer in deal 2, self-drawn: 16 from each
    assert store.ledger(match_id).totals == (-16, 48, -16, -16)
    edited = store.replace_deal(match_id, false_win(m, 1, "Cat"))
    assert [row.totals for row in edited.rows] == [(10, 10, -30, 10), (-6, 58, -46, -6)]
    assert store.undo_last(match_id).number == 2
    assert store.ledger(match_id).totals == (10, 10, -30, 10)
    with pytest.raises(LedgerError, match="deal 5 is not recorded yet"):
        store.replace_deal(match_id, draw(5))
    # a deal recorded by mistake: the later ones move up and are scored with their new winds
    store.add_deal(match_id, draw(2))
    store.add_deal(match_id, win(m, 3, "Ann", discarder="Bob", hand=_east_pung()))  # Ann seat W: 20
    moved = store.remove_deal(match_id, 2)
    assert [(r.deal.number, r.deal.result.value, r.deal.total) for r in moved.rows] == [(1, "false_win", None), (2, "win", 20)]
    assert store.ledger(match_id).rows == moved.rows
    assert moved.totals == (10 + 44, 10 - 28, -30 - 8, 10 - 8)  # deal 2: Ann seat N, Bob (dealer) discards: 28


def test_two_writers_at_once_lose_nothing(database_url):
    """Two sessions add deals to one match as fast as they can; a refused number is retried as the next one."""
    with LedgerStore(database_url) as setup:
        match_id = setup.create_match(Match(PLAYERS))
    start = threading.Barrier(2)
    refused = {"Ann": 0, "Bob": 0}
    errors: list[BaseException] = []

    def session(offender: str) -> None:
        try:
            with LedgerStore(database_url) as mine:
                m = mine.match(match_id)
                start.wait()
                recorded = 0
                while recorded < 8:
                    number = mine.ledger(match_id).next_deal
                    try:
                        mine.add_deal(match_id, false_win(m, number, offender))
                        recorded += 1
                    except DealTaken:
                        refused[offender] += 1
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=session, args=(name,)) for name in ("Ann", "Bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    with LedgerStore(database_url) as check:
        ledger = check.ledger(match_id)
    assert [row.deal.number for row in ledger.rows] == list(range(1, 17))
    assert sorted(row.deal.offender for row in ledger.rows) == ["Ann"] * 8 + ["Bob"] * 8
    assert ledger.totals == (-160, -160, 160, 160)  # each false win: -30 for the offender, +10 to the others


def _add_false_wins(database_url: str, match_id: int, offender: str, count: int) -> None:
    """One process's session: `count` false wins by `offender`, a refused number retried as the next one."""
    with LedgerStore(database_url) as mine:
        m = mine.match(match_id)
        recorded = 0
        while recorded < count:
            try:
                mine.add_deal(match_id, false_win(m, mine.ledger(match_id).next_deal, offender))
                recorded += 1
            except DealTaken:
                pass


def test_two_processes_at_once_lose_nothing(database_url):
    import multiprocessing

    with LedgerStore(database_url) as setup:
        match_id = setup.create_match(Match(PLAYERS))
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_false_wins, args=(database_url, match_id, name, 8)) for name in ("Cat", "Dan")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=180)
    assert [w.exitcode for w in workers] == [0, 0]
    with LedgerStore(database_url) as check:
        ledger = check.ledger(match_id)
    assert [row.deal.number for row in ledger.rows] == list(range(1, 17))
    assert sorted(row.deal.offender for row in ledger.rows) == ["Cat"] * 8 + ["Dan"] * 8
    assert ledger.totals == (160, 160, -160, -160)


def test_the_same_deal_from_two_sessions_is_recorded_once(database_url):
    with LedgerStore(database_url) as setup:
        match_id = setup.create_match(Match(PLAYERS))
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def session() -> None:
        with LedgerStore(database_url) as mine:
            start.wait()
            try:
                mine.add_deal(match_id, draw(1))
                outcomes.append("recorded")
            except DealTaken as exc:
                outcomes.append(str(exc))

    threads = [threading.Thread(target=session) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes)[-1] == "recorded" and sorted(outcomes)[0].startswith("deal 1 is already recorded")
    with LedgerStore(database_url) as check:
        assert len(check.deals(match_id)) == 1


def test_import_export_and_tournament(store):
    first = store.create_match(Match(PLAYERS, table="1", round_label="1"))
    m = store.match(first)
    store.add_deal(first, win(m, 1, "Ann", discarder="Cat", hand=_east_pung()))
    data = ledger_to_json(store.ledger(first))
    second = store.import_ledger(ledger_from_json({**data, "match": {**data["match"], "table": "2"}}))
    assert store.ledger(second).totals == (46, -8, -30, -8)
    assert [s.match.table for s in store.list_matches()] == ["1", "2"]
    view = tournament(store.ledgers())
    assert [(line.round_label, line.table, line.deals) for line in view.matches] == [("1", "1", 1), ("1", "2", 1)]
    # per match: Ann 4; Bob and Dan tie for second at -8, (2+1)/2 each; Cat 0. Summed over both tables:
    assert [(p.player, p.matches, p.table_points, p.points) for p in view.players] == [
        ("Ann", 2, 8.0, 92), ("Bob", 2, 3.0, -16), ("Dan", 2, 3.0, -16), ("Cat", 2, 0.0, -60),
    ]
    store.delete_match(second)
    assert [s.id for s in store.list_matches()] == [first]


def test_newer_schema_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    LedgerStore(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE schema_version SET version = 99")
    engine.dispose()
    with pytest.raises(LedgerError, match="schema is version 99, newer than this program"):
        LedgerStore(url)


def test_data_folder_and_url_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MCR_DATABASE_URL", raising=False)
    assert data_root() == tmp_path / "data" and not (tmp_path / "data").exists()
    assert default_url() == f"sqlite:///{tmp_path / 'data' / 'ledger.sqlite3'}"
    assert (tmp_path / "data").is_dir()  # the SQLite file's folder is made when the URL is taken
    with LedgerStore() as opened:
        opened.create_match(Match(PLAYERS))
    assert (tmp_path / "data" / "ledger.sqlite3").is_file()
    monkeypatch.setenv("MCR_DATABASE_URL", "nosuchdb://x")
    with pytest.raises(LedgerError, match="cannot use database 'nosuchdb://x'"):
        LedgerStore()


def _east_pung():
    from scoring.notation import parse_hand

    return parse_hand("[EEE] [123p] 456p 789p 1s +1s").to_json()
