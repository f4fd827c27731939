"""Fans made of several sets, counted by the account-once rule (套算一次).

The rulebook's two principles for fans that combine sets:

- 套算一次 (account once): a set not yet combined may be combined once with a
  set already used in a fan;
- 不得相同 (no repeats): sets that already made a fan cannot make the same
  fan again with another set.

So 234567s234567p counts Mixed Double Chow x2 + Short Straight x1 (or x1 and
x2), never x2 + x2; and 234s223344567p counts Pure Double Chow + Mixed Double
Chow + Short Straight, not Mixed Double Chow x2 + Short Straight.

As in the reference calculator: a fan of four chows (or pungs) takes all four
and nothing else is counted among them; a fan of three takes three and the
fourth set may combine once with one of them (the most valuable two-set fan);
otherwise the two-set fans are counted pairwise and, if more than the sets
allow, the surplus is dropped starting from the repeated, cheapest ones.

Tiles are `codes` tile codes; a chow is given by its middle tile.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations

from .codes import DRAGONS, C, E, F, N, P, S, W
from .fans import FanId

# fan ids, named once in scoring.fans.FanId; plain numbers here, as the scorer's dicts of fan counts are keyed
BIG_FOUR_WINDS = int(FanId.BIG_FOUR_WINDS)
BIG_THREE_DRAGONS = int(FanId.BIG_THREE_DRAGONS)
QUADRUPLE_CHOW = int(FanId.QUADRUPLE_CHOW)
FOUR_PURE_SHIFTED_PUNGS = int(FanId.FOUR_PURE_SHIFTED_PUNGS)
FOUR_PURE_SHIFTED_CHOWS = int(FanId.FOUR_PURE_SHIFTED_CHOWS)
PURE_TRIPLE_CHOW = int(FanId.PURE_TRIPLE_CHOW)
PURE_SHIFTED_PUNGS = int(FanId.PURE_SHIFTED_PUNGS)
PURE_STRAIGHT = int(FanId.PURE_STRAIGHT)
PURE_SHIFTED_CHOWS = int(FanId.PURE_SHIFTED_CHOWS)
TRIPLE_PUNG = int(FanId.TRIPLE_PUNG)
BIG_THREE_WINDS = int(FanId.BIG_THREE_WINDS)
MIXED_STRAIGHT = int(FanId.MIXED_STRAIGHT)
MIXED_TRIPLE_CHOW = int(FanId.MIXED_TRIPLE_CHOW)
MIXED_SHIFTED_PUNGS = int(FanId.MIXED_SHIFTED_PUNGS)
MIXED_SHIFTED_CHOWS = int(FanId.MIXED_SHIFTED_CHOWS)
TWO_DRAGON_PUNGS = int(FanId.TWO_DRAGON_PUNGS)
DOUBLE_PUNG = int(FanId.DOUBLE_PUNG)
PURE_DOUBLE_CHOW = int(FanId.PURE_DOUBLE_CHOW)
MIXED_DOUBLE_CHOW = int(FanId.MIXED_DOUBLE_CHOW)
SHORT_STRAIGHT = int(FanId.SHORT_STRAIGHT)
TWO_TERMINAL_CHOWS = int(FanId.TWO_TERMINAL_CHOWS)

# every fan counted here
COMBINATION_FANS = frozenset((
    BIG_FOUR_WINDS, BIG_THREE_DRAGONS, QUADRUPLE_CHOW, FOUR_PURE_SHIFTED_PUNGS, FOUR_PURE_SHIFTED_CHOWS,
    PURE_TRIPLE_CHOW, PURE_SHIFTED_PUNGS, PURE_STRAIGHT, PURE_SHIFTED_CHOWS, TRIPLE_PUNG, BIG_THREE_WINDS,
    MIXED_STRAIGHT, MIXED_TRIPLE_CHOW, MIXED_SHIFTED_PUNGS, MIXED_SHIFTED_CHOWS, TWO_DRAGON_PUNGS, DOUBLE_PUNG,
    PURE_DOUBLE_CHOW, MIXED_DOUBLE_CHOW, SHORT_STRAIGHT, TWO_TERMINAL_CHOWS,
))

# the two-chow fans, most valuable first: the order in which a surplus is kept
TWO_CHOW_FANS = (PURE_DOUBLE_CHOW, MIXED_DOUBLE_CHOW, SHORT_STRAIGHT, TWO_TERMINAL_CHOWS)


def _shifted(a: int, b: int, c: int, step: int) -> bool:
    return a + step == b and b + step == c


def four_chows_fan(t: tuple[int, ...]) -> int:
    """The fan of four chows (sorted middle tiles) taken together, or 0."""
    a, b, c, d = t
    if (_shifted(a, b, c, 2) and c + 2 == d) or (_shifted(a, b, c, 1) and c + 1 == d):
        return FOUR_PURE_SHIFTED_CHOWS
    if a == b == c == d:
        return QUADRUPLE_CHOW
    return 0


def three_chows_fan(a: int, b: int, c: int) -> int:
    """The fan of three chows (sorted middle tiles), or 0."""
    suits = {a // 10, b // 10, c // 10}
    if len(suits) == 3:
        ranks = sorted((a % 10, b % 10, c % 10))
        if _shifted(ranks[0], ranks[1], ranks[2], 1):
            return MIXED_SHIFTED_CHOWS
        if ranks[0] == ranks[2]:
            return MIXED_TRIPLE_CHOW
        if ranks == [2, 5, 8]:
            return MIXED_STRAIGHT
        return 0
    if _shifted(a, b, c, 3):
        return PURE_STRAIGHT
    if _shifted(a, b, c, 2) or _shifted(a, b, c, 1):
        return PURE_SHIFTED_CHOWS
    if a == b == c:
        return PURE_TRIPLE_CHOW
    return 0


def two_chows_fan(a: int, b: int) -> int:
    """The fan of two chows (middle tiles, any order), or 0."""
    if a // 10 != b // 10:
        return MIXED_DOUBLE_CHOW if a % 10 == b % 10 else 0
    if abs(a - b) == 3:
        return SHORT_STRAIGHT
    if {a % 10, b % 10} == {2, 8}:
        return TWO_TERMINAL_CHOWS
    if a == b:
        return PURE_DOUBLE_CHOW
    return 0


def _fourth_chow_fan(trio: tuple[int, ...], extra: int) -> int:
    """The one fan the fourth chow may add with one of the three (套算一次): the most valuable."""
    fans = {two_chows_fan(t, extra) for t in trio}
    return next((f for f in TWO_CHOW_FANS if f in fans), 0)


def _limit(pair_fans: list[int], max_count: int) -> dict[int, int]:
    """Keep at most `max_count` two-chow fans: first cut repeats down to one, then singles, cheapest first."""
    table = {f: pair_fans.count(f) for f in TWO_CHOW_FANS}
    count = sum(table.values())
    for keep in (1, 0):
        for f in reversed(TWO_CHOW_FANS):
            while table[f] > keep and count > max_count:
                table[f] -= 1
                count -= 1
    return {f: n for f, n in table.items() if n}


def chow_fans(mids: list[int]) -> dict[int, int]:
    """Fans among the chows of one hand (sorted middle tiles), by the account-once rule."""
    n = len(mids)
    if n == 4:
        fan = four_chows_fan(tuple(mids))
        if fan:
            return {fan: 1}
        for i in (3, 2, 1, 0):  # trios 012, 013, 023, 123, as the reference tries them
            trio = tuple(m for j, m in enumerate(mids) if j != i)
            fan = three_chows_fan(*trio)
            if fan:
                extra = _fourth_chow_fan(trio, mids[i])
                return {fan: 1, extra: 1} if extra else {fan: 1}
        pairs = [two_chows_fan(a, b) for a, b in combinations(mids, 2)]
        # every chow that combines with none of the others lowers the allowance by one
        related = [any(two_chows_fan(m, o) for j, o in enumerate(mids) if j != i) for i, m in enumerate(mids)]
        max_count = 3 - related.count(False)
        return _limit(pairs, max_count) if max_count > 0 else {}
    if n == 3:
        fan = three_chows_fan(*mids)
        if fan:
            return {fan: 1}
        return _limit([two_chows_fan(a, b) for a, b in combinations(mids, 2)], 2)
    if n == 2:
        fan = two_chows_fan(*mids)
        return {fan: 1} if fan else {}
    return {}


def four_pungs_fan(t: tuple[int, ...]) -> int:
    a, b, c, d = t
    if a < 30 and _shifted(a, b, c, 1) and c + 1 == d:
        return FOUR_PURE_SHIFTED_PUNGS
    if t == (E, S, W, N):
        return BIG_FOUR_WINDS
    return 0


def three_pungs_fan(a: int, b: int, c: int) -> int:
    """The fan of three pungs (sorted tiles), or 0."""
    if c < 30:
        if len({a // 10, b // 10, c // 10}) == 3:
            ranks = sorted((a % 10, b % 10, c % 10))
            if _shifted(ranks[0], ranks[1], ranks[2], 1):
                return MIXED_SHIFTED_PUNGS
            if ranks[0] == ranks[2]:
                return TRIPLE_PUNG
            return 0
        return PURE_SHIFTED_PUNGS if _shifted(a, b, c, 1) else 0
    if (a, b, c) in _THREE_WINDS:
        return BIG_THREE_WINDS
    if (a, b, c) == (C, F, P):
        return BIG_THREE_DRAGONS
    return 0


_THREE_WINDS = frozenset(combinations((E, S, W, N), 3))


def two_pungs_fan(a: int, b: int) -> int:
    if a < 30 and b < 30:
        return DOUBLE_PUNG if a % 10 == b % 10 else 0
    if a in DRAGONS and b in DRAGONS:
        return TWO_DRAGON_PUNGS
    return 0


def pung_fans(tiles: list[int]) -> dict[int, int]:
    """Fans among the pungs and kongs of one hand (sorted tiles), by the account-once rule."""
    out: dict[int, int] = {}
    n = len(tiles)
    if n == 4:
        fan = four_pungs_fan(tuple(tiles))
        if fan:
            return {fan: 1}
    if n >= 3:
        for i in range(n - 1, -1, -1) if n == 4 else (None,):
            trio = tuple(t for j, t in enumerate(tiles) if j != i)
            fan = three_pungs_fan(*trio)
            if fan:
                out[fan] = 1
                if i is not None:  # the fourth pung combines once, with the first that makes a fan
                    extra = next((f for f in (two_pungs_fan(t, tiles[i]) for t in trio) if f), 0)
                    if extra:
                        out[extra] = out.get(extra, 0) + 1
                return out
    for a, b in combinations(tiles, 2):
        fan = two_pungs_fan(a, b)
        if fan:
            out[fan] = out.get(fan, 0) + 1
    return out


def account_once(chow_mids: tuple[int, ...], pung_tiles: tuple[int, ...]) -> dict[int, int]:
    """All set-combination fans of one reading (sorted middle tiles of its chows, sorted tiles of its
    pungs and kongs): {fan id: count}.  Do not modify the returned dict (it may be a cached one).

    Chows and pungs never combine with each other, so each kind is worked out and cached on its
    own: far fewer different chow sets and pung sets than pairs of them, and plain dict caches
    (no per-entry nodes for the garbage collector to walk)."""
    chows, pungs = _chow_fans(chow_mids), _pung_fans(pung_tiles)
    if not pungs:
        return chows
    if not chows:
        return pungs
    return {**chows, **pungs}


@cache
def _chow_fans(chow_mids: tuple[int, ...]) -> dict[int, int]:
    return chow_fans(list(chow_mids))


@cache
def _pung_fans(pung_tiles: tuple[int, ...]) -> dict[int, int]:
    return pung_fans(list(pung_tiles))


def taken_by_larger(chow_mids: tuple[int, ...], pung_tiles: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The smaller set-combination fans that a fan of three or four sets took in (for the report):
    ((smaller fan id, larger fan id), ...) by smaller id, e.g. the Short Straights inside a Pure
    Straight.  Chows and pungs are looked at apart (their fans never mix), each kind cached."""
    chows, pungs = _taken_among_chows(chow_mids), _taken_among_pungs(pung_tiles)
    return tuple(sorted(chows + pungs)) if chows and pungs else chows or pungs


@cache
def _taken_among_chows(chow_mids: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return _taken(chow_mids, four_chows_fan, three_chows_fan, two_chows_fan)


@cache
def _taken_among_pungs(pung_tiles: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return _taken(pung_tiles, four_pungs_fan, three_pungs_fan, two_pungs_fan)


def _taken(
    sets: tuple[int, ...], four: Callable[[tuple[int, ...]], int], three: Callable[..., int], two: Callable[[int, int], int]
) -> tuple[tuple[int, int], ...]:
    big = four(sets) if len(sets) == 4 else 0
    taken: list[tuple[int, ...]]
    if big:
        taken = [sets]
    else:
        trios: list[tuple[int, ...]] = [t for t in combinations(sets, 3) if three(*t)] if len(sets) >= 3 else []
        if not trios:
            return ()
        taken = trios[:1]
        big = three(*taken[0])
    out: dict[int, int] = {}
    for group in taken:
        for trio in combinations(group, 3) if len(group) == 4 else ():
            small = three(*trio)
            if small and small != big:
                out.setdefault(small, big)
        for a, b in combinations(group, 2):
            small = two(a, b)
            if small:
                out.setdefault(small, big)
    return tuple(sorted(out.items()))
