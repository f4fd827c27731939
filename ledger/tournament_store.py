"""A tournament in the database: its players registered once, its rounds drawn (one match a table), the number of
rounds it plays and its end (`LedgerStore` takes these methods from `TournamentTables`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from .match import Ledger, LedgerError, Match, build_ledger, clock
from .rules import LIMITS, check_name, check_whole
from .schema import entrants, matches, now_iso, tournaments


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    uid: str
    name: str
    seed: int
    players: tuple[str, ...]  # registered, in registration order
    rounds: int  # rounds drawn so far
    planned_rounds: int | None = None  # the number of rounds the organiser set (None: not set yet)
    ended_at: str | None = None  # ISO time, UTC: the organiser ended the tournament; its standings are final

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    @property
    def rounds_left(self) -> int | None:
        return None if self.planned_rounds is None else max(0, self.planned_rounds - self.rounds)


class RoundUnfinished(LedgerError):
    """The next round waits: matches of round `round_no` are still being played at `tables`."""

    def __init__(self, round_no: int, tables: tuple[int, ...]):
        super().__init__(f"round {round_no} is still being played at table{'s' if len(tables) > 1 else ''} "
                         f"{', '.join(map(str, tables))}: finish or close those matches first")
        self.round_no, self.tables = round_no, tables


class TournamentEnded(LedgerError):
    """The tournament was ended: its standings are final, no round is drawn and no match reopened."""

    def __init__(self, name: str, at: str):
        super().__init__(f"the tournament {name!r} has ended{' at ' + clock(at) if clock(at) else ''}: "
                         "its standings are final")
        self.name, self.at = name, at


class AllRoundsDrawn(LedgerError):
    """Every round the organiser set is drawn: the next step is ending the tournament (or setting more rounds)."""

    def __init__(self, rounds: int):
        super().__init__(f"all {rounds} rounds are drawn: end the tournament, or set more rounds")
        self.rounds = rounds


class TournamentNameTaken(LedgerError):
    def __init__(self, name: str, tournament_id: int):
        super().__init__(f"a tournament named {name!r} is already registered (#{tournament_id}): choose it, or give another name")
        self.name, self.tournament_id = name, tournament_id


class TournamentNotFound(LedgerError):
    def __init__(self, tournament_id: object):
        super().__init__(f"no tournament {tournament_id!r} in this database")


class _MatchStore(Protocol):
    """What the tournament methods use of the store they are part of (`ledger.store.LedgerStore`)."""

    engine: Engine

    def _match(self, conn: Connection, match_id: int, row: Any = None) -> Match: ...

    def import_match(self, ledger: Ledger, *, tournament: tuple[int, int, int] | None = None,
                     conn: Connection | None = None) -> Any: ...

    def tournament(self, tournament_id: int) -> TournamentInfo: ...

    def _tournament(self, conn: Connection, tournament_id: int, *, lock: bool = False) -> TournamentInfo: ...


class TournamentTables:
    """The store's tournament methods (a mixin of `LedgerStore`)."""

    def create_tournament(self: _MatchStore, name: str, entrant_names: list[str] | tuple[str, ...], seed: int,
                          rounds: int | None = None) -> int:
        """Register the players once (a multiple of 4), with the seed of the seating draws and, when known,
        the number of rounds."""
        from .tournament import check_entrants

        title = check_name(name, "the tournament's name", LIMITS.match_name_chars)
        registered = check_entrants(entrant_names)
        check_whole(seed, "the seed", 0, 2**31 - 1)
        if rounds is not None:
            check_whole(rounds, "the number of rounds", 1, LIMITS.max_rounds)
        with self.engine.begin() as conn:
            same = conn.scalar(sa.select(tournaments.c.id).where(tournaments.c.name == title)) if title else None
            if same is not None:  # a second click of Register, or the same event twice
                raise TournamentNameTaken(title, int(same))
            tournament_id = conn.execute(sa.insert(tournaments).values(
                uid=str(uuid.uuid4()), name=title, seed=seed, created_at=now_iso(), planned_rounds=rounds,
            ).returning(tournaments.c.id)).scalar_one()
            conn.execute(sa.insert(entrants), [{"tournament_id": tournament_id, "number": i + 1, "name": n}
                                               for i, n in enumerate(registered)])
        return int(tournament_id)

    def tournaments(self: _MatchStore) -> list[TournamentInfo]:
        with self.engine.connect() as conn:
            ids = conn.execute(sa.select(tournaments.c.id).order_by(tournaments.c.id)).scalars().all()
            return [self._tournament(conn, int(i)) for i in ids]

    def tournament(self: _MatchStore, tournament_id: int) -> TournamentInfo:
        with self.engine.connect() as conn:
            return self._tournament(conn, tournament_id)

    def _tournament(self: _MatchStore, conn: Connection, tournament_id: int, *, lock: bool = False) -> TournamentInfo:
        query = sa.select(tournaments).where(tournaments.c.id == tournament_id)
        row = conn.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise TournamentNotFound(tournament_id)
        names = conn.execute(sa.select(entrants.c.name).where(entrants.c.tournament_id == tournament_id)
                             .order_by(entrants.c.number)).scalars().all()
        rounds = conn.scalar(sa.select(sa.func.max(matches.c.round_no)).where(matches.c.tournament_id == tournament_id))
        return TournamentInfo(int(row.id), row.uid, row.name, int(row.seed), tuple(names), int(rounds or 0),
                              row.planned_rounds, row.ended_at)

    def set_rounds(self: _MatchStore, tournament_id: int, rounds: int) -> TournamentInfo:
        """The number of rounds the tournament plays (at least the rounds drawn so far)."""
        check_whole(rounds, "the number of rounds", 1, LIMITS.max_rounds)
        with self.engine.begin() as conn:
            info = self._tournament(conn, tournament_id, lock=True)
            if info.ended_at is not None:
                raise TournamentEnded(info.name, info.ended_at)
            if rounds < info.rounds:
                raise LedgerError(f"{info.rounds} rounds are drawn already: the tournament plays at least {info.rounds}")
            conn.execute(sa.update(tournaments).where(tournaments.c.id == tournament_id).values(planned_rounds=rounds))
        return self.tournament(tournament_id)

    def end_tournament(self: _MatchStore, tournament_id: int) -> TournamentInfo:
        """End the tournament: its standings are final. Refused while a table is still playing; a second
        click finds it ended and changes nothing."""
        with self.engine.begin() as conn:
            info = self._tournament(conn, tournament_id, lock=True)
            if info.ended_at is not None:
                return info
            if info.rounds == 0:
                raise LedgerError("no round has been drawn: draw and play one before ending the tournament")
            playing = conn.execute(sa.select(matches.c.round_no, matches.c.table_no)
                                   .where(matches.c.tournament_id == tournament_id, matches.c.closed_reason.is_(None))
                                   .order_by(matches.c.round_no, matches.c.table_no)).all()
            if playing:
                round_no = playing[0].round_no
                raise RoundUnfinished(round_no, tuple(r.table_no for r in playing if r.round_no == round_no))
            conn.execute(sa.update(tournaments).where(tournaments.c.id == tournament_id).values(ended_at=now_iso()))
        return self.tournament(tournament_id)

    def start_round(self: _MatchStore, tournament_id: int) -> int:
        """Draw the next round's seating (repeated opponents as few as the draw finds; the same seed gives
        the same draw) and start one match per table, in one transaction. Refused while a match of the
        round before is not finished (the organiser closes one ended by the time limit)."""
        from .tournament import draw_round

        try:
            with self.engine.begin() as conn:
                info = self._tournament(conn, tournament_id, lock=True)
                if info.ended_at is not None:
                    raise TournamentEnded(info.name, info.ended_at)
                if info.planned_rounds is not None and info.rounds >= info.planned_rounds:
                    raise AllRoundsDrawn(info.planned_rounds)
                if info.rounds >= LIMITS.max_rounds:
                    raise LedgerError(f"at most {LIMITS.max_rounds} rounds")
                rows = conn.execute(sa.select(matches).where(matches.c.tournament_id == tournament_id)
                                    .order_by(matches.c.round_no, matches.c.table_no)).all()
                open_tables = tuple(r.table_no for r in rows if r.round_no == info.rounds and r.closed_reason is None)
                if open_tables:
                    raise RoundUnfinished(info.rounds, open_tables)
                previous: dict[int, list[tuple[str, ...]]] = {}
                for r in rows:
                    previous.setdefault(r.round_no, []).append(self._match(conn, r.id, r).players)
                round_no = info.rounds + 1
                seating = draw_round(info.players, [previous[k] for k in sorted(previous)], info.seed, round_no)
                for table_no, seats in enumerate(seating, start=1):
                    match = Match(seats, name=f"{info.name} · round {round_no} · table {table_no}".strip(" ·"),
                                  table=str(table_no), round_label=str(round_no)).validate()
                    self.import_match(build_ledger(match, []), tournament=(tournament_id, round_no, table_no), conn=conn)
        except sa.exc.IntegrityError:  # the same round started at the same moment elsewhere
            raise LedgerError(f"round {self.tournament(tournament_id).rounds} was just started by another phone") from None
        return round_no

