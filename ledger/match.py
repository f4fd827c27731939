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
    LIMITS,
    WINDS,
    LedgerError,
    SeatRule,
    check_deal_number,
    check_name,
    check_whole,
    prevalent_wind,
    ranks,
    seat_winds,
    table_points,
)

MINIMUM_FAN = 8


class Result(str, Enum):
    WIN = "win"
    DRAW = "draw"  # 荒牌
    VOID = "void"  # the table declared the deal void (after a false win): no payments, the deal is played


@dataclass(frozen=True)
class Match:
    """Four players by starting place: players[0] draws East for the first deal, then S, W, N."""

    players: tuple[str, str, str, str]
    seat_rule: SeatRule = SeatRule.OFFICIAL
    false_win_penalty: int = FALSE_WIN_PENALTY  # paid to each of the other three
    name: str = ""
    table: str = ""
    round_label: str = ""  # the tournament round this match belongs to

    def validate(self) -> Match:
        if len(self.players) != 4:
            raise LedgerError(f"a match has 4 players, not {len(self.players)}")
        east, south, west, north = (check_name(p, "a player's name") for p in self.players)
        names = (east, south, west, north)
        if any(not n for n in names):
            raise LedgerError("every player needs a name")
        if len(set(names)) != 4:
            raise LedgerError(f"the four players need different names, got {', '.join(names)}")
        try:
            rule = SeatRule(self.seat_rule)
        except ValueError:
            raise LedgerError(f"seat rule must be one of {', '.join(r.value for r in SeatRule)}, not {self.seat_rule!r}") from None
        check_whole(self.false_win_penalty, "the false-win penalty", 0, LIMITS.max_penalty)
        return replace(self, players=names, seat_rule=rule, name=check_name(self.name, "the match name", LIMITS.match_name_chars),
                       table=check_name(self.table, "the table label"), round_label=check_name(self.round_label, "the round label"))

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

    @property
    def self_drawn(self) -> bool:
        return self.result is Result.WIN and self.discarder is None

    def summary(self) -> str:
        """One line a player recognises: "Ann's self-draw, 24", "Ann on Cat's discard, 22", "a draw"."""
        if self.result is Result.DRAW:
            return "a draw"
        if self.result is Result.VOID:
            return "declared void"
        if self.discarder is None:
            return f"{self.winner}'s self-draw, {self.total}"
        return f"{self.winner} on {self.discarder}'s discard, {self.total}"


def draw(number: int) -> Deal:
    return Deal(check_deal_number(number), Result.DRAW)


def void(number: int) -> Deal:
    """The deal declared void by the table (after a false win): no payments; the next deal follows."""
    return Deal(check_deal_number(number), Result.VOID)


@dataclass(frozen=True)
class Penalty:
    """A penalty entry of its own, given during deal `deal` (1..16).

    `to_others`: the player pays `points` to each of the other three (a false win, 诈和); otherwise the
    points are taken off the player's score and go to nobody (a penalty for a breach of the rules).
    `id` is the database's (0 before it is stored).
    """

    deal: int
    player: str
    points: int
    reason: str
    to_others: bool = False
    false_win: bool = False
    id: int = field(default=0, compare=False)

    def summary(self) -> str:
        paid = f"{self.points} to each other player" if self.to_others else f"-{self.points}"
        return f"{self.player}: {self.reason or 'penalty'}, {paid}"


FALSE_WIN_REASON = "false win (诈和)"


def penalty(match: Match, deal: int, player: str, points: object, reason: object = "", *, to_others: bool = False) -> Penalty:
    """A penalty checked against the match: a player of it, points 1..max_penalty, a reason of bounded length."""
    check_deal_number(deal)
    match.player(player)
    points = check_whole(points, "a penalty", 1, LIMITS.max_penalty)
    text = check_name(reason, "the reason", LIMITS.reason_chars)
    return Penalty(deal, player, points, text, to_others=to_others)


def false_win(match: Match, deal: int, offender: str, points: object = None) -> Penalty:
    """The usual penalty for a false win: the match's amount (10 unless set) to each of the other three."""
    amount = match.false_win_penalty if points is None else points
    made = penalty(match, deal, offender, amount, FALSE_WIN_REASON, to_others=True)
    return replace(made, false_win=True)


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
        if total > LIMITS.max_fan:
            raise LedgerError(f"{total} fan is more than any hand scores (at most {LIMITS.max_fan} are accepted): check the total")
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
    if deal.result in (Result.DRAW, Result.VOID):
        return (0, 0, 0, 0)
    assert deal.winner is not None and deal.total is not None
    winds = match.seat_winds(deal.number)
    by_seat = payments(
        deal.total,
        self_drawn=deal.discarder is None,
        winner=winds[match.player(deal.winner)],
        discarder=None if deal.discarder is None else winds[match.player(deal.discarder)],
    )
    return _by_place(by_seat[w] for w in winds)


def penalty_points(match: Match, entry: Penalty) -> tuple[int, int, int, int]:
    """What a penalty takes (-) and gives (+), players in starting-place order."""
    who = match.player(entry.player)
    if entry.to_others:
        return _by_place(-3 * entry.points if i == who else entry.points for i in range(4))
    return _by_place(-entry.points if i == who else 0 for i in range(4))


def _by_place(points: Iterable[int]) -> tuple[int, int, int, int]:
    """The four players' numbers in the order of their starting places."""
    first, second, third, fourth = points
    return first, second, third, fourth


@dataclass(frozen=True)
class LedgerRow:
    """One deal as the score sheet shows it; tuples are per player, in the match's player order.
    `points` are the deal's payments and its penalties together."""

    deal: Deal
    prevalent_wind: str
    dealer: str
    seat_winds: tuple[str, str, str, str]
    points: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]
    penalties: tuple[Penalty, ...] = ()


@dataclass(frozen=True)
class Standing:
    player: str
    points: int
    rank: int
    table_points: float


class EndReason(str, Enum):
    ALL_DEALS = "all_deals"  # the 16th deal was recorded
    TIME_LIMIT = "time_limit"  # 局: "每打完四圈或达到规定时间为一局": the session ended at the time limit


@dataclass(frozen=True)
class Closure:
    """Why and when the match ended; a closed match takes no writes until it is reopened."""

    reason: EndReason
    at: str  # ISO time, UTC


@dataclass(frozen=True)
class Ledger:
    match: Match
    rows: tuple[LedgerRow, ...]
    pending: tuple[Penalty, ...] = ()  # penalties in the deal being played (not recorded yet)
    revision: int = 0  # the database's count of writes to this match: a write names the revision it saw
    closed: Closure | None = None
    uid: str = ""

    @property
    def totals(self) -> tuple[int, int, int, int]:
        totals = self.rows[-1].totals if self.rows else (0, 0, 0, 0)
        for entry in self.pending:
            totals = _by_place(t + p for t, p in zip(totals, penalty_points(self.match, entry), strict=False))
        return totals

    @property
    def penalties(self) -> tuple[Penalty, ...]:
        return tuple(p for row in self.rows for p in row.penalties) + self.pending

    @property
    def complete(self) -> bool:
        """All 16 deals are recorded."""
        return len(self.rows) == DEALS_PER_MATCH

    @property
    def finished(self) -> bool:
        """Over: all 16 deals recorded, or closed (a time limit). Its table points count in standings."""
        return self.closed is not None

    @property
    def next_deal(self) -> int | None:
        """The number of the deal to play next; None once the match is over."""
        n = len(self.rows) + 1
        return None if self.finished or n > DEALS_PER_MATCH else n

    def deal_to_add(self) -> int:
        """The next deal's number, or why there is none: MatchLocked when the match is finished, MatchComplete
        when it was reopened with all 16 deals (a deal may be corrected, none added)."""
        if self.closed is not None:
            raise MatchLocked(self.closed)
        if self.next_deal is None:
            raise MatchComplete()
        return self.next_deal

    @property
    def end_reason(self) -> EndReason:
        """Why the match ends when it is ended now: all 16 deals, else the time limit."""
        return EndReason.ALL_DEALS if self.complete else EndReason.TIME_LIMIT

    def standings(self) -> tuple[Standing, ...]:
        """Players by rank: raw points, rank (ties share the better one), table points 4-2-1-0 (ties share)."""
        totals = self.totals
        place = ranks(totals)
        shares = table_points(totals)
        rows = [Standing(p, totals[i], place[i], shares[i]) for i, p in enumerate(self.match.players)]
        return tuple(sorted(rows, key=lambda s: (s.rank, self.match.players.index(s.player))))


def build_ledger(match: Match, deals: list[Deal] | tuple[Deal, ...], penalties: Iterable[Penalty] = (), *,
                 revision: int = 0, closed: Closure | None = None, uid: str = "", stored: bool = False) -> Ledger:
    """The score sheet of `deals` (numbered 1..n without gaps) and the penalties given in them; a deal's
    payments sum to zero. A penalty in the deal after the last recorded one is pending; later ones are refused.
    Unless `stored` (the database says whether it is closed), 16 deals close the match."""
    ordered = sorted(deals, key=lambda d: d.number)
    by_deal: dict[int, list[Penalty]] = {}
    for entry in penalties:
        if entry.deal > len(ordered) + 1:
            raise LedgerError(f"a penalty in deal {entry.deal}, but only {len(ordered)} deals are recorded")
        by_deal.setdefault(entry.deal, []).append(entry)
    rows: list[LedgerRow] = []
    totals = [0, 0, 0, 0]
    for expected, deal in enumerate(ordered, start=1):
        if deal.number != expected:
            raise LedgerError(f"deal {expected} is missing (found deal {deal.number} next)")
        points = deal_points(match, deal)
        assert sum(points) == 0, "payments always sum to zero"
        given = tuple(by_deal.get(deal.number, ()))
        for entry in given:
            points = _by_place(a + b for a, b in zip(points, penalty_points(match, entry), strict=False))
        totals = [t + p for t, p in zip(totals, points, strict=False)]
        rows.append(LedgerRow(deal, prevalent_wind(deal.number), match.dealer(deal.number),
                              match.seat_winds(deal.number), points, _by_place(totals), given))
    pending = tuple(by_deal.get(len(ordered) + 1, ()))
    if not stored and closed is None and len(rows) == DEALS_PER_MATCH:
        closed = Closure(EndReason.ALL_DEALS, "")
    return Ledger(match, tuple(rows), pending, revision, closed, uid)


def renumbered(match: Match, deal: Deal, number: int) -> Deal:
    """`deal` played as deal `number`: a win's hand is scored again with that deal's winds."""
    if deal.result is Result.DRAW:
        return draw(number)
    if deal.result is Result.VOID:
        return void(number)
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
    "WINDS", "Closure", "Deal", "DealTaken", "EndReason", "Ledger", "LedgerError", "LedgerRow", "Match", "Penalty",
    "Result", "SeatRule", "Standing", "build_ledger", "check_next", "deal_points", "draw", "false_win", "penalty",
    "penalty_points", "void", "win",
]


class ChangeKind(str, Enum):
    CREATED = "created"
    RECORDED = "recorded"
    REPLACED = "replaced"
    UNDONE = "undone"
    REMOVED = "removed"
    PENALTY = "penalty"
    PENALTY_REMOVED = "penalty_removed"
    CLOSED = "closed"
    REOPENED = "reopened"


@dataclass(frozen=True)
class Change:
    """One write to a match, as the database logged it: revision `revision` is the match after it."""

    revision: int
    kind: ChangeKind
    at: str  # ISO time, UTC
    number: int | None = None  # the deal it concerns
    deal: Deal | None = None  # the deal recorded, replaced with, undone or taken out
    penalty: Penalty | None = None
    reason: EndReason | None = None  # of a closing


def clock(iso: str) -> str:
    """HH:MM of an ISO UTC time in this machine's time zone ("" when it is not a time)."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%H:%M")
    except ValueError:
        return ""


def describe(change: Change) -> str:
    """"deal 2 was recorded by another phone at 14:03: Ann's self-draw, 24" (English; the app translates)."""
    at = clock(change.at)
    where = f"by another phone at {at}" if at else "by another phone"
    what = change.deal.summary() if change.deal is not None else ""
    kind = change.kind
    if kind is ChangeKind.RECORDED:
        return f"deal {change.number} was recorded {where}: {what}"
    if kind is ChangeKind.REPLACED:
        return f"deal {change.number} was changed {where} to {what}"
    if kind is ChangeKind.UNDONE:
        return f"deal {change.number} ({what}) was undone {where}"
    if kind is ChangeKind.REMOVED:
        return f"deal {change.number} ({what}) was taken out {where}; the later deals moved up"
    if kind is ChangeKind.PENALTY and change.penalty is not None:
        return f"a penalty in deal {change.number} was recorded {where}: {change.penalty.summary()}"
    if kind is ChangeKind.PENALTY_REMOVED and change.penalty is not None:
        return f"a penalty in deal {change.number} was taken back {where}: {change.penalty.summary()}"
    if kind is ChangeKind.CLOSED:
        why = "at the time limit" if change.reason is EndReason.TIME_LIMIT else "after all 16 deals"
        return f"the match was closed {why} {where}"
    if kind is ChangeKind.REOPENED:
        return f"the match was reopened {where}"
    return f"the match was changed {where}"


class StaleWrite(LedgerError):
    """The page showed an older state of the match than the database holds: nothing was written.
    `changes` are the writes made since (oldest first); the message names the newest ones."""

    def __init__(self, seen: int, changes: tuple[Change, ...]):
        named = "; ".join(describe(c) for c in changes[-3:]) or f"the match changed since revision {seen}"
        more = f" (and {len(changes) - 3} earlier changes)" if len(changes) > 3 else ""
        super().__init__(f"{named}{more}. Nothing was recorded: look at the match again, then record what is still missing")
        self.seen, self.changes = seen, changes


class MatchComplete(LedgerError):
    """All 16 deals are recorded (the match was reopened to correct one): no deal 17."""

    def __init__(self) -> None:
        super().__init__(f"the match is finished: all {DEALS_PER_MATCH} deals are recorded. Correct a deal "
                         "(replace it), or end the match again")


class MatchLocked(LedgerError):
    """The match is over (16 deals or closed at a time limit): it takes no writes until it is reopened."""

    def __init__(self, closure: Closure):
        why = "at the time limit" if closure.reason is EndReason.TIME_LIMIT else "after all 16 deals"
        at = clock(closure.at)
        super().__init__(f"the match is finished (closed {why}{' at ' + at if at else ''}): reopen it to change it")
        self.closure = closure
