"""One detector per fan, all with the same signature, registered against the fan table.

A detector takes a `Reading` (one decomposition of the hand plus the facts of
the whole hand) and returns how many times its fan is present, BEFORE
exclusions: exclusions are data in `fans.py`, applied by the scorer.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import compress

from .codes import (
    ALL_CODES,
    DRAGONS,
    GREEN,
    REVERSIBLE,
    SIZE,
    TERMINALS,
    TERMINALS_OR_HONORS,
    WINDS,
)
from .combinations import COMBINATION_FANS, account_once
from .completing import completing_tiles, only_completing
from .divide import CHOW, KONG, PAIR, PUNG, Block, Decomposition
from .fans import FAN, FanId

Detector = Callable[["Reading"], int]
DETECTORS: dict[int, Detector] = {}

# What a detector looks at.  The scorer runs HAND detectors once per hand, and skips a group
# for a reading that has nothing the group looks at (e.g. SETS for seven pairs).
HAND = "hand"  # the tiles, melds and flags of the whole hand: the same for every reading
RANKS = "ranks"  # the ranks of a hand without honors, all 4 and up or all 4 and down (else skipped)
SITUATION = "situation"  # the situational flags: last tile, kongs (skipped when none is set)
AFTER = "after"  # decided by the scorer once the others are known (Chicken Hand): never run
COMBINATION = "combination"  # two to four sets together (account-once, combinations.py)
SETS = "sets"  # the sets and the pair of the reading
PUNGS = "pungs"  # the pungs and kongs of the reading (skipped when it has none)
HONOR_PUNGS = "honor_pungs"  # pungs of winds or dragons (skipped when the reading has none)
KONGS = "kongs"  # the kongs of the hand (skipped when it has none)
SHAPE = "shape"  # the special shapes
WAIT = "wait"  # where the winning tile sits
GROUPS: dict[str, list[tuple[int, Detector]]] = {
    g: [] for g in (HAND, RANKS, SITUATION, AFTER, COMBINATION, SETS, PUNGS, HONOR_PUNGS, KONGS, SHAPE, WAIT)
}


def detector(fan_id: int, group: str) -> Callable[[Detector], Detector]:
    """Register `fn` as the detector of fan `fan_id` (one per fan), in `group`.

    Stored under the plain number: the scorer's dicts of fan counts are keyed by it (a FanId
    compares and hashes the same, a plain int is quicker on the scorer's hot path)."""
    fan_id = int(fan_id)

    def register(fn: Detector) -> Detector:
        if fan_id not in FAN or fan_id in DETECTORS:
            raise ValueError(f"fan {fan_id} is unknown or already has a detector")
        DETECTORS[fan_id] = fn
        GROUPS[group].append((fan_id, fn))
        return fn

    return register


# --- the facts of a hand, shared by its readings -----------------------------------------------------


class HandFacts:
    """Everything about the hand that does not depend on how it is read. Flags are already corrected."""

    __slots__ = (
        "_unique_wait",
        "counts",
        "exposed_melds",
        "fixed",
        "flowers",
        "has_honors",
        "kong_replacement",
        "kongs",
        "last_of_wall",
        "last_tile",
        "prevalent",
        "ranks",
        "robbing_kong",
        "seat",
        "self_drawn",
        "standing",
        "suits",
        "tileset",
        "unique",
        "win",
    )

    def __init__(
        self, fixed: tuple[Block, ...], standing: list[int], counts: list[int], win: int, *,
        self_drawn: bool, last_tile: bool, last_of_wall: bool, kong_replacement: bool,
        robbing_kong: bool, seat: int, prevalent: int, flowers: int,
    ) -> None:
        self.fixed = fixed
        self.standing = standing  # counts of the standing tiles, the winning tile included
        self.counts = counts  # counts of every tile of the hand
        self.unique = unique = tuple(compress(range(len(counts)), counts))  # the codes held, in order
        self.win = win
        self.self_drawn = self_drawn
        self.last_tile = last_tile
        self.last_of_wall = last_of_wall
        self.kong_replacement = kong_replacement
        self.robbing_kong = robbing_kong
        self.seat = seat
        self.prevalent = prevalent
        self.flowers = flowers
        self.exposed_melds = len([b for b in fixed if b.exposed])
        self.kongs = len([b for b in fixed if b.kind == KONG])
        self.tileset = frozenset(unique)
        self.has_honors = unique[-1] > 30
        self.suits = {c // 10 for c in unique} - {3}
        self.ranks = {c % 10 for c in unique} if unique[-1] < 30 else set()  # only looked at without honors
        self._unique_wait: bool | None = None

    @property
    def unique_wait(self) -> bool:
        """The 13 standing tiles wait on the winning tile only (shape only, as the reference)."""
        if self._unique_wait is None:
            before = list(self.standing)
            before[self.win] -= 1
            self._unique_wait = only_completing(before, self.win, seven_pairs=sum(before) == 13, present=self.unique)
        return self._unique_wait


# --- one reading -----------------------------------------------------------------------------------


class Reading:
    """One decomposition with what the detectors need, computed once."""

    __slots__ = (
        "_waits",
        "blocks",
        "chows",
        "combos",
        "concealed_kongs",
        "concealed_pungs",
        "decomposition",
        "hand",
        "kind",
        "melded_kongs",
        "pair",
        "pungs",
    )

    def __init__(self, hand: HandFacts, decomposition: Decomposition) -> None:
        self.hand = hand
        self.decomposition = decomposition
        self.kind = decomposition.kind
        self.blocks = blocks = decomposition.blocks
        chows: list[int] = []
        pungs: list[int] = []
        sets: list[Block] = []
        self.pair = None
        melded_kongs = concealed_kongs = 0
        for b in blocks:
            kind = b.kind
            if kind == CHOW:
                chows.append(b.tile)
            elif kind == PAIR:
                self.pair = b.tile
            else:
                pungs.append(b.tile)
                sets.append(b)
                if kind == KONG:
                    if b.exposed:
                        melded_kongs += 1
                    else:
                        concealed_kongs += 1
        chows.sort()
        pungs.sort()
        self.chows = tuple(chows)  # middle tiles, sorted
        self.pungs = tuple(pungs)  # tiles of the pungs and kongs, sorted
        self.melded_kongs = melded_kongs
        self.concealed_kongs = concealed_kongs
        self.concealed_pungs = self._concealed_pungs(sets)
        self.combos = account_once(self.chows, self.pungs) if self.kind == "standard" else _NONE
        self._waits: tuple[bool, bool, bool] | None = None

    @property
    def wait_positions(self) -> tuple[bool, bool, bool]:
        if self._waits is None:
            self._waits = _wait_positions(self)
        return self._waits

    def _concealed_pungs(self, sets: list[Block]) -> int:
        """Concealed pungs and kongs; a pung completed by a claimed tile counts as exposed."""
        hand = self.hand
        n = len([b for b in sets if not b.exposed])
        if not hand.self_drawn:
            win = hand.win
            if not [b for b in self.blocks if b.kind == CHOW and not b.declared and abs(b.tile - win) <= 1]:
                n -= len([b for b in sets if b.kind == PUNG and not b.declared and b.tile == win])
        return n

    @property
    def kongs(self) -> int:
        return self.melded_kongs + self.concealed_kongs


_NONE: dict[int, int] = {}


def _combo(fan_id: int) -> Detector:
    def detect(r: Reading) -> int:
        return r.combos.get(fan_id, 0)

    detect.__name__ = f"combination_{fan_id}"
    return detect


# Set-combination fans: counted together by the account-once rule (combinations.py).
for _id in sorted(COMBINATION_FANS):
    detector(_id, COMBINATION)(_combo(_id))


# --- tiles of the whole hand ---------------------------------------------------------------------------


def _suits(r: Reading) -> set[int]:
    return r.hand.suits


def _has_honors(r: Reading) -> bool:
    return r.hand.has_honors


def _suited_ranks(r: Reading) -> set[int] | None:
    """The ranks used, or None when the hand has honors."""
    return None if r.hand.has_honors else r.hand.ranks


@detector(FanId.ALL_GREEN, HAND)
def all_green(r: Reading) -> int:
    return r.hand.tileset <= GREEN


@detector(FanId.ALL_TERMINALS, HAND)
def all_terminals(r: Reading) -> int:
    return r.hand.tileset <= TERMINALS


@detector(FanId.ALL_HONORS, HAND)
def all_honors(r: Reading) -> int:
    return r.hand.unique[0] > 30


@detector(FanId.ALL_TERMINALS_AND_HONORS, HAND)
def all_terminals_and_honors(r: Reading) -> int:
    return r.hand.tileset <= TERMINALS_OR_HONORS


@detector(FanId.FULL_FLUSH, HAND)
def full_flush(r: Reading) -> int:
    return len(_suits(r)) == 1 and not _has_honors(r)


@detector(FanId.HALF_FLUSH, HAND)
def half_flush(r: Reading) -> int:
    return len(_suits(r)) == 1 and _has_honors(r)


@detector(FanId.ONE_VOIDED_SUIT, HAND)
def one_voided_suit(r: Reading) -> int:
    return len(_suits(r)) == 2


@detector(FanId.NO_HONORS, HAND)
def no_honors(r: Reading) -> int:
    return not _has_honors(r)


@detector(FanId.ALL_TYPES, HAND)
def all_types(r: Reading) -> int:
    u = r.hand.tileset
    return len(_suits(r)) == 3 and not u.isdisjoint(WINDS) and not u.isdisjoint(DRAGONS)


@detector(FanId.ALL_SIMPLES, HAND)
def all_simples(r: Reading) -> int:
    return r.hand.tileset.isdisjoint(TERMINALS_OR_HONORS)


@detector(FanId.REVERSIBLE_TILES, HAND)
def reversible_tiles(r: Reading) -> int:
    return r.hand.tileset <= REVERSIBLE


def _ranks_within(r: Reading, allowed: frozenset[int]) -> bool:
    ranks = _suited_ranks(r)
    return ranks is not None and ranks <= allowed


_UPPER, _MIDDLE, _LOWER = frozenset({7, 8, 9}), frozenset({4, 5, 6}), frozenset({1, 2, 3})
_UPPER_FOUR, _LOWER_FOUR = frozenset({6, 7, 8, 9}), frozenset({1, 2, 3, 4})


@detector(FanId.UPPER_TILES, RANKS)
def upper_tiles(r: Reading) -> int:
    return _ranks_within(r, _UPPER)


@detector(FanId.MIDDLE_TILES, RANKS)
def middle_tiles(r: Reading) -> int:
    return _ranks_within(r, _MIDDLE)


@detector(FanId.LOWER_TILES, RANKS)
def lower_tiles(r: Reading) -> int:
    return _ranks_within(r, _LOWER)


@detector(FanId.UPPER_FOUR, RANKS)
def upper_four(r: Reading) -> int:
    return _ranks_within(r, _UPPER_FOUR)


@detector(FanId.LOWER_FOUR, RANKS)
def lower_four(r: Reading) -> int:
    return _ranks_within(r, _LOWER_FOUR)


@detector(FanId.TILE_HOG, HAND)
def tile_hog(r: Reading) -> int:
    counts = r.hand.counts
    return len([c for c in r.hand.unique if counts[c] == 4]) - r.hand.kongs


# --- shapes ---------------------------------------------------------------------------------------------


@detector(FanId.NINE_GATES, SHAPE)
def nine_gates(r: Reading) -> int:
    return r.kind == "nine_gates"


@detector(FanId.SEVEN_SHIFTED_PAIRS, SHAPE)
def seven_shifted_pairs(r: Reading) -> int:
    if r.kind != "seven_pairs":
        return 0
    pairs = r.decomposition.tiles[::2]
    return len(set(pairs)) == 7 and pairs[0] < 30 and pairs[-1] - pairs[0] == 6


@detector(FanId.THIRTEEN_ORPHANS, SHAPE)
def thirteen_orphans(r: Reading) -> int:
    return r.kind == "thirteen_orphans"


@detector(FanId.SEVEN_PAIRS, SHAPE)
def seven_pairs(r: Reading) -> int:
    return r.kind == "seven_pairs"


@detector(FanId.GREATER_HONORS_AND_KNITTED_TILES, SHAPE)
def greater_honors_and_knitted_tiles(r: Reading) -> int:
    return r.kind == "honors_knitted" and sum(1 for c in r.hand.unique if c > 30) == 7


@detector(FanId.LESSER_HONORS_AND_KNITTED_TILES, SHAPE)
def lesser_honors_and_knitted_tiles(r: Reading) -> int:
    return r.kind == "honors_knitted" and sum(1 for c in r.hand.unique if c > 30) < 7


@detector(FanId.KNITTED_STRAIGHT, SHAPE)
def knitted_straight(r: Reading) -> int:
    if r.kind == "knitted_straight":
        return 1
    return r.kind == "honors_knitted" and sum(1 for c in r.hand.unique if c < 30) == 9


# --- sets -----------------------------------------------------------------------------------------------


def _five_pair_suit(r: Reading) -> int | None:
    """With four chows and a pair of fives: the pair's suit block."""
    pair = r.pair
    if len(r.chows) == 4 and pair is not None and pair < 30 and pair % 10 == 5:
        return pair // 10
    return None


@detector(FanId.PURE_TERMINAL_CHOWS, SETS)
def pure_terminal_chows(r: Reading) -> int:
    suit = _five_pair_suit(r)
    if suit is None:
        return 0
    return all(m // 10 == suit for m in r.chows) and sorted(m % 10 for m in r.chows) == [2, 2, 8, 8]


@detector(FanId.THREE_SUITED_TERMINAL_CHOWS, SETS)
def three_suited_terminal_chows(r: Reading) -> int:
    suit = _five_pair_suit(r)
    if suit is None:
        return 0
    others = {0, 1, 2} - {suit}
    return sorted(r.chows) == sorted(10 * s + k for s in others for k in (2, 8))


@detector(FanId.LITTLE_FOUR_WINDS, HONOR_PUNGS)
def little_four_winds(r: Reading) -> int:
    return len([t for t in r.pungs if t in WINDS]) == 3 and r.pair in WINDS


@detector(FanId.LITTLE_THREE_DRAGONS, HONOR_PUNGS)
def little_three_dragons(r: Reading) -> int:
    return len([t for t in r.pungs if t in DRAGONS]) == 2 and r.pair in DRAGONS


@detector(FanId.FOUR_KONGS, KONGS)
def four_kongs(r: Reading) -> int:
    return r.kongs == 4


@detector(FanId.THREE_KONGS, KONGS)
def three_kongs(r: Reading) -> int:
    return r.kongs == 3


@detector(FanId.TWO_CONCEALED_KONGS, KONGS)
def two_concealed_kongs(r: Reading) -> int:
    return r.concealed_kongs >= 2


@detector(FanId.TWO_MELDED_KONGS, KONGS)
def two_melded_kongs(r: Reading) -> int:
    return r.melded_kongs >= 2


@detector(FanId.CONCEALED_KONG, KONGS)
def concealed_kong(r: Reading) -> int:
    return r.concealed_kongs


@detector(FanId.MELDED_KONG, KONGS)
def melded_kong(r: Reading) -> int:
    return r.melded_kongs


@detector(FanId.FOUR_CONCEALED_PUNGS, PUNGS)
def four_concealed_pungs(r: Reading) -> int:
    return r.concealed_pungs == 4


@detector(FanId.THREE_CONCEALED_PUNGS, PUNGS)
def three_concealed_pungs(r: Reading) -> int:
    return r.concealed_pungs == 3


@detector(FanId.TWO_CONCEALED_PUNGS, PUNGS)
def two_concealed_pungs(r: Reading) -> int:
    return r.concealed_pungs == 2


@detector(FanId.ALL_PUNGS, PUNGS)
def all_pungs(r: Reading) -> int:
    return len(r.pungs) == 4


@detector(FanId.ALL_EVEN_PUNGS, PUNGS)
def all_even_pungs(r: Reading) -> int:
    pair = r.pair
    return len(r.pungs) == 4 and pair is not None and all(t < 30 and t % 2 == 0 for t in (*r.pungs, pair))


@detector(FanId.ALL_CHOWS, SETS)
def all_chows(r: Reading) -> int:
    if r.pair is None or r.pair > 30:
        return 0
    return len(r.chows) == 4 or (r.kind == "knitted_straight" and len(r.chows) == 1)


_FIVES = frozenset(c for c in ALL_CODES if c < 30 and c % 10 == 5)


@cache
def _block_traits(b: Block) -> tuple[bool, bool]:
    """(holds a terminal or honor, holds a five)."""
    tiles = set(b.tiles())
    return (not tiles.isdisjoint(TERMINALS_OR_HONORS), not tiles.isdisjoint(_FIVES))


@detector(FanId.OUTSIDE_HAND, SETS)
def outside_hand(r: Reading) -> int:
    return r.kind == "standard" and all([_block_traits(b)[0] for b in r.blocks])


@detector(FanId.ALL_FIVES, SETS)
def all_fives(r: Reading) -> int:
    return r.kind == "standard" and all([_block_traits(b)[1] for b in r.blocks])


@detector(FanId.DRAGON_PUNG, HONOR_PUNGS)
def dragon_pung(r: Reading) -> int:
    return len([t for t in r.pungs if t in DRAGONS])


@detector(FanId.PREVALENT_WIND, HONOR_PUNGS)
def prevalent_wind(r: Reading) -> int:
    return r.hand.prevalent in r.pungs


@detector(FanId.SEAT_WIND, HONOR_PUNGS)
def seat_wind(r: Reading) -> int:
    return r.hand.seat in r.pungs


@detector(FanId.PUNG_OF_TERMINALS_OR_HONORS, PUNGS)
def pung_of_terminals_or_honors(r: Reading) -> int:
    """Terminal pungs, and wind pungs that no wind fan (圈风 门风 三风 小四喜 大四喜) has taken."""
    winds = [t for t in r.pungs if t in WINDS]
    free_winds = 0 if len(winds) >= 3 else len([t for t in winds if t not in (r.hand.seat, r.hand.prevalent)])
    return len([t for t in r.pungs if t in TERMINALS]) + free_winds


# --- how the hand was won ------------------------------------------------------------------------------


@detector(FanId.MELDED_HAND, HAND)
def melded_hand(r: Reading) -> int:
    return r.hand.exposed_melds == 4 and not r.hand.self_drawn


@detector(FanId.FULLY_CONCEALED_HAND, HAND)
def fully_concealed_hand(r: Reading) -> int:
    return r.hand.exposed_melds == 0 and r.hand.self_drawn


@detector(FanId.CONCEALED_HAND, HAND)
def concealed_hand(r: Reading) -> int:
    return r.hand.exposed_melds == 0 and not r.hand.self_drawn


@detector(FanId.SELF_DRAWN, HAND)
def self_drawn(r: Reading) -> int:
    return r.hand.self_drawn


@detector(FanId.LAST_TILE_DRAW, SITUATION)
def last_tile_draw(r: Reading) -> int:
    return r.hand.self_drawn and r.hand.last_of_wall


@detector(FanId.LAST_TILE_CLAIM, SITUATION)
def last_tile_claim(r: Reading) -> int:
    return not r.hand.self_drawn and r.hand.last_of_wall


@detector(FanId.OUT_WITH_REPLACEMENT_TILE, SITUATION)
def out_with_replacement_tile(r: Reading) -> int:
    return r.hand.kong_replacement


@detector(FanId.ROBBING_THE_KONG, SITUATION)
def robbing_the_kong(r: Reading) -> int:
    return r.hand.robbing_kong


@detector(FanId.LAST_TILE, SITUATION)
def last_tile(r: Reading) -> int:
    return r.hand.last_tile


@detector(FanId.FLOWER_TILES, HAND)
def flower_tiles(r: Reading) -> int:
    return r.hand.flowers


@detector(FanId.CHICKEN_HAND, AFTER)
def chicken_hand(r: Reading) -> int:
    return 0  # decided by the scorer once every other fan is known: it is "no fan at all"


# --- waits -----------------------------------------------------------------------------------------------


def _wait_positions(r: Reading) -> tuple[bool, bool, bool]:
    """(edge, closed, single): where the winning tile sits, when the hand waited on that tile alone."""
    hand = r.hand
    win = hand.win
    if r.kind == "standard":
        concealed = [
            b for b in r.blocks
            if ((b.kind == CHOW and abs(b.tile - win) <= 1) or (b.kind == PAIR and b.tile == win)) and not b.declared
        ]
        if not concealed or not hand.unique_wait:
            return (False, False, False)
    elif r.kind == "knitted_straight":
        if hand.fixed:  # a declared 4th set: the pair was the wait unless the body needed the tile
            return (False, False, win not in r.decomposition.knitted or hand.standing[win] == 3)
        rest = [0] * SIZE
        for b in r.blocks:
            for t in b.tiles():
                rest[t] += 1
        if not rest[win]:
            return (False, False, False)
        rest[win] -= 1
        if completing_tiles(rest, seven_pairs=False) != [win]:
            return (False, False, False)
        concealed = list(r.blocks)
    else:
        return (False, False, False)
    edge = closed = single = False
    for b in concealed:
        if b.kind == CHOW:
            if b.tile == win:
                closed = True
            elif abs(b.tile - win) == 1:
                edge = True
        elif b.kind == PAIR and b.tile == win:
            single = True
    return (edge, closed, single)


@detector(FanId.EDGE_WAIT, WAIT)
def edge_wait(r: Reading) -> int:
    return r.wait_positions[0]


@detector(FanId.CLOSED_WAIT, WAIT)
def closed_wait(r: Reading) -> int:
    return r.wait_positions[1]


@detector(FanId.SINGLE_WAIT, WAIT)
def single_wait(r: Reading) -> int:
    return r.wait_positions[2]


def _check_registry() -> None:
    missing = sorted(set(FAN) - set(DETECTORS))
    if missing:
        raise RuntimeError(f"fans without a detector: {missing}")


_check_registry()
