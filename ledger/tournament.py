"""Many tables, one standings table: matches by round and table, players' summed table points (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Ledger, Standing


@dataclass(frozen=True)
class MatchLine:
    match_id: int
    round_label: str
    table: str
    deals: int
    finished: bool
    standings: tuple[Standing, ...]


@dataclass(frozen=True)
class PlayerLine:
    player: str
    matches: int
    table_points: float
    points: int


@dataclass(frozen=True)
class Tournament:
    matches: tuple[MatchLine, ...]  # by round, then table
    players: tuple[PlayerLine, ...]  # most table points first, then most raw points


def _order(label: str) -> tuple[int, int | str]:
    return (0, int(label)) if label.isdigit() else (1, label)


def tournament(ledgers: dict[int, Ledger]) -> Tournament:
    """Every match's standings so far, and per player (by name) the table and raw points summed over matches."""
    lines = tuple(sorted(
        (MatchLine(mid, lg.match.round_label, lg.match.table, len(lg.rows), lg.finished, lg.standings())
         for mid, lg in ledgers.items()),
        key=lambda line: (_order(line.round_label), _order(line.table), line.match_id),
    ))
    sums: dict[str, list[float]] = {}
    for line in lines:
        for s in line.standings:
            entry = sums.setdefault(s.player, [0, 0.0, 0])
            entry[0] += 1
            entry[1] += s.table_points
            entry[2] += s.points
    players = tuple(sorted(
        (PlayerLine(name, int(n), tp, int(pts)) for name, (n, tp, pts) in sums.items()),
        key=lambda p: (-p.table_points, -p.points, p.player),
    ))
    return Tournament(lines, players)
