"""How far a hand is from complete (shanten), and the discards and draws that bring it closer.

The measure: of the tiles held, at most `used` can be kept in some complete hand (sets and a
pair, or one of MCR's special shapes); the complete hand needs `target` standing tiles; the
shanten number is `target - used - 1`.  So a complete hand is -1, a ready hand 0, and a
13-tile hand n steps away needs n + 1 draws that it keeps.  This is the usual shanten for 13 and
14 tiles, and stays honest for a hand seen in part: with `n` standing tiles the hand is taken
to need `min(4 - melds, n // 3)` more sets and a pair (the rest are melds out of view), so 10
tiles are a hand with one meld elsewhere and 9 tiles lack one tile to be that.

Shapes: four sets and a pair, and, for a hand with all sets still to make, seven pairs (four of
a kind counts as two pairs), thirteen orphans, honors and knitted tiles (全不靠); knitted
straight (组合龙) with up to one meld.  As usual for shanten, a fifth copy of a tile is not ruled
out: four copies held still count a wait on that tile as one step (the waits of `scoring.waits`
do rule it out).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import permutations

from .hand import count_tiles
from .tiles import ALL_TILES, Tile

MAX_SETS = 4
_NO = -1  # a (sets, pair) combination the tiles cannot make
_ORPHANS: tuple[int, ...] = (0, 8, 9, 17, 18, 26, *range(27, 34))
_HONORS: tuple[int, ...] = tuple(range(27, 34))
# the six knitted sequences: 147 in one suit, 258 in another, 369 in the third
_KNITS: tuple[frozenset[int], ...] = tuple(
    frozenset(9 * suit + start + 3 * k for suit, start in zip(order, range(3), strict=False) for k in range(3))
    for order in permutations(range(3))
)

Table = tuple[tuple[int, ...], ...]  # [sets 0..4][pair 0/1] -> most tiles used in blocks of two or three


@dataclass(frozen=True, slots=True)
class Discard:
    """A tile to let go of, how far the hand is then, and the draws that would bring it a step closer."""

    tile: Tile
    shanten: int
    useful: tuple[Tile, ...]


def sets_needed(standing: int, melds: int = 0) -> int:
    """Sets still to make with `standing` tiles and `melds` melds (see the module docstring)."""
    return max(0, min(MAX_SETS - melds, standing // 3))


def shanten(standing: Iterable[Tile], melds: int = 0) -> int:
    """-1 complete, 0 ready, n: n more steps (draws kept) to ready, for the standing tiles and `melds` melds."""
    return _shanten(tuple(count_tiles(standing)), melds)


def standard_shanten(standing: Iterable[Tile], melds: int = 0) -> int:
    """The shanten of the sets-and-a-pair shape alone."""
    counts = tuple(count_tiles(standing))
    sets = sets_needed(sum(counts), melds)
    return 3 * sets + 1 - _standard_used(counts, sets)


def useful_tiles(standing: Iterable[Tile], melds: int = 0) -> tuple[Tile, ...]:
    """The draws that bring the hand one step closer (for a hand waiting to draw: 13, 10, 7... tiles)."""
    counts = list(count_tiles(standing))
    now = _shanten(tuple(counts), melds)
    found = []
    for tile in ALL_TILES:
        counts[tile.index] += 1
        if _shanten(tuple(counts), melds) < now:
            found.append(tile)
        counts[tile.index] -= 1
    return tuple(found)


def best_discards(standing: Sequence[Tile], melds: int = 0) -> list[Discard]:
    """Every distinct discard, closest to complete first, then by how many kinds of draw would help."""
    counts = list(count_tiles(standing))
    out = []
    for index in sorted({t.index for t in standing}):
        counts[index] -= 1
        after = tuple(Tile(i) for i, c in enumerate(counts) for _ in range(c))
        out.append(Discard(Tile(index), _shanten(tuple(counts), melds), useful_tiles(after, melds)))
        counts[index] += 1
    return sorted(out, key=lambda d: (d.shanten, -len(d.useful), d.tile))


@cache
def _shanten(counts: tuple[int, ...], melds: int) -> int:
    sets = sets_needed(sum(counts), melds)
    target = 3 * sets + 2
    used = _standard_used(counts, sets)
    if sets == MAX_SETS - melds and sets == MAX_SETS:
        used = max(used, _seven_pairs_used(counts), _orphans_used(counts), _honors_knitted_used(counts))
    if sets >= 3:  # the nine knitted tiles stand for three sets; at most one meld, in view or not
        used = max(used, _knitted_straight_used(counts, sets - 3))
    return target - used - 1


def _standard_used(counts: tuple[int, ...], sets: int) -> int:
    """Most tiles a hand of `sets` sets and a pair can keep: blocks of two or three, then single tiles."""
    table = _combine(_combine(_suit(counts[0:9], True), _suit(counts[9:18], True)),
                     _combine(_suit(counts[18:27], True), _suit(counts[27:34], False)))
    held = sum(counts)
    best = 0
    for blocks in range(sets + 1):
        for pair in (0, 1):
            in_blocks = table[blocks][pair]
            if in_blocks != _NO:
                free_slots = (sets - blocks) + (1 - pair)  # each open set or pair keeps one single tile
                best = max(best, in_blocks + min(held - in_blocks, free_slots))
    return best


def _empty_table() -> list[list[int]]:
    return [[_NO, _NO] for _ in range(MAX_SETS + 1)]


def _combine(a: Table, b: Table) -> Table:
    out = _empty_table()
    for ca in range(MAX_SETS + 1):
        for pa in (0, 1):
            if a[ca][pa] == _NO:
                continue
            for cb in range(MAX_SETS + 1 - ca):
                for pb in range(2 - pa):
                    if b[cb][pb] != _NO:
                        out[ca + cb][pa + pb] = max(out[ca + cb][pa + pb], a[ca][pa] + b[cb][pb])
    return tuple(tuple(row) for row in out)


@cache
def _suit(counts: tuple[int, ...], runs: bool) -> Table:
    """For one suit (or the honors, `runs` False): [sets][pair] -> most tiles in blocks, where a set
    block is a pung, a chow, or two tiles of one (a pair, neighbours, a gap of one) and the pair block
    is a pair."""
    first = next((i for i, c in enumerate(counts) if c), None)
    if first is None:
        out = _empty_table()
        out[0][0] = 0
        return tuple(tuple(row) for row in out)
    best = [list(row) for row in _suit(_take(counts, (first,)), runs)]  # this copy kept in no block
    options: list[tuple[tuple[int, ...], int, int]] = []  # (tiles, sets, pair)
    if counts[first] >= 3:
        options.append(((first,) * 3, 1, 0))
    if counts[first] >= 2:
        options += [((first,) * 2, 1, 0), ((first,) * 2, 0, 1)]
    if runs:
        for shape in ((first, first + 1, first + 2), (first, first + 1), (first, first + 2)):
            if shape[-1] < 9 and all(counts[i] for i in shape[1:]):
                options.append((shape, 1, 0))
    for tiles, add_sets, add_pair in options:
        rest = _suit(_take(counts, tiles), runs)
        for c in range(MAX_SETS + 1 - add_sets):
            for p in range(2 - add_pair):
                if rest[c][p] != _NO:
                    cell = best[c + add_sets]
                    cell[p + add_pair] = max(cell[p + add_pair], rest[c][p] + len(tiles))
    return tuple(tuple(row) for row in best)


def _take(counts: tuple[int, ...], tiles: tuple[int, ...]) -> tuple[int, ...]:
    out = list(counts)
    for i in tiles:
        out[i] -= 1
    return tuple(out)


def _seven_pairs_used(counts: tuple[int, ...]) -> int:
    pairs = min(7, sum(c // 2 for c in counts))
    singles = sum(c % 2 for c in counts)
    return 2 * pairs + min(singles, 7 - pairs)


def _orphans_used(counts: tuple[int, ...]) -> int:
    kinds = sum(1 for i in _ORPHANS if counts[i])
    return kinds + (1 if any(counts[i] >= 2 for i in _ORPHANS) else 0)


def _honors_knitted_used(counts: tuple[int, ...]) -> int:
    honors = sum(1 for i in _HONORS if counts[i])
    return min(14, honors + max(sum(1 for i in knit if counts[i]) for knit in _KNITS))


def _knitted_straight_used(counts: tuple[int, ...], sets: int) -> int:
    """The nine knitted tiles and `sets` (1, or 0 beside a meld) more sets and a pair."""
    best = 0
    for knit in _KNITS:
        present = tuple(i for i in sorted(knit) if counts[i])
        best = max(best, len(present) + _standard_used(_take(counts, present), sets))
    return best
