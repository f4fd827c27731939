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

from enum import Enum

WINDS = ("E", "S", "W", "N")
DEALS_PER_ROUND = 4
ROUNDS = 4
DEALS_PER_MATCH = DEALS_PER_ROUND * ROUNDS
TABLE_POINTS = (4, 2, 1, 0)
FALSE_WIN_PENALTY = 10


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
