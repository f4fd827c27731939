"""A match at one table: four players, 16 deals, the payments, running totals and standings.

Pure logic (standard library + `scoring`). Nothing derived is stored: the ledger is computed
from the match and its deals every time, so editing or undoing a deal changes everything
after it by construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from scoring.hand import Hand, HandError
from scoring.payments import payments
from scoring.tiles import Tile

from .rules import (
    DEALS_PER_MATCH,
    FALSE_WIN_PENALTY,
    WINDS,
    LedgerError,
    SeatRule,
    check_deal_number,
    prevalent_wind,
    ranks,
    seat_winds,
    table_points,
)

MINIMUM_FAN = 8


class Result(str, Enum):
    WIN = "win"
    DRAW = "draw"  # 荒牌
    FALSE_WIN = "false_win"  # 诈和


@dataclass(frozen=True)
class Match:
    """Four players by starting place: players[0] draws East for the first deal, then S, W, N."""

    players: tuple[str, str, str, str]
    seat_rule: SeatRule = SeatRule.OFFICIAL
    false_win_penalty: int = FALSE_WIN_PENALTY  # paid to each of the other three
    name: str = ""
    table: str = ""
    round_label: str = ""  # the tournament round this match belongs to

    def validate(self) -> "Match":
        names = tuple(str(p).strip() for p in self.players)
        if len(names) != 4:
            raise LedgerError(f"a match has 4 players, not {len(names)}")
        if any(not n for n in names):
            raise LedgerError("every player needs a name")
        if len(set(names)) != 4:
            raise LedgerError(f"the four players need different names, got {', '.join(names)}")
        try:
            rule = SeatRule(self.seat_rule)
        except ValueError:
            raise LedgerError(f"seat rule must be one of {', '.join(r.value for r in SeatRule)}, not {self.seat_rule!r}") from None
        if not isinstance(self.false_win_penalty, int) or self.false_win_penalty < 0:
            raise LedgerError(f"the false-win penalty must be a whole number >= 0, not {self.false_win_penalty!r}")
        return replace(self, players=names, seat_rule=rule)

    def player(self, name: str) -> int:
        """Index (starting place) of the player called `name`."""
        try:
            return self.players.index(name)
        except ValueError:
            raise LedgerError(f"no player {name!r} in this match: {', '.join(self.players)}") from None

    def seat_winds(self, number: int) -> tuple[str, str, str, str]:
        return seat_winds(number, self.seat_rule)

    def dealer(self, number: int) -> str:
        return self.players[self.seat_winds(number).index("E")]

    def seat_of(self, name: str, number: int) -> str:
        return self.seat_winds(number)[self.player(name)]

    def player_at(self, seat: str, number: int) -> str:
        return self.players[self.seat_winds(number).index(seat)]


@dataclass(frozen=True)
class Deal:
    """What happened in one deal. A win holds the fan total (from the scorer when the hand is given)."""

    number: int
    result: Result
    winner: str | None = None
    discarder: str | None = None  # None: self-drawn
    total: int | None = None  # fan total, flowers included
    hand: dict[str, Any] | None = field(default=None, compare=False)  # hand.schema.json
    offender: str | None = None
    penalty: int | None = None

    @property
    def self_drawn(self) -> bool:
        return self.result is Result.WIN and self.discarder is None


def draw(number: int) -> Deal:
    return Deal(check_deal_number(number), Result.DRAW)


def false_win(match: Match, number: int, offender: str, penalty: int | None = None) -> Deal:
    match.player(offender)
    amount = match.false_win_penalty if penalty is None else penalty
    if not isinstance(amount, int) or amount < 0:
        raise LedgerError(f"a penalty is a whole number >= 0, not {amount!r}")
    return Deal(check_deal_number(number), Result.FALSE_WIN, offender=offender, penalty=amount)


def win(
    match: Match,
    number: int,
    winner: str,
    *,
    discarder: str | None = None,
    hand: Hand | dict[str, Any] | None = None,
    total: int | None = None,
) -> Deal:
    """A win; with the hand, its winds and self-drawn flag are set from the ledger and the scorer gives the total.

    Without a hand the fan total must be given (a hand scored on paper).
    """
    check_deal_number(number)
    match.player(winner)
    if discarder is not None:
        match.player(discarder)
        if discarder == winner:
            raise LedgerError(f"{winner} cannot win on their own discard")
    if hand is None:
        if not isinstance(total, int) or isinstance(total, bool):
            raise LedgerError("a win needs the hand or its fan total")
        if total < MINIMUM_FAN:
            raise LedgerError(f"{total} fan is under the {MINIMUM_FAN}-fan minimum: record it as a false win")
        return Deal(number, Result.WIN, winner=winner, discarder=discarder, total=total)
    scored_hand, scored_total = score_hand(match, number, winner, discarder, hand)
    if total is not None and total != scored_total:
        raise LedgerError(f"the hand scores {scored_total} fan, not {total}")
    return Deal(number, Result.WIN, winner=winner, discarder=discarder, total=scored_total, hand=scored_hand.to_json())


def score_hand(match: Match, number: int, winner: str, discarder: str | None, hand: Hand | dict[str, Any]) -> tuple[Hand, int]:
    """The hand with the deal's winds and the win's self-drawn flag, and its fan total (>= 8)."""
    from scoring.scorer import score  # the scorer is large: only wins with a hand need it

    try:
        parsed = hand if isinstance(hand, Hand) else Hand.from_json(hand)
        context = replace(
            parsed.context,
            self_drawn=discarder is None,
            seat_wind=Tile.parse(match.seat_of(winner, number)),
            prevalent_wind=Tile.parse(prevalent_wind(number)),
        )
        parsed = replace(parsed, context=context).validate()
        result = score(parsed)
    except HandError as exc:
        raise LedgerError(f"deal {number}: {exc}") from None
    if not result.meets_minimum:
        raise UnderMinimum(number, result.total, parsed.context.flowers)
    return parsed, result.total


class UnderMinimum(LedgerError):
    """The hand scores under the 8-fan minimum (flowers do not count toward it): not a win to record."""

    def __init__(self, number: int, total: int, flowers: int):
        counted = f"{total} fan" + (f", {total - flowers} without the flowers," if flowers else "")
        super().__init__(
            f"deal {number}: the hand scores {counted} under the {MINIMUM_FAN}-fan minimum"
            f"{' (flowers do not count toward it)' if flowers else ''}: record it as a false win"
        )
        self.number, self.total, self.flowers = number, total, flowers


def deal_points(match: Match, deal: Deal) -> tuple[int, int, int, int]:
    """Points won (+) and paid (-) by each player in this deal; they sum to zero."""
    if deal.result is Result.DRAW:
        return (0, 0, 0, 0)
    if deal.result is Result.FALSE_WIN:
        assert deal.offender is not None and deal.penalty is not None
        who = match.player(deal.offender)
        return _by_place(-3 * deal.penalty if i == who else deal.penalty for i in range(4))
    assert deal.winner is not None and deal.total is not None
    winds = match.seat_winds(deal.number)
    by_seat = payments(
        deal.total,
        self_drawn=deal.discarder is None,
        winner=winds[match.player(deal.winner)],
        discarder=None if deal.discarder is None else winds[match.player(deal.discarder)],
    )
    return _by_place(by_seat[w] for w in winds)


def _by_place(points: Iterable[int]) -> tuple[int, int, int, int]:
    """The four players' numbers in the order of their starting places."""
    first, second, third, fourth = points
    return first, second, third, fourth


@dataclass(frozen=True)
class LedgerRow:
    """One deal as the score sheet shows it; tuples are per player, in the match's player order."""

    deal: Deal
    prevalent_wind: str
    dealer: str
    seat_winds: tuple[str, str, str, str]
    points: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]


@dataclass(frozen=True)
class Standing:
    player: str
    points: int
    rank: int
    table_points: float


@dataclass(frozen=True)
class Ledger:
    match: Match
    rows: tuple[LedgerRow, ...]

    @property
    def totals(self) -> tuple[int, int, int, int]:
        return self.rows[-1].totals if self.rows else (0, 0, 0, 0)

    @property
    def next_deal(self) -> int | None:
        """The number of the deal to play next; None once all 16 are recorded."""
        n = len(self.rows) + 1
        return n if n <= DEALS_PER_MATCH else None

    @property
    def finished(self) -> bool:
        return len(self.rows) == DEALS_PER_MATCH

    def standings(self) -> tuple[Standing, ...]:
        """Players by rank: raw points, rank (ties share the better one), table points 4-2-1-0 (ties share)."""
        totals = self.totals
        place = ranks(totals)
        shares = table_points(totals)
        rows = [Standing(p, totals[i], place[i], shares[i]) for i, p in enumerate(self.match.players)]
        return tuple(sorted(rows, key=lambda s: (s.rank, self.match.players.index(s.player))))


def build_ledger(match: Match, deals: list[Deal] | tuple[Deal, ...]) -> Ledger:
    """The score sheet of `deals` (numbered 1..n without gaps); the running totals sum to zero after each deal."""
    ordered = sorted(deals, key=lambda d: d.number)
    rows: list[LedgerRow] = []
    totals = [0, 0, 0, 0]
    for expected, deal in enumerate(ordered, start=1):
        if deal.number != expected:
            raise LedgerError(f"deal {expected} is missing (found deal {deal.number} next)")
        points = deal_points(match, deal)
        totals = [t + p for t, p in zip(totals, points)]
        assert sum(totals) == 0, "payments always sum to zero"
        rows.append(LedgerRow(deal, prevalent_wind(deal.number), match.dealer(deal.number),
                              match.seat_winds(deal.number), points, _by_place(totals)))
    return Ledger(match, tuple(rows))


def renumbered(match: Match, deal: Deal, number: int) -> Deal:
    """`deal` played as deal `number`: a win's hand is scored again with that deal's winds."""
    if deal.result is Result.DRAW:
        return draw(number)
    if deal.result is Result.FALSE_WIN:
        assert deal.offender is not None
        return false_win(match, number, deal.offender, deal.penalty)
    assert deal.winner is not None
    return win(match, number, deal.winner, discarder=deal.discarder,
               hand=deal.hand, total=None if deal.hand is not None else deal.total)


def without_deal(match: Match, deals: list[Deal] | tuple[Deal, ...], number: int) -> list[Deal]:
    """The deals with deal `number` taken out (recorded by mistake): the later ones move up one number
    each, and their hands are scored with the winds of their new numbers. LedgerError when one no
    longer scores (it names the deal)."""
    ordered = sorted(deals, key=lambda d: d.number)
    if not any(d.number == number for d in ordered):
        raise LedgerError(f"deal {number} is not recorded")
    kept = [d for d in ordered if d.number < number]
    for d in ordered:
        if d.number > number:
            kept.append(renumbered(match, d, d.number - 1))
    return kept


def check_next(existing: int, number: int) -> None:
    """A new deal must be the next one: refuse a number already taken or one that leaves a gap."""
    check_deal_number(number)
    if number <= existing:
        raise DealTaken(number)
    if number != existing + 1:
        raise LedgerError(f"deal {number} cannot be recorded before deal {existing + 1}")


class DealTaken(LedgerError):
    """The deal number is already recorded (perhaps from another session)."""

    def __init__(self, number: int):
        super().__init__(
            f"deal {number} is already recorded (perhaps from another session): "
            "reload the match, then edit that deal or add the next one"
        )
        self.number = number


__all__ = [
    "WINDS", "Deal", "DealTaken", "Ledger", "LedgerError", "LedgerRow", "Match", "Result", "SeatRule",
    "Standing", "build_ledger", "check_next", "deal_points", "draw", "false_win", "win",
]
