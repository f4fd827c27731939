"""A tournament: players registered once, rounds of tables of four drawn so that opponents repeat as
little as possible, and standings (pure: standard library only).

Only finished matches count in the standings: all 16 deals recorded, or closed by the organiser at the
time limit. A match still being played shows its table points as provisional, beside the standings.

The standings rank by table points (标准分, 4-2-1-0 at each table), then by score (比赛分, the points
summed over the matches), then by first places (tables a player finished first at, a shared first
counted). Players equal on all three share the place (1, 2, 2, 4). The seeds (竞赛规则 术语) define the
match and its deals but no ranking rule; table points then score is how MCR competitions rank, and
first places is the last tie-break before a shared place.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .match import Ledger, LedgerError, Standing
from .rules import LIMITS, check_name

TableSeats = tuple[str, str, str, str]  # starting places E S W N


@dataclass(frozen=True)
class DrawSettings:
    restarts: int = 60  # shuffles tried; each improved by swaps until no swap helps; the best kept


DRAW = DrawSettings()


class RegistrationError(LedgerError):
    """The players cannot be registered: `problem` is "empty", "twice", "tables" or "too_many" (the app says it
    in the player's language from `problem` and `names` / `count`)."""

    def __init__(self, problem: str, message: str, *, names: tuple[str, ...] = (), count: int = 0):
        super().__init__(message)
        self.problem, self.names, self.count = problem, names, count


def check_entrants(names: Sequence[str]) -> tuple[str, ...]:
    """The registered players, checked: names within the limits, all different, a multiple of four."""
    cleaned = tuple(check_name(n, "a player's name") for n in names)
    if any(not n for n in cleaned):
        raise RegistrationError("empty", "every player needs a name")
    doubled = tuple(sorted(n for n, c in Counter(cleaned).items() if c > 1))
    if doubled:
        raise RegistrationError("twice", f"each player is registered once: {', '.join(doubled)} appear twice", names=doubled)
    if not cleaned or len(cleaned) % 4:
        raise RegistrationError("tables", f"tables are of four: register a multiple of 4 players ({len(cleaned)} registered)",
                                count=len(cleaned))
    if len(cleaned) > LIMITS.max_players:
        raise RegistrationError("too_many", f"at most {LIMITS.max_players} players in one tournament ({len(cleaned)} registered)",
                                count=len(cleaned))
    return cleaned


def meetings(rounds: Sequence[Sequence[Sequence[str]]]) -> Counter[frozenset[str]]:
    """How often each pair of players sat at one table."""
    met: Counter[frozenset[str]] = Counter()
    for tables in rounds:
        for table in tables:
            met.update(frozenset(pair) for pair in itertools.combinations(table, 2))
    return met


def repeats(tables: Sequence[Sequence[str]], met: Counter[frozenset[str]]) -> int:
    """Pairs at these tables that met before, each counted as often as they met."""
    return sum(met[frozenset(pair)] for table in tables for pair in itertools.combinations(table, 2))


def draw_round(players: Sequence[str], previous: Sequence[Sequence[Sequence[str]]], seed: int, round_no: int,
               settings: DrawSettings = DRAW) -> tuple[TableSeats, ...]:
    """Tables of four for round `round_no` (1, 2, ...) with as few repeated opponents as the search finds:
    seeded shuffles, each improved by swapping two players of different tables while that lowers the
    repeats. The same players, rounds and seed give the same draw. Places at a table are drawn too."""
    entrants = check_entrants(players)
    met = meetings(previous)
    rng = random.Random(f"mcr-draw:{seed}:{round_no}")
    best: list[list[str]] | None = None
    best_cost = -1
    for _ in range(settings.restarts):
        order = list(entrants)
        rng.shuffle(order)
        tables = [order[i:i + 4] for i in range(0, len(order), 4)]
        cost = _improve(tables, met)
        if best is None or cost < best_cost:
            best, best_cost = [list(t) for t in tables], cost
        if best_cost == 0:
            break
    assert best is not None
    seated = []
    for table in best:
        rng.shuffle(table)
        seated.append((table[0], table[1], table[2], table[3]))
    return tuple(seated)


def _improve(tables: list[list[str]], met: Counter[frozenset[str]]) -> int:
    """Swap players between tables while a swap lowers the repeats; returns the repeats left."""
    def at(table: list[str]) -> int:
        return repeats([table], met)

    improved = True
    while improved:
        improved = False
        for a, b in itertools.combinations(range(len(tables)), 2):
            for i in range(4):
                for j in range(4):
                    before = at(tables[a]) + at(tables[b])
                    tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                    if at(tables[a]) + at(tables[b]) < before:
                        improved = True
                    else:
                        tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
    return repeats(tables, met)


def table_link(url: str, uid: str) -> str:
    """The address that opens one table's match in the app: its Match page, by the match's uid."""
    return f"{url.rstrip('/')}/match?match={uid}" if url else f"/match?match={uid}"


@dataclass(frozen=True)
class MatchLine:
    match_id: int
    round_label: str
    table: str
    deals: int
    finished: bool  # counts in the standings; otherwise its table points are provisional
    standings: tuple[Standing, ...]


TIE_BREAKS = ("table_points", "points", "firsts")  # the standings' order, best first on each; then a shared place


@dataclass(frozen=True)
class PlayerLine:
    player: str
    matches: int  # finished matches counted
    table_points: float
    points: int
    playing: int = 0  # matches not finished yet (not counted)
    firsts: int = 0  # finished matches the player ended first at the table (a shared first counts)
    rank: int = 0  # 1 for the best; players equal on TIE_BREAKS share it

    def ranking_key(self) -> tuple[float, int, int]:
        """Bigger is better: table points, then score, then first places."""
        return (self.table_points, self.points, self.firsts)


@dataclass(frozen=True)
class Tournament:
    matches: tuple[MatchLine, ...]  # by round, then table
    players: tuple[PlayerLine, ...]  # by rank (TIE_BREAKS), then name


def _order(label: str) -> tuple[int, int | str]:
    return (0, int(label)) if label.isdigit() else (1, label)


def tournament(ledgers: dict[int, Ledger], entrants: Sequence[str] = ()) -> Tournament:
    """Every match's standings so far, and per player (by name) the table points and points summed over
    the finished matches; registered players without a finished match are listed with none."""
    lines = tuple(sorted(
        (MatchLine(mid, lg.match.round_label, lg.match.table, len(lg.rows), lg.finished, lg.standings())
         for mid, lg in ledgers.items()),
        key=lambda line: (_order(line.round_label), _order(line.table), line.match_id),
    ))
    sums: dict[str, list[float]] = {name: [0, 0.0, 0, 0, 0] for name in entrants}
    for line in lines:
        for s in line.standings:
            entry = sums.setdefault(s.player, [0, 0.0, 0, 0, 0])
            if line.finished:
                entry[0] += 1
                entry[1] += s.table_points
                entry[2] += s.points
                entry[4] += s.rank == 1
            else:
                entry[3] += 1
    return Tournament(lines, ranked(PlayerLine(name, int(n), tp, int(pts), int(playing), int(firsts))
                                    for name, (n, tp, pts, playing, firsts) in sums.items()))


def ranked(players: Iterable[PlayerLine]) -> tuple[PlayerLine, ...]:
    """The players ranked by TIE_BREAKS (each line's `rank` set), best first; equal players share the better
    place (1, 2, 2, 4) and are listed by name."""
    unranked = list(players)
    keys = [p.ranking_key() for p in unranked]
    lines = [replace(p, rank=1 + sum(other > p.ranking_key() for other in keys)) for p in unranked]
    return tuple(sorted(lines, key=lambda p: (p.rank, p.player)))

