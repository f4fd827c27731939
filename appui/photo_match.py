"""The photo page at a table that keeps a match: the deal to play comes from the ledger.

When this session has a match open (the Match page's choice), the photo page takes the deal's
dealer, seat winds and round wind from it and asks only who won and how; one tap records the win.
Everything here goes through the ledger's public functions (`ledger.match.win`, the store's
`ledger` and `add_deal`); a win is written only if the match is still at the revision the page
showed, so a deal another phone recorded first is refused with the ledger's reason (what changed),
never recorded twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.match import Deal, Ledger, LedgerError, UnderMinimum, win
from ledger.rules import DEALS_PER_MATCH, prevalent_wind
from ledger.store import LedgerStore
from scoring.hand import Hand, WinContext
from scoring.tiles import Tile


@dataclass(frozen=True)
class OpenDeal:
    """The next deal of an open match, as the photo page needs it."""

    match_id: int
    number: int
    players: tuple[str, str, str, str]
    seat_winds: tuple[str, str, str, str]  # each player's seat wind in this deal, in `players` order
    prevalent: str
    dealer: str
    revision: int  # the ledger's revision this deal was read at: the win is written only if it is still that

    @staticmethod
    def of(match_id: int, ledger: Ledger) -> OpenDeal | None:
        """The deal to play next, None once the match is over."""
        number = ledger.next_deal
        if number is None:
            return None
        match = ledger.match
        return OpenDeal(match_id, number, match.players, match.seat_winds(number), prevalent_wind(number),
                        match.dealer(number), ledger.revision)

    def seat_of(self, player: str) -> str:
        return self.seat_winds[self.players.index(player)]

    def context(self, winner: str, self_drawn: bool, flags: WinContext) -> WinContext:
        """`flags` (flowers, last tile, ...) with the deal's winds for `winner` and how it was won."""
        return WinContext(
            self_drawn=self_drawn, seat_wind=Tile.parse(self.seat_of(winner)),
            prevalent_wind=Tile.parse(self.prevalent), flowers=flags.flowers, last_tile=flags.last_tile,
            last_of_wall=flags.last_of_wall, kong_replacement=flags.kong_replacement,
            robbing_kong=flags.robbing_kong,
        )


@dataclass(frozen=True)
class MatchClosed:
    """No deal to record into: the match is over, gone, or its database cannot be read (the reason)."""

    match_id: int
    reason: str  # "over", "missing" or "database"
    detail: str = ""


def open_deal(store: LedgerStore, match_id: int) -> OpenDeal | MatchClosed:
    """The next deal of match `match_id`, read from the database now."""
    from ledger.store import MatchNotFound

    try:
        ledger = store.ledger(match_id)
    except MatchNotFound:
        return MatchClosed(match_id, "missing")
    except LedgerError as exc:
        return MatchClosed(match_id, "database", str(exc))
    deal = OpenDeal.of(match_id, ledger)
    return deal if deal is not None else MatchClosed(match_id, "over", str(DEALS_PER_MATCH))


@dataclass(frozen=True)
class Recorded:
    deal: Deal
    ledger: Ledger


@dataclass(frozen=True)
class NotRecorded:
    """Why the win was not recorded: `under_minimum` (with the totals) or `refused` (the ledger's message,
    e.g. what another phone recorded since)."""

    reason: str
    detail: str = ""
    total: int = 0
    flowers: int = 0


def record_win(store: LedgerStore, seen: OpenDeal, winner: str, discarder: str | None, hand: Hand) -> Recorded | NotRecorded:
    """Record `hand` as the win of deal `seen.number`: the ledger scores it with the deal's winds and
    refuses it when the match changed since `seen` was read (another phone was first)."""
    try:
        match = store.ledger(seen.match_id).match
        deal = win(match, seen.number, winner, discarder=discarder, hand=hand)
        after = store.add_deal(seen.match_id, deal, seen=seen.revision)
    except UnderMinimum as exc:
        return NotRecorded("under_minimum", str(exc), exc.total, exc.flowers)
    except LedgerError as exc:
        return NotRecorded("refused", str(exc))
    return Recorded(deal, after)
