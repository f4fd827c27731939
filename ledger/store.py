"""Matches and tournaments kept in a database: SQLite by default, any SQLAlchemy URL (PostgreSQL) on request.

One small interface, `LedgerStore`, over SQLAlchemy Core. The default is one SQLite file,
`ledger.sqlite3` in the app's data folder (`$MCR_DATA`, else `~/.mcr-scorer`), in WAL mode so
that several app sessions can read while one writes; `MCR_DATABASE_URL` (e.g.
`postgresql://user@host/mcr`, with the `postgres` extra installed) puts every table of a tournament
in one server. The schema is versioned with Alembic (`ledger/migrations`), brought up to date when
a store opens.

Only what was decided is stored (the match, its players, each deal with the winning hand's JSON,
penalties); payments, totals and standings are computed from it (`ledger.match.build_ledger`).

Every write says what it saw: it names the match revision its page showed (`seen`), and runs in one
transaction that locks the match, refuses a stale revision (`StaleWrite`, naming what changed since)
or a closed match (`MatchLocked`), and logs itself as the next revision in `changes`, whose key
(match, revision) lets only one of two writers that saw the same revision through, whatever the
database's locking does. A deal number taken twice is refused by a unique constraint too.

The tables are in `ledger.schema`; a tournament's methods (registration, rounds, its end) in
`ledger.tournament_store`, which `LedgerStore` takes them from.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from datafolder import data_root

from .exchange import deal_to_json, penalty_to_json
from .match import (
    Change,
    ChangeKind,
    Closure,
    Deal,
    DealTaken,
    EndReason,
    Ledger,
    LedgerError,
    Match,
    MatchLocked,
    Penalty,
    Result,
    StaleWrite,
    build_ledger,
    check_next,
    without_deal,
)
from .rules import DEALS_PER_MATCH, LIMITS, SeatRule, check_whole
from .schema import changes, deals, matches, now_iso, penalties, players, tournaments
from .tournament_store import (
    AllRoundsDrawn,
    RoundUnfinished,
    TournamentEnded,
    TournamentInfo,
    TournamentNameTaken,
    TournamentNotFound,
    TournamentTables,
)

DATABASE_ENV = "MCR_DATABASE_URL"
DATABASE_FILE = "ledger.sqlite3"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SCHEMA_REVISION = "0003_tournament_end"  # Alembic's head: the schema this program writes
MIGRATION_LOCK = 20200520  # PostgreSQL advisory lock: one migrator at a time


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




class MatchNotFound(LedgerError):
    def __init__(self, match_id: object):
        super().__init__(f"no match {match_id!r} in this database (`python -m ledger list` shows them)")


@dataclass(frozen=True)
class MatchSummary:
    id: int
    match: Match
    deals: int
    created_at: str
    uid: str = ""
    revision: int = 0
    closed: Closure | None = None
    tournament_id: int | None = None
    round_no: int | None = None
    table_no: int | None = None


@dataclass(frozen=True)
class Imported:
    match_id: int
    new: bool  # False: a match with this uid was already here (the import was recognised as a repeat)



def _closure(row: Any) -> Closure | None:
    return None if row.closed_reason is None else Closure(EndReason(row.closed_reason), row.closed_at or "")



class LedgerStore(TournamentTables):
    """The matches and tournaments of one database. Open with a URL (default: `default_url()`); `close()` when done."""

    def __init__(self, url: str | None = None):
        self.url = url or default_url()
        try:
            self.engine: Engine = sa.create_engine(_driver_url(self.url))
        except (sa.exc.ArgumentError, ImportError, sa.exc.NoSuchModuleError) as exc:
            hint = " (install the postgres extra: pip install '.[postgres]')" if "psycopg" in str(exc) else ""
            raise LedgerError(f"cannot use database {self.url!r}: {exc}{hint}") from None
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        if self.is_sqlite:
            self._setup_sqlite()
        try:
            self.migrate()
        except sa.exc.OperationalError as exc:
            self.engine.dispose()
            raise LedgerError(f"cannot open database {self.url!r}: {exc.orig}") from None
        except LedgerError:
            self.engine.dispose()
            raise

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

    def __enter__(self) -> LedgerStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- schema -------------------------------------------------------------------

    def migrate(self) -> str:
        """Bring the schema to Alembic's head (one transaction, one migrator at a time); returns the revision."""
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        scripts = ScriptDirectory(str(MIGRATIONS))
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            current = MigrationContext.configure(conn).get_current_revision()
            known = {s.revision for s in scripts.walk_revisions()}
            if current is not None and current not in known:
                raise LedgerError(
                    f"the database schema is revision {current}, newer than this program ({SCHEMA_REVISION}): update the program"
                )
            if current != SCHEMA_REVISION:
                config = Config()
                config.set_main_option("script_location", str(MIGRATIONS))
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
        return SCHEMA_REVISION

    def schema_version(self) -> str:
        """The schema's Alembic revision."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision() or ""

    # --- matches ------------------------------------------------------------------

    def create_match(self, match: Match) -> int:
        """A new match without deals; returns its id."""
        return self.import_match(build_ledger(match.validate(), [])).match_id

    def match(self, match_id: int) -> Match:
        with self.engine.connect() as conn:
            return self._match(conn, match_id)

    def _row(self, conn: Connection, match_id: int, *, lock: bool = False) -> Any:
        query = sa.select(matches).where(matches.c.id == match_id)
        row = conn.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise MatchNotFound(match_id)
        return row

    def _match(self, conn: Connection, match_id: int, row: Any = None) -> Match:
        row = row if row is not None else self._row(conn, match_id)
        names = conn.execute(
            sa.select(players.c.name).where(players.c.match_id == match_id).order_by(players.c.place)
        ).scalars().all()
        return Match(
            players=tuple(names),
            seat_rule=SeatRule(row.seat_rule),
            false_win_penalty=row.false_win_penalty,
            name=row.name, table=row.table_label, round_label=row.round_label,
        )

    def list_matches(self, tournament_id: int | None = None) -> list[MatchSummary]:
        with self.engine.connect() as conn:
            counts: dict[int, int] = dict(conn.execute(
                sa.select(deals.c.match_id, sa.func.count()).group_by(deals.c.match_id)
            ).all())
            query = sa.select(matches).order_by(matches.c.id)
            if tournament_id is not None:
                query = query.where(matches.c.tournament_id == tournament_id)
            return [MatchSummary(r.id, self._match(conn, r.id, r), counts.get(r.id, 0), r.created_at, r.uid or "",
                                 r.revision, _closure(r), r.tournament_id, r.round_no, r.table_no)
                    for r in conn.execute(query).all()]

    def match_by_uid(self, uid: str) -> int:
        with self.engine.connect() as conn:
            found = conn.scalar(sa.select(matches.c.id).where(matches.c.uid == uid))
        if found is None:
            raise LedgerError(f"no match {uid!r} in this database: the link may be from another event's database")
        return int(found)

    # --- reading ------------------------------------------------------------------

    def deals(self, match_id: int) -> list[Deal]:
        with self.engine.connect() as conn:
            return self._deals(conn, match_id, self._match(conn, match_id))

    def _deals(self, conn: Connection, match_id: int, match: Match) -> list[Deal]:
        rows = conn.execute(sa.select(deals).where(deals.c.match_id == match_id).order_by(deals.c.number)).all()

        def name(place: int | None) -> str | None:
            return None if place is None else match.players[place]

        return [
            Deal(number=r.number, result=Result(r.result), winner=name(r.winner), discarder=name(r.discarder),
                 total=r.total, hand=json.loads(r.hand_json) if r.hand_json else None)
            for r in rows
        ]

    def _penalties(self, conn: Connection, match_id: int, match: Match) -> list[Penalty]:
        rows = conn.execute(sa.select(penalties).where(penalties.c.match_id == match_id).order_by(penalties.c.id)).all()
        return [Penalty(r.deal, match.players[r.player], r.points, r.reason, bool(r.to_others), bool(r.false_win), r.id)
                for r in rows]

    def ledger(self, match_id: int) -> Ledger:
        with self.engine.connect() as conn:
            return self._ledger(conn, match_id)

    def _ledger(self, conn: Connection, match_id: int, row: Any = None) -> Ledger:
        row = row if row is not None else self._row(conn, match_id)
        match = self._match(conn, match_id, row)
        return build_ledger(match, self._deals(conn, match_id, match), self._penalties(conn, match_id, match),
                            revision=row.revision, closed=_closure(row), uid=row.uid or "", stored=True)

    def ledgers(self, tournament_id: int | None = None) -> dict[int, Ledger]:
        """Every match's ledger by id (of one tournament when given)."""
        with self.engine.connect() as conn:
            query = sa.select(matches).order_by(matches.c.id)
            if tournament_id is not None:
                query = query.where(matches.c.tournament_id == tournament_id)
            return {int(r.id): self._ledger(conn, r.id, r) for r in conn.execute(query).all()}

    def changes_since(self, match_id: int, revision: int) -> tuple[Change, ...]:
        """The writes to the match after `revision`, oldest first."""
        with self.engine.connect() as conn:
            return self._changes(conn, match_id, revision)

    def _changes(self, conn: Connection, match_id: int, revision: int) -> tuple[Change, ...]:
        match = self._match(conn, match_id)
        rows = conn.execute(sa.select(changes).where(changes.c.match_id == match_id, changes.c.revision > revision)
                            .order_by(changes.c.revision)).all()
        return tuple(_change(match, r) for r in rows)

    # --- writing ------------------------------------------------------------------

    @contextmanager
    def _write(self, match_id: int, seen: int, *, closed_ok: bool = False) -> Iterator[tuple[Connection, Any, Match]]:
        """One write's transaction: the match locked, `seen` checked against its revision, closed matches refused."""
        check_whole(seen, "the revision the page showed", 0, 2**31 - 1)
        try:
            with self.engine.begin() as conn:
                row = self._row(conn, match_id, lock=True)
                if row.revision != seen:
                    raise StaleWrite(seen, self._changes(conn, match_id, seen))
                closure = _closure(row)
                if closure is not None and not closed_ok:
                    raise MatchLocked(closure)
                yield conn, row, self._match(conn, match_id, row)
        except sa.exc.IntegrityError:
            # another writer got through between the check and the insert (the unique keys are the last word)
            raise StaleWrite(seen, self.changes_since(match_id, seen)) from None

    def _log(self, conn: Connection, match_id: int, seen: int, kind: ChangeKind, number: int | None = None,
             **detail: Any) -> None:
        """Record the write as revision seen + 1 (the key refuses a second writer that saw `seen`)."""
        conn.execute(sa.insert(changes).values(match_id=match_id, revision=seen + 1, kind=kind.value, number=number,
                                               at=now_iso(), detail=json.dumps(detail, ensure_ascii=False)))
        done = conn.execute(sa.update(matches).where(matches.c.id == match_id, matches.c.revision == seen)
                            .values(revision=seen + 1))
        if done.rowcount != 1:
            raise sa.exc.IntegrityError("revision moved", None, ValueError("revision moved"))

    @staticmethod
    def _values(match: Match, deal: Deal) -> dict[str, object]:
        def place(name: str | None) -> int | None:
            return None if name is None else match.player(name)

        return {
            "number": deal.number, "result": deal.result.value, "winner": place(deal.winner),
            "discarder": place(deal.discarder), "total": deal.total,
            "hand_json": json.dumps(deal.hand) if deal.hand is not None else None, "recorded_at": now_iso(),
        }

    def add_deal(self, match_id: int, deal: Deal, *, seen: int) -> Ledger:
        """Record the next deal, when the match is still at revision `seen`. The 16th deal closes the match."""
        with self._write(match_id, seen) as (conn, _row, match):
            existing = int(conn.scalar(sa.select(sa.func.count()).select_from(deals).where(deals.c.match_id == match_id)) or 0)
            check_next(existing, deal.number)
            conn.execute(sa.insert(deals).values(match_id=match_id, **self._values(match, deal)))
            self._log(conn, match_id, seen, ChangeKind.RECORDED, deal.number, deal=deal_to_json(deal))
            if deal.number == DEALS_PER_MATCH:
                conn.execute(sa.update(matches).where(matches.c.id == match_id)
                             .values(closed_reason=EndReason.ALL_DEALS.value, closed_at=now_iso()))
        return self.ledger(match_id)

    def replace_deal(self, match_id: int, deal: Deal, *, seen: int) -> Ledger:
        """Edit a recorded deal; everything after it is recomputed when the ledger is read."""
        with self._write(match_id, seen) as (conn, _row, match):
            done = conn.execute(
                sa.update(deals).where(deals.c.match_id == match_id, deals.c.number == deal.number)
                .values(**self._values(match, deal))
            )
            if done.rowcount != 1:
                raise LedgerError(f"deal {deal.number} is not recorded yet: add it instead")
            self._log(conn, match_id, seen, ChangeKind.REPLACED, deal.number, deal=deal_to_json(deal))
        return self.ledger(match_id)

    def undo_last(self, match_id: int, *, seen: int, number: int) -> Deal:
        """Delete the last recorded deal, which the page named as deal `number`; returns it. Its penalties, and
        those given in the deal after it, stay with it as the deal being played."""
        with self._write(match_id, seen) as (conn, _row, match):
            recorded = self._deals(conn, match_id, match)
            if not recorded:
                raise LedgerError("no deal is recorded: nothing to undo")
            last = recorded[-1]
            if last.number != number:
                raise LedgerError(f"deal {number} is not the last deal (deal {last.number} is): nothing was undone")
            conn.execute(sa.delete(deals).where(deals.c.match_id == match_id, deals.c.number == last.number))
            # penalties given while the next deal was being played belong to the deal being played again
            conn.execute(sa.update(penalties).where(penalties.c.match_id == match_id, penalties.c.deal > last.number)
                         .values(deal=last.number))
            self._log(conn, match_id, seen, ChangeKind.UNDONE, last.number, deal=deal_to_json(last))
            return last

    def remove_deal(self, match_id: int, number: int, *, seen: int) -> Ledger:
        """Take out a deal recorded by mistake; the later deals move up one number, their hands scored
        again with their new winds (one transaction: all or nothing). Its penalties go with it."""
        with self._write(match_id, seen) as (conn, _row, match):
            recorded = self._deals(conn, match_id, match)
            taken = next((d for d in recorded if d.number == number), None)
            remaining = without_deal(match, recorded, number)
            conn.execute(sa.delete(deals).where(deals.c.match_id == match_id, deals.c.number >= number))
            moved = [dict(match_id=match_id, **self._values(match, d)) for d in remaining if d.number >= number]
            if moved:
                conn.execute(sa.insert(deals), moved)
            conn.execute(sa.delete(penalties).where(penalties.c.match_id == match_id, penalties.c.deal == number))
            conn.execute(sa.update(penalties).where(penalties.c.match_id == match_id, penalties.c.deal > number)
                         .values(deal=penalties.c.deal - 1))
            self._log(conn, match_id, seen, ChangeKind.REMOVED, number, deal=deal_to_json(taken) if taken else None)
        return self.ledger(match_id)

    def add_penalty(self, match_id: int, entry: Penalty, *, seen: int) -> Ledger:
        """A penalty entry in a recorded deal or the one being played; returns the ledger."""
        with self._write(match_id, seen) as (conn, _row, match):
            existing = int(conn.scalar(sa.select(sa.func.count()).select_from(deals).where(deals.c.match_id == match_id)) or 0)
            if entry.deal > existing + 1:
                raise LedgerError(f"a penalty in deal {entry.deal}, but deal {existing + 1} is the one being played")
            conn.execute(sa.insert(penalties).values(
                match_id=match_id, deal=entry.deal, player=match.player(entry.player), points=entry.points,
                reason=entry.reason, to_others=entry.to_others, false_win=entry.false_win, recorded_at=now_iso()))
            self._log(conn, match_id, seen, ChangeKind.PENALTY, entry.deal, penalty=penalty_to_json(entry))
        return self.ledger(match_id)

    def remove_penalty(self, match_id: int, penalty_id: int, *, seen: int) -> Ledger:
        with self._write(match_id, seen) as (conn, _row, match):
            found = next((p for p in self._penalties(conn, match_id, match) if p.id == penalty_id), None)
            if found is None:
                raise LedgerError(f"no penalty {penalty_id} in this match")
            conn.execute(sa.delete(penalties).where(penalties.c.id == penalty_id))
            self._log(conn, match_id, seen, ChangeKind.PENALTY_REMOVED, found.deal, penalty=penalty_to_json(found))
        return self.ledger(match_id)

    def close_match(self, match_id: int, *, seen: int) -> Ledger:
        """End the match: complete when all 16 deals are recorded (a match reopened to correct a deal), else at
        the time limit (16 deals close it by themselves). It counts in the standings and takes no writes until
        reopened."""
        with self._write(match_id, seen) as (conn, _row, _match):
            recorded = int(conn.scalar(sa.select(sa.func.count()).select_from(deals).where(deals.c.match_id == match_id)) or 0)
            reason = EndReason.ALL_DEALS if recorded == DEALS_PER_MATCH else EndReason.TIME_LIMIT
            conn.execute(sa.update(matches).where(matches.c.id == match_id)
                         .values(closed_reason=reason.value, closed_at=now_iso()))
            self._log(conn, match_id, seen, ChangeKind.CLOSED, reason=reason.value)
        return self.ledger(match_id)

    def reopen_match(self, match_id: int, *, seen: int) -> Ledger:
        """Open a closed match again on purpose (to correct it); it leaves the standings until closed again."""
        with self._write(match_id, seen, closed_ok=True) as (conn, row, _match):
            if row.closed_reason is None:
                raise LedgerError("the match is not closed")
            if row.tournament_id is not None:
                event = conn.execute(sa.select(tournaments).where(tournaments.c.id == row.tournament_id)).first()
                if event is not None and event.ended_at is not None:
                    raise TournamentEnded(event.name, event.ended_at)
            conn.execute(sa.update(matches).where(matches.c.id == match_id).values(closed_reason=None, closed_at=None))
            self._log(conn, match_id, seen, ChangeKind.REOPENED)
        return self.ledger(match_id)

    def delete_match(self, match_id: int) -> None:
        with self.engine.begin() as conn:
            self._row(conn, match_id, lock=True)
            for table in (deals, penalties, changes, players):
                conn.execute(sa.delete(table).where(table.c.match_id == match_id))
            conn.execute(sa.delete(matches).where(matches.c.id == match_id))

    def import_ledger(self, ledger: Ledger) -> int:
        """A new match holding an imported (already checked) ledger; the existing one when its uid is here."""
        return self.import_match(ledger).match_id

    def import_match(self, ledger: Ledger, *, tournament: tuple[int, int, int] | None = None,
                     conn: Connection | None = None) -> Imported:
        """Store a checked ledger as a new match (one transaction). A ledger whose uid is already here is
        recognised: nothing is written and the match it names is returned (`new` False)."""
        match = ledger.match.validate()
        uid = ledger.uid or str(uuid.uuid4())
        if conn is None:
            try:
                with self.engine.begin() as own:
                    return self.import_match(ledger, tournament=tournament, conn=own)
            except sa.exc.IntegrityError:  # the same file imported at the same moment elsewhere
                return Imported(self.match_by_uid(uid), False)
        found = conn.scalar(sa.select(matches.c.id).where(matches.c.uid == uid))
        if found is not None:
            return Imported(int(found), False)
        tournament_id, round_no, table_no = tournament if tournament else (None, None, None)
        closed = ledger.closed
        match_id = conn.execute(
            sa.insert(matches).values(
                name=match.name, table_label=match.table, round_label=match.round_label,
                seat_rule=match.seat_rule.value, false_win_penalty=match.false_win_penalty, created_at=now_iso(),
                uid=uid, revision=-1, closed_reason=closed.reason.value if closed else None,
                closed_at=(closed.at or now_iso()) if closed else None,
                tournament_id=tournament_id, round_no=round_no, table_no=table_no,
            ).returning(matches.c.id)
        ).scalar_one()
        conn.execute(sa.insert(players), [{"match_id": match_id, "place": i, "name": n} for i, n in enumerate(match.players)])
        if ledger.rows:
            conn.execute(sa.insert(deals), [dict(match_id=match_id, **self._values(match, r.deal)) for r in ledger.rows])
        for entry in ledger.penalties:
            conn.execute(sa.insert(penalties).values(
                match_id=match_id, deal=entry.deal, player=match.player(entry.player), points=entry.points,
                reason=entry.reason, to_others=entry.to_others, false_win=entry.false_win, recorded_at=now_iso()))
        self._log(conn, match_id, -1, ChangeKind.CREATED)  # revision 0
        return Imported(int(match_id), True)

def _change(match: Match, row: Any) -> Change:
    from .exchange import deal_from_json, penalty_from_json

    detail = json.loads(row.detail or "{}")
    deal = penalty = reason = None
    try:
        if detail.get("deal"):
            deal = deal_from_json(match, detail["deal"], rescore=False)
        if detail.get("penalty"):
            penalty = penalty_from_json(match, detail["penalty"])
        if detail.get("reason"):
            reason = EndReason(detail["reason"])
    except (LedgerError, ValueError):
        pass  # a change is described without what it no longer can name
    return Change(row.revision, ChangeKind(row.kind), row.at, row.number, deal, penalty, reason)


__all__ = [
    "LIMITS",
    "SCHEMA_REVISION",
    "AllRoundsDrawn",
    "DealTaken",
    "Imported",
    "LedgerStore",
    "MatchLocked",
    "MatchNotFound",
    "MatchSummary",
    "RoundUnfinished",
    "StaleWrite",
    "TournamentEnded",
    "TournamentInfo",
    "TournamentNameTaken",
    "TournamentNotFound",
    "default_url",
]
