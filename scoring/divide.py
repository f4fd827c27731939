"""The divider: every way to read a winning hand.

Readings (`Decomposition.kind`):

- ``standard``: four sets and a pair (the declared melds first);
- ``seven_pairs`` (七对, also 连七对);
- ``thirteen_orphans`` (十三幺);
- ``honors_knitted``: 全不靠 / 七星不靠, fourteen single tiles;
- ``knitted_straight``: 组合龙 with one more set and a pair;
- ``nine_gates`` (九莲宝灯), read as the reference calculator does.

The special shapes are tried first, as the reference does; the standard
readings are listed when no special shape fits, or beside seven pairs (a
standard reading can outscore it).  Everything works on count arrays indexed
by `codes` tile codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from .codes import ALL_CODES, CODE_OF_INDEX, HONORS, KNITTED_STRAIGHTS, SIZE, THIRTEEN_ORPHANS, name

CHOW, PUNG, KONG, PAIR = "chow", "pung", "kong", "pair"
_TILE_ORDER = {c: i for i, c in enumerate(CODE_OF_INDEX)}  # the canonical order of `tiles.ALL_TILES`


class Block(NamedTuple):
    """One set or the pair. `tile` is the middle tile of a chow."""

    kind: str
    tile: int
    exposed: bool  # claimed from another player (an exposed pung, chow or kong)
    declared: bool  # one of the declared melds (a concealed kong too)

    def tiles(self) -> tuple[int, ...]:
        t = self.tile
        if self.kind == CHOW:
            return (t - 1, t, t + 1)
        return (t,) * {PUNG: 3, KONG: 4, PAIR: 2}[self.kind]

    def describe(self) -> str:
        return _describe_block(self)


@dataclass(frozen=True, slots=True)
class Decomposition:
    kind: str
    blocks: tuple[Block, ...] = ()  # standard: 4 sets then the pair; knitted_straight: the 4th set then the pair
    knitted: tuple[int, ...] = ()  # the nine knitted tiles of 组合龙 (knitted_straight)
    tiles: tuple[int, ...] = ()  # the fourteen tiles, for the shapes without sets
    implied: tuple[tuple[int, int], ...] = ()  # (fan id, count) read into the shape itself (nine gates)

    def describe(self) -> str:
        if self.kind == "standard":
            return " ".join(b.describe() for b in _display_order(self.blocks))
        if self.kind == "knitted_straight":
            body = _format_codes(sorted(self.knitted, key=_TILE_ORDER.__getitem__))
            return f"knitted straight: {body} " + " ".join(b.describe() for b in self.blocks)
        label = self.kind.replace("_", " ")
        tiles = sorted(self.tiles, key=_TILE_ORDER.__getitem__)
        if self.kind == "seven_pairs":
            return f"{label}: " + " ".join(_format_codes((c, c)) for c in tiles[::2])
        return f"{label}: {_format_codes(tiles)}"


def _display_order(blocks: tuple[Block, ...]) -> list[Block]:
    """Declared melds as given, then the standing sets in tile order (characters, dots, bamboo, honors), the pair last."""
    declared = [b for b in blocks if b.declared]
    standing = sorted((b for b in blocks if not b.declared and b.kind != PAIR), key=lambda b: _TILE_ORDER[b.tile])
    return declared + standing + [b for b in blocks if b.kind == PAIR]


@lru_cache(maxsize=None)
def _describe_block(b: Block) -> str:
    body = _format_codes(b.tiles())
    if b.declared:
        return f"({body})" if not b.exposed else f"[{body}]"
    return body


def _format_codes(codes: tuple[int, ...] | list[int]) -> str:
    out: list[str] = []
    for i, c in enumerate(codes):
        if c in HONORS:
            out.append(name(c))
            continue
        out.append(str(c % 10))
        if i + 1 == len(codes) or codes[i + 1] // 10 != c // 10:
            out.append(name(c)[1])
    return "".join(out)


# --- standard readings ---------------------------------------------------------------------------


def standard_readings(fixed: tuple[Block, ...], standing: list[int]) -> list[tuple[Block, ...]]:
    """All (4 sets + pair) readings of `standing` (counts incl. the winning tile) after the declared `fixed` sets.

    The order and the de-duplication follow the reference calculator's recursive divider.
    """
    counts = list(standing)
    if not any(n >= 2 for n in counts):
        return []
    found: list[tuple[Block, ...]] = []
    seen: set[tuple[Block, ...]] = set()
    work: list[Block] = list(fixed)
    _divide(counts, _present(counts), len(fixed), 0, work, found, seen)
    return found


def _present(counts: list[int]) -> tuple[int, ...]:
    return tuple(c for c in ALL_CODES if counts[c])


def _divide(
    counts: list[int], present: tuple[int, ...], fixed_cnt: int, prev: int, work: list[Block], found: list, seen: set
) -> None:
    if len(work) == 4:
        _take_pair(counts, present, fixed_cnt, work, found, seen)
        return
    first = prev // 10000  # a set whose first tile is below the previous set's cannot follow it (reference order)
    for t in present:
        if t < first:
            continue
        n = counts[t]
        if n == 0:
            continue
        if n >= 3:
            eigen = t * 10101
            if eigen > prev:
                counts[t] -= 3
                work.append(Block(PUNG, t, False, False))
                _divide(counts, present, fixed_cnt, eigen, work, found, seen)
                work.pop()
                counts[t] += 3
        if t < 30 and t % 10 < 8 and counts[t + 1] and counts[t + 2]:
            eigen = t * 10000 + (t + 1) * 100 + t + 2
            if eigen >= prev:
                counts[t] -= 1
                counts[t + 1] -= 1
                counts[t + 2] -= 1
                work.append(Block(CHOW, t + 1, False, False))
                _divide(counts, present, fixed_cnt, eigen, work, found, seen)
                work.pop()
                counts[t] += 1
                counts[t + 1] += 1
                counts[t + 2] += 1


def _take_pair(
    counts: list[int], present: tuple[int, ...], fixed_cnt: int, work: list[Block], found: list, seen: set
) -> None:
    left = [t for t in present if counts[t]]
    if len(left) != 1 or counts[left[0]] != 2:
        return
    pair = left[0]
    standing_sets = tuple(sorted(work[fixed_cnt:], key=_block_order))
    reading = tuple(work[:fixed_cnt]) + standing_sets + (Block(PAIR, pair, False, False),)
    key = reading[fixed_cnt:]
    if key not in seen:
        seen.add(key)
        found.append(reading)


_KIND_ORDER = {CHOW: 0, PUNG: 1, KONG: 2, PAIR: 3}


def _block_order(b: Block) -> tuple[int, int]:
    # the reference sorts packed integers: the tile in the low byte, the set type above it
    return (_KIND_ORDER[b.kind], b.tile)


# --- special shapes --------------------------------------------------------------------------------


def is_seven_pairs(standing: list[int], present: tuple[int, ...]) -> bool:
    return all(standing[c] % 2 == 0 for c in present)


def is_thirteen_orphans(unique: tuple[int, ...]) -> bool:
    return unique == THIRTEEN_ORPHANS


def honors_knitted_tiles(unique: tuple[int, ...]) -> bool:
    """14 different tiles: honors and knitted suited tiles (全不靠 / 七星不靠)."""
    if len(unique) != 14:
        return False
    suited = [c for c in unique if c < 30]
    if not 7 <= len(suited) <= 9:
        return False
    return any(set(suited) <= set(seq) for seq in KNITTED_STRAIGHTS)


def knitted_straight_reading(fixed: tuple[Block, ...], standing: list[int]) -> Decomposition | None:
    """组合龙 + one set + a pair (at most one declared meld), or None."""
    if len(fixed) > 1 or not any(n >= 2 for n in standing):
        return None
    seq = next((s for s in KNITTED_STRAIGHTS if all(standing[t] for t in s)), None)
    if seq is None:
        return None
    rest = list(standing)
    for t in seq:
        rest[t] -= 1
    found: list[tuple[Block, ...]] = []
    work: list[Block] = [Block(CHOW, 0, False, False)] * 3 + list(fixed)  # three placeholders for the knitted body
    _divide(rest, _present(rest), len(work), 0, work, found, set())
    if len(found) != 1:
        return None
    return Decomposition("knitted_straight", found[0][3:], knitted=seq)


def nine_gates_rank(standing: list[int], win: int) -> int:
    """The winning tile's rank when the standing hand is 1112345678999 + one tile of that suit, else 0."""
    if win > 30:
        return 0
    base = win - win % 10
    expect = [0, 3, 1, 1, 1, 1, 1, 1, 1, 3]
    expect[win % 10] += 1
    if any(standing[base + r] != expect[r] for r in range(1, 10)):
        return 0
    if sum(standing) != 14:
        return 0
    return win % 10


# Nine Gates: the fans the reference calculator adds for the winning tile's rank
# (和1、9加计清龙; 和2、5、8加计双暗刻、幺九刻; 和2、3、4、6、7、8加计连六; Tile Hog comes from the tiles).
NINE_GATES_IMPLIED: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((28, 1),), 9: ((28, 1),),
    2: ((66, 1), (71, 1), (73, 1)), 8: ((66, 1), (71, 1), (73, 1)),
    5: ((66, 1), (73, 1)),
    3: ((71, 1),), 4: ((71, 1),), 6: ((71, 1),), 7: ((71, 1),),
}


def decompositions(
    fixed: tuple[Block, ...], standing: list[int], win: int, unique: tuple[int, ...]
) -> list[Decomposition]:
    """Every reading of the hand, special shapes first (see the module docstring)."""
    special: Decomposition | None = None
    tiles14 = tuple(c for c in ALL_CODES for _ in range(standing[c])) if not fixed else ()
    if not fixed:
        if is_seven_pairs(standing, _present(standing)):
            special = Decomposition("seven_pairs", tiles=tiles14)
        elif honors_knitted_tiles(unique):
            special = Decomposition("honors_knitted", tiles=tiles14)
        elif is_thirteen_orphans(unique):
            special = Decomposition("thirteen_orphans", tiles=tiles14)
    if special is None and len(fixed) <= 1:
        special = knitted_straight_reading(fixed, standing)
    if special is None and not fixed and nine_gates_rank(standing, win):
        special = Decomposition("nine_gates", tiles=tiles14, implied=NINE_GATES_IMPLIED[win % 10])
    out = [special] if special is not None else []
    if special is None or special.kind == "seven_pairs":
        out.extend(Decomposition("standard", r) for r in standard_readings(fixed, standing))
    return out
