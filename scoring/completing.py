"""Which tiles complete a hand of 3n+1 tiles, by shape alone: to sets and a pair, or to seven pairs.

Tiles are the codes of `scoring.codes` and a hand their counts.  The fan detectors ask it whether a
winning tile was the only one the hand waited on (the wait fans); `scoring.waits` is what a player is
shown: the tiles that make a winning hand, each scored.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from .codes import ALL_CODES


def completing_tiles(counts: list[int], *, seven_pairs: bool) -> list[int]:
    """Tiles that complete `counts` (3n+1 tiles) to sets and a pair, or seven pairs, in code order.

    By shape only, as the reference calculator: a tile the hand already holds four of still counts.
    Each suit is solved alone (cached): a tile completes the hand when its suit reaches the state
    (sets only, or sets and the pair) that the other suits and the honors leave for it."""
    return sorted(set(_completing(counts, seven_pairs=seven_pairs)))


def only_completing(counts: list[int], tile: int, *, seven_pairs: bool, present: tuple[int, ...] = ALL_CODES) -> bool:
    """Whether `completing_tiles(counts)` is `[tile]`, stopping at the first other tile that completes the hand."""
    found = False
    for t in _completing(counts, seven_pairs=seven_pairs, present=present):
        if t != tile:
            return False
        found = True
    return found


def _completing(counts: list[int], *, seven_pairs: bool, present: tuple[int, ...] = ALL_CODES) -> Iterator[int]:
    """The tiles of `completing_tiles`, unsorted and maybe repeated, one suit at a time (a caller may stop early).

    `present`: the codes, in order, of at least every tile `counts` holds (an absent honor is in
    the state of no tiles, so only the held ones are looked at)."""
    groups = (tuple(counts[1:10]), tuple(counts[11:20]), tuple(counts[21:30]))
    states = (_group_state(groups[0]), _group_state(groups[1]), _group_state(groups[2]))
    honors = [t for t in present if t > 30 and counts[t]]
    honor_states = [_HONOR_STATE[min(counts[t], 4)] for t in honors]
    honors_bad = honor_states.count(-1)
    total = sum(states) + sum(honor_states)
    if honors_bad == 0:
        for block in range(3):
            target = 1 - (total - states[block])
            if target in (0, 1) and min(states[(block + 1) % 3], states[(block + 2) % 3]) >= 0:
                for r in _suit_waits_anywhere(groups[block], target):
                    yield 10 * block + r
    if min(states) >= 0:
        for t, old in zip(honors, honor_states, strict=False):
            new = _HONOR_STATE[min(counts[t] + 1, 4)]
            if new >= 0 and honors_bad - (old < 0) == 0 and total - old + new == 1:
                yield t
    if seven_pairs:
        odd = [t for t in present if counts[t] % 2]
        if len(odd) == 1:  # six pairs and this single tile
            yield odd[0]


_HONOR_STATE = (0, -1, 1, 0, -1)  # by count: none, single (bad), pair, pung, four (bad)


@cache
def _suit_waits_anywhere(group: tuple[int, ...], target: int) -> tuple[int, ...]:
    """Ranks (1..9) whose tile brings this suit to `target` (0 sets only, 1 sets and a pair).

    Solved on the tiles with at most two empty ranks either side (a wait is never further away),
    so that the same shape anywhere in the suit shares one cached answer."""
    lead = 0
    while lead < 9 and not group[lead]:
        lead += 1
    if lead == 9:
        return ()
    trail = 0
    while not group[8 - trail]:
        trail += 1
    start = lead - min(lead, 2)
    return tuple(r + start for r in _suit_waits(group[start: 9 - trail + min(trail, 2)], target))


@cache
def _suit_waits(group: tuple[int, ...], target: int) -> tuple[int, ...]:
    """Ranks (1..len(group)) whose tile brings `group` to `target` (0 sets only, 1 sets and a pair)."""
    if (sum(group) + 1) % 3 != 2 * target:  # sets only need a multiple of 3 tiles, sets and a pair 3n + 2
        return ()
    size = len(group)
    return tuple([w + 1 for w in sorted(_waits_in(group, target == 1)) if 0 <= w < size])


@cache
def _waits_in(g: tuple[int, ...], need_pair: bool) -> frozenset[int]:
    """Indices w (maybe just outside g) where one more tile makes `g` sets (and a pair when `need_pair`).

    One pass over the ways to divide `g` (instead of trying every tile): its lowest tile lies in a
    set, in the pair, or in the one unfinished block that the waited tile completes."""
    i = next((k for k, n in enumerate(g) if n), None)
    if i is None:
        return frozenset()
    n = len(g)
    out: set[int] = set()
    # the lowest tile in the unfinished block
    if g[i] >= 2 and _divides(_less(g, i, 2), need_pair):
        out.add(i)  # two alike wait for the third
    if i + 1 < n and g[i + 1] and _divides(_less(_less(g, i, 1), i + 1, 1), need_pair):
        out.update((i - 1, i + 2))  # two in a row wait at either end
    if i + 2 < n and g[i + 2] and _divides(_less(_less(g, i, 1), i + 2, 1), need_pair):
        out.add(i + 1)  # a gap waits for its middle
    if need_pair and _divides(_less(g, i, 1), False):
        out.add(i)  # a single waits for its pair
    # the lowest tile in a finished set or in the pair: the unfinished block lies further on
    if g[i] >= 3:
        out |= _waits_in(_less(g, i, 3), need_pair)
    if i + 2 < n and g[i + 1] and g[i + 2]:
        out |= _waits_in(_chow_less(g, i), need_pair)
    if need_pair and g[i] >= 2:
        out |= _waits_in(_less(g, i, 2), False)
    return frozenset(out)


@cache
def _divides(g: tuple[int, ...], need_pair: bool) -> bool:
    """Whether `g` is sets only, or sets and one pair when `need_pair`."""
    i = next((k for k, n in enumerate(g) if n), None)
    if i is None:
        return not need_pair
    if need_pair and g[i] >= 2 and _divides(_less(g, i, 2), False):
        return True
    if g[i] >= 3 and _divides(_less(g, i, 3), need_pair):
        return True
    return i + 2 < len(g) and g[i + 1] > 0 and g[i + 2] > 0 and _divides(_chow_less(g, i), need_pair)


def _less(g: tuple[int, ...], i: int, n: int) -> tuple[int, ...]:
    return (*g[:i], g[i] - n, *g[i + 1:])


def _chow_less(g: tuple[int, ...], i: int) -> tuple[int, ...]:
    return (*g[:i], g[i] - 1, g[i + 1] - 1, g[i + 2] - 1, *g[i + 3:])


@cache
def _group_state(group: tuple[int, ...]) -> int:
    """0: sets only (or empty); 1: sets and one pair; -1: neither."""
    r = sum(group) % 3
    if r == 1:
        return -1
    core = _strip_zeros(group)  # the same shape anywhere in the suit: one cached answer
    if r == 0:
        return 0 if _divides(core, False) else -1
    return 1 if _divides(core, True) else -1


def _strip_zeros(group: tuple[int, ...]) -> tuple[int, ...]:
    lo, hi = 0, len(group)
    while lo < hi and not group[lo]:
        lo += 1
    while hi > lo and not group[hi - 1]:
        hi -= 1
    return group[lo:hi]
