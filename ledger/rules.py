"""The match structure of Chinese Official mahjong: deals, rounds, winds, seat changes, table points.

From the rules (shared/seeds, 竞赛规则 术语):

- 盘 (deal): from the first draw to a win or a 荒牌 (exhaustive draw);
- 圈 (round): four deals, each player dealer once; 局 (match): four rounds, 16 deals;
- 圈风 (prevalent wind): East in the first round, then South, West, North;
- 门风 (seat wind): the dealer is East, his 下家 South, 对家 West, 上家 North;
- 庄家不连庄: the deal passes to the next player whatever happens;
- 轮转: players change seats between rounds as the competition rules say.

The seats here are the four places at the table, named by the wind their player has in the
first deal of a round (定位). In deal k of a round (k = 0..3) the player in place p has the
seat wind k places before p: the dealer passes to the 下家 each deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

WINDS = ("E", "S", "W", "N")
DEALS_PER_ROUND = 4
ROUNDS = 4
DEALS_PER_MATCH = DEALS_PER_ROUND * ROUNDS
TABLE_POINTS = (4, 2, 1, 0)
# 诈和 (false win, 术语 三十一: "不符合《规则》规定条件而宣布和牌"). The seeds define it but name no
# amount; the usual MCR competition penalty is 10 points to each of the other three players.
FALSE_WIN_PENALTY = 10


@dataclass(frozen=True)
class Limits:
    """What the ledger accepts, the same on every database (PostgreSQL's column widths are the tightest)."""

    name_chars: int = 100  # a player's name; also a table or round label
    match_name_chars: int = 200
    reason_chars: int = 200  # a penalty's reason
    max_fan: int = 400  # a fan total, flowers included (the richest MCR hands score a few hundred)
    max_penalty: int = 1000  # points one penalty entry takes (from each other player for a false win)
    max_players: int = 400  # registered in one tournament
    max_rounds: int = 50


LIMITS = Limits()


class SeatRule(str, Enum):
    """How players change places between rounds.

    OFFICIAL is the MCR competition seating (中国麻将竞赛规则 轮转, the "Green Book"; the seeds name
    the rule without its permutation). Between rounds the players move by the places they hold:
    after the East round East and South swap and West and North swap; after the South round
    E->W, W->S, S->N, N->E; after the West round East and South swap and West and North swap
    again. So the player who starts East sits E S N W over the four rounds, South S E W N, West
    W N E S, North N W S E: everyone sits in every place once and opens one round as dealer.
    Sources: the Green Book's rule as explained on the Reach Mahjong forum ("MCR round seat
    change", 2019, http://reachmahjong.com/en/forum/viewtopic.php?f=4&t=53999) and the MCR
    seating scheme of Mahjong Den Haag (https://www.mahjongdenhaag.nl/mcr-seating-scheme).

    NONE keeps everyone in the place they drew for the whole match.
    """

    OFFICIAL = "official"
    NONE = "none"


_OFFICIAL_PLACES = {"E": "ESNW", "S": "SEWN", "W": "WNES", "N": "NWSE"}


class LedgerError(ValueError):
    """A match or deal that cannot be recorded; the message says why."""


class DealNumberError(LedgerError):
    """A deal number outside 1..16."""


def check_name(value: object, what: str = "a name", limit: int | None = None) -> str:
    """`value` stripped; LedgerError when it is not text or longer than the limit (characters)."""
    if not isinstance(value, str):
        raise LedgerError(f"{what} must be text, not {value!r}")
    text = value.strip()
    limit = LIMITS.name_chars if limit is None else limit
    if len(text) > limit:
        raise LedgerError(f"{what} has {len(text)} characters; at most {limit} are kept: shorten it ({text[:20]}…)")
    if any(ord(c) < 32 for c in text):
        raise LedgerError(f"{what} holds a control character (a line break or tab): {text[:20]!r}")
    return text


def check_whole(value: object, what: str, low: int, high: int) -> int:
    """A whole number in low..high, or LedgerError naming `what` and the bounds."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise LedgerError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def check_deal_number(number: object) -> int:
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= DEALS_PER_MATCH:
        raise DealNumberError(f"a deal number is 1 to {DEALS_PER_MATCH}, not {number!r}")
    return number


def round_index(number: int) -> int:
    """0 for the East round (deals 1-4) .. 3 for the North round (deals 13-16)."""
    return (check_deal_number(number) - 1) // DEALS_PER_ROUND


def prevalent_wind(number: int) -> str:
    return WINDS[round_index(number)]


def place_in_round(start_place: str, round_no: int, rule: SeatRule) -> str:
    """The place (E S W N) in round `round_no` (0..3) of the player who started the match in `start_place`."""
    if rule is SeatRule.NONE:
        return start_place
    return _OFFICIAL_PLACES[start_place][round_no]


def seat_wind_at(place: str, number: int) -> str:
    """The seat wind in deal `number` of whoever sits in `place` during that deal's round."""
    k = (check_deal_number(number) - 1) % DEALS_PER_ROUND
    return WINDS[(WINDS.index(place) - k) % 4]


def seat_winds(number: int, rule: SeatRule) -> tuple[str, str, str, str]:
    """Seat wind in deal `number` of each player, players in the order of their starting places E S W N."""
    r = round_index(number)
    east, south, west, north = (seat_wind_at(place_in_round(start, r, rule), number) for start in WINDS)
    return east, south, west, north


def table_points(points: list[int] | tuple[int, ...]) -> tuple[float, ...]:
    """Table points 4-2-1-0 by raw points; tied players share the places they cover equally."""
    order = sorted(range(len(points)), key=lambda i: -points[i])
    shares: list[float] = [0.0] * len(points)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and points[order[end + 1]] == points[order[start]]:
            end += 1
        share = sum(TABLE_POINTS[start:end + 1]) / (end - start + 1)
        for i in order[start:end + 1]:
            shares[i] = share
        start = end + 1
    return tuple(shares)


def ranks(points: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """1 for the most points; tied players share the better rank (1, 1, 3, 4)."""
    return tuple(1 + sum(other > p for other in points) for p in points)
