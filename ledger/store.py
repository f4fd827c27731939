"""Matches kept in a database: SQLite by default, any SQLAlchemy URL (PostgreSQL) on request.

One small interface, `LedgerStore`, over SQLAlchemy Core. The default is one SQLite file,
`ledger.sqlite3` in the app's data folder (`$MCR_DATA`, else `~/.mcr-scorer`), in WAL mode so
that several app sessions can read while one writes; `MCR_DATABASE_URL` (e.g.
`postgresql://user@host/mcr`) puts every table's matches of a tournament in one server.

Only what was decided is stored (the match, its players, each deal with the winning hand's
JSON); payments, totals and standings are computed from it (`ledger.match.build_ledger`).
Every write is one transaction; a deal number taken twice is refused (checked under a lock on
the match, and by a unique constraint as the last word).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from datafolder import data_root

from .match import Deal, DealTaken, Ledger, LedgerError, Match, Result, build_ledger, check_next, without_deal
from .rules import SeatRule

DATABASE_ENV = "MCR_DATABASE_URL"
DATABASE_FILE = "ledger.sqlite3"
SCHEMA_VERSION = 1


def default_url() -> str:
    """`$MCR_DATABASE_URL`, else the SQLite file in the data folder (created)."""
    if url := os.environ.get(DATABASE_ENV):
        return url
    root = data_root()
    root.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{root / DATABASE_FILE}"


def _driver_url(url: str) -> str:
    """A bare postgresql:// URL names psycopg2 to SQLAlchemy; use psycopg 3 when that is what is installed."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            try:
                import psycopg2  # noqa: F401
            except ImportError:
                return "postgresql+psycopg://" + url[len(prefix):]
            return "postgresql://" + url[len(prefix):]
    return url


metadata = sa.MetaData()
schema_version = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))
matches = sa.Table(
    "matches", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, default=""),
    sa.Column("table_label", sa.String(100), nullable=False, default=""),
    sa.Column("round_label", sa.String(100), nullable=False, default=""),
    sa.Column("seat_rule", sa.String(20), nullable=False),
    sa.Column("false_win_penalty", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)
players = sa.Table(
    "players", metadata,
    sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("place", sa.Integer, primary_key=True),  # 0..3: starting place E S W N
    sa.Column("name", sa.String(100), nullable=False),
    sa.UniqueConstraint("match_id", "name", name="uq_players_match_name"),
)
deals = sa.Table(
    "deals", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("result", sa.String(20), nullable=False),
    sa.Column("winner", sa.Integer),  # player places 0..3
    sa.Column("discarder", sa.Integer),
    sa.Column("offender", sa.Integer),
    sa.Column("total", sa.Integer),
    sa.Column("penalty", sa.Integer),
    sa.Column("hand_json", sa.Text),
    sa.Column("recorded_at", sa.String(40), nullable=False),
    sa.UniqueConstraint("match_id", "number", name="uq_deals_match_number"),
)


def _migrate_to_1(conn: Connection) -> None:
    for table in (matches, players, deals):
        table.create(conn, checkfirst=True)


# version -> the step that brings the schema from version - 1 to it; append, never edit.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _migrate_to_1}


class MatchNotFound(LedgerError):
    def __init__(self, match_id: object):
        super().__init__(f"no match {match_id!r} in this database (`python -m ledger list` shows them)")


@dataclass(frozen=True)
class MatchSummary:
    id: int
    match: Match
    deals: int
    created_at: str


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class LedgerStore:
    """The matches of one database. Open with a URL (default: `default_url()`); `close()` when done."""

    def __init__(self, url: str | None = None):
        self.url = url or default_url()
        try:
            self.engine: Engine = sa.create_engine(_driver_url(self.url))
        except (sa.exc.ArgumentError, ImportError, sa.exc.NoSuchModuleError) as exc:
            raise LedgerError(f"cannot use database {self.url!r}: {exc}") from None
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        if self.is_sqlite:
            self._setup_sqlite()
        try:
            self.migrate()
        except sa.exc.OperationalError as exc:
            self.engine.dispose()
            raise LedgerError(f"cannot open database {self.url!r}: {exc.orig}") from None

    def _setup_sqlite(self) -> None:
        database = self.engine.url.database
        if database and database != ":memory:":
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)

        @sa.event.listens_for(self.engine, "connect")
        def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
            dbapi_connection.isolation_level = None  # SQLAlchemy's begin below starts every transaction
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @sa.event.listens_for(self.engine, "begin")
        def _on_begin(conn: Connection) -> None:
            # take the write lock at the start: two writers queue instead of failing on upgrade
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "LedgerStore":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- schema -------------------------------------------------------------------

    def migrate(self) -> int:
        """Bring the schema to SCHEMA_VERSION (one transaction, one migrator at a time); returns the version."""
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(20200520)")
            schema_version.create(conn, checkfirst=True)
            current = conn.scalar(sa.select(sa.func.max(schema_version.c.version))) or 0
            if current > SCHEMA_VERSION:
                raise LedgerError(
                    f"the database schema is version {current}, newer than this program ({SCHEMA_VERSION}): update the program"
                )
            for version in range(current + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[version](conn)
                conn.execute(sa.delete(schema_version))
                conn.execute(sa.insert(schema_version).values(version=version))
            return max(current, SCHEMA_VERSION)

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            return conn.scalar(sa.select(sa.func.max(schema_version.c.version))) or 0

    # --- matches ------------------------------------------------------------------

    def create_match(self, match: Match) -> int:
        """A new match without deals; returns its id."""
        return self.import_ledger(build_ledger(match.validate(), []))

    def match(self, match_id: int) -> Match:
        with self.engine.connect() as conn:
            return self._match(conn, match_id)

    def _match(self, conn: Connection, match_id: int) -> Match:
        row = conn.execute(sa.select(matches).where(matches.c.id == match_id)).first()
        if row is None:
            raise MatchNotFound(match_id)
        names = conn.execute(
            sa.select(players.c.name).where(players.c.match_id == match_id).order_by(players.c.place)
        ).scalars().all()
        return Match(
            players=tuple(names),
            seat_rule=SeatRule(row.seat_rule),
            false_win_penalty=row.false_win_penalty,
            name=row.name, table=row.table_label, round_label=row.round_label,
        )

    def list_matches(self) -> list[MatchSummary]:
        with self.engine.connect() as conn:
            counts: dict[int, int] = dict(conn.execute(
                sa.select(deals.c.match_id, sa.func.count()).group_by(deals.c.match_id)
            ).all())
            rows = conn.execute(sa.select(matches.c.id, matches.c.created_at).order_by(matches.c.id)).all()
            return [MatchSummary(r.id, self._match(conn, r.id), counts.get(r.id, 0), r.created_at) for r in rows]

    # --- deals --------------------------------------------------------------------

    def deals(self, match_id: int) -> list[Deal]:
        with self.engine.connect() as conn:
            match = self._match(conn, match_id)
            return self._deals(conn, match_id, match)

    def _deals(self, conn: Connection, match_id: int, match: Match) -> list[Deal]:
        rows = conn.execute(sa.select(deals).where(deals.c.match_id == match_id).order_by(deals.c.number)).all()

        def name(place: int | None) -> str | None:
            return None if place is None else match.players[place]

        return [
            Deal(
                number=r.number, result=Result(r.result), winner=name(r.winner), discarder=name(r.discarder),
                total=r.total, hand=json.loads(r.hand_json) if r.hand_json else None,
                offender=name(r.offender), penalty=r.penalty,
            )
            for r in rows
        ]

    def ledger(self, match_id: int) -> Ledger:
        with self.engine.connect() as conn:
            match = self._match(conn, match_id)
            return build_ledger(match, self._deals(conn, match_id, match))

    def _locked_match(self, conn: Connection, match_id: int) -> Match:
        """The match, with its row locked until the transaction ends (PostgreSQL; SQLite locks the file)."""
        found = conn.execute(sa.select(matches.c.id).where(matches.c.id == match_id).with_for_update()).first()
        if found is None:
            raise MatchNotFound(match_id)
        return self._match(conn, match_id)

    @staticmethod
    def _values(match: Match, deal: Deal) -> dict[str, object]:
        def place(name: str | None) -> int | None:
            return None if name is None else match.player(name)

        return {
            "number": deal.number, "result": deal.result.value, "winner": place(deal.winner),
            "discarder": place(deal.discarder), "offender": place(deal.offender), "total": deal.total,
            "penalty": deal.penalty, "hand_json": json.dumps(deal.hand) if deal.hand is not None else None,
            "recorded_at": _now(),
        }

    def add_deal(self, match_id: int, deal: Deal) -> Ledger:
        """Record the next deal; DealTaken when its number is already recorded (another session was first)."""
        try:
            with self.engine.begin() as conn:
                match = self._locked_match(conn, match_id)
                existing = conn.scalar(sa.select(sa.func.count()).select_from(deals).where(deals.c.match_id == match_id))
                check_next(int(existing or 0), deal.number)
                conn.execute(sa.insert(deals).values(match_id=match_id, **self._values(match, deal)))
        except sa.exc.IntegrityError:
            raise DealTaken(deal.number) from None
        return self.ledger(match_id)

    def replace_deal(self, match_id: int, deal: Deal) -> Ledger:
        """Edit a recorded deal; everything after it is recomputed when the ledger is read."""
        with self.engine.begin() as conn:
            match = self._locked_match(conn, match_id)
            done = conn.execute(
                sa.update(deals).where(deals.c.match_id == match_id, deals.c.number == deal.number)
                .values(**self._values(match, deal))
            )
            if done.rowcount != 1:
                raise LedgerError(f"deal {deal.number} is not recorded yet: add it instead")
        return self.ledger(match_id)

    def undo_last(self, match_id: int) -> Deal | None:
        """Delete the last recorded deal; returns it (None when there was none)."""
        with self.engine.begin() as conn:
            match = self._locked_match(conn, match_id)
            recorded = self._deals(conn, match_id, match)
            if not recorded:
                return None
            last = recorded[-1]
            conn.execute(sa.delete(deals).where(deals.c.match_id == match_id, deals.c.number == last.number))
            return last

    def remove_deal(self, match_id: int, number: int) -> Ledger:
        """Take out a deal recorded by mistake; the later deals move up one number, their hands scored
        again with their new winds (one transaction: all or nothing)."""
        with self.engine.begin() as conn:
            match = self._locked_match(conn, match_id)
            remaining = without_deal(match, self._deals(conn, match_id, match), number)
            conn.execute(sa.delete(deals).where(deals.c.match_id == match_id, deals.c.number >= number))
            moved = [dict(match_id=match_id, **self._values(match, d)) for d in remaining if d.number >= number]
            if moved:
                conn.execute(sa.insert(deals), moved)
        return self.ledger(match_id)

    def delete_match(self, match_id: int) -> None:
        with self.engine.begin() as conn:
            self._locked_match(conn, match_id)
            conn.execute(sa.delete(deals).where(deals.c.match_id == match_id))
            conn.execute(sa.delete(players).where(players.c.match_id == match_id))
            conn.execute(sa.delete(matches).where(matches.c.id == match_id))

    def ledgers(self) -> dict[int, Ledger]:
        """Every match's ledger by id (the tournament view)."""
        with self.engine.connect() as conn:
            ids = conn.execute(sa.select(matches.c.id).order_by(matches.c.id)).scalars().all()
            out = {}
            for match_id in ids:
                match = self._match(conn, match_id)
                out[int(match_id)] = build_ledger(match, self._deals(conn, match_id, match))
            return out

    def import_ledger(self, ledger: Ledger) -> int:
        """A new match holding an imported (already checked) ledger; one transaction."""
        match = ledger.match.validate()
        with self.engine.begin() as conn:
            match_id = conn.execute(
                sa.insert(matches).values(
                    name=match.name, table_label=match.table, round_label=match.round_label,
                    seat_rule=match.seat_rule.value, false_win_penalty=match.false_win_penalty, created_at=_now(),
                ).returning(matches.c.id)
            ).scalar_one()
            conn.execute(sa.insert(players), [{"match_id": match_id, "place": i, "name": n} for i, n in enumerate(match.players)])
            if ledger.rows:
                conn.execute(sa.insert(deals), [dict(match_id=match_id, **self._values(match, r.deal)) for r in ledger.rows])
        return int(match_id)
