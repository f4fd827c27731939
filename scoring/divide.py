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
from functools import cache
from itertools import product
from operator import itemgetter
from typing import NamedTuple

from .codes import (
    ALL_CODES,
    CODE_OF_INDEX,
    KNITTED_STRAIGHTS,
    THIRTEEN_ORPHANS,
    name,
)
from .fans import FanId

CHOW, PUNG, KONG, PAIR = "chow", "pung", "kong", "pair"
_TILE_ORDER = {c: i for i, c in enumerate(CODE_OF_INDEX)}  # the canonical order of `tiles.ALL_TILES`


class Block(NamedTuple):
    """One set or the pair. `tile` is the middle tile of a chow."""

    kind: str
    tile: int
    exposed: bool  # claimed from another player (an exposed pung, chow or kong)
    declared: bool  # one of the declared melds (a concealed kong too)

    def tiles(self) -> tuple[int, ...]:
        return block_tiles(self)

    def describe(self) -> str:
        return _describe_block(self)


@cache
def block_tiles(b: Block) -> tuple[int, ...]:
    t = b.tile
    if b.kind == CHOW:
        return (t - 1, t, t + 1)
    return (t,) * {PUNG: 3, KONG: 4, PAIR: 2}[b.kind]


@dataclass(frozen=True, slots=True)
class Decomposition:
    kind: str
    blocks: tuple[Block, ...] = ()  # standard: 4 sets then the pair; knitted_straight: the 4th set then the pair
    knitted: tuple[int, ...] = ()  # the nine knitted tiles of 组合龙 (knitted_straight)
    tiles: tuple[int, ...] = ()  # the fourteen tiles, for the shapes without sets
    implied: tuple[tuple[int, int], ...] = ()  # (fan id, count) read into the shape itself (nine gates)

    def describe(self) -> str:
        if self.kind == "standard":
            return _describe_blocks(self.blocks)
        if self.kind == "knitted_straight":
            body = _format_codes(sorted(self.knitted, key=_TILE_ORDER.__getitem__))
            return f"knitted straight: {body} " + " ".join(b.describe() for b in self.blocks)
        label = self.kind.replace("_", " ")
        tiles = sorted(self.tiles, key=_TILE_ORDER.__getitem__)
        if self.kind == "seven_pairs":
            return f"{label}: " + " ".join(_format_codes((c, c)) for c in tiles[::2])
        return f"{label}: {_format_codes(tiles)}"


def _describe_blocks(blocks: tuple[Block, ...]) -> str:
    """Declared melds as given, then the standing sets in tile order, the pair last (as the divider orders them)."""
    return " ".join([_describe_block(b) for b in blocks])


@cache
def _describe_block(b: Block) -> str:
    body = _format_codes(b.tiles())
    if b.declared:
        return f"({body})" if not b.exposed else f"[{body}]"
    return body


def _format_codes(codes: tuple[int, ...] | list[int]) -> str:
    """`1m 2m 3m 5p E` -> '123m5pE': runs of one suit share their letter."""
    out: list[str] = []
    last = len(codes) - 1
    for i, c in enumerate(codes):
        out.append(_LABEL[c])
        if c < 30 and (i == last or codes[i + 1] // 10 != c // 10):
            out.append(_SUIT_LETTER[c])
    return "".join(out)


_LABEL = {c: name(c) if c > 30 else str(c % 10) for c in ALL_CODES}
_SUIT_LETTER = {c: name(c)[1] for c in ALL_CODES if c < 30}


# --- standard readings ---------------------------------------------------------------------------


def standard_readings(fixed: tuple[Block, ...], standing: list[int]) -> list[tuple[Block, ...]]:
    """All (4 sets + pair) readings of `standing` (counts incl. the winning tile) after the declared `fixed` sets.

    Each suit is divided alone (cached); the readings are listed in the reference calculator's
    order (its recursive divider takes the sets in increasing order of their tiles, pungs first).
    """
    per_group: list[tuple[tuple[tuple[Block, ...], Block | None], ...]] = []
    for base in (0, 10, 20):
        group = tuple(standing[base + 1: base + 10])
        if any(group):
            options = _suit_readings(base, group)
            if not options:
                return []
            per_group.append(options)
    honors: list[Block] = []
    honor_pair: list[Block] = []
    for t in range(31, 38):
        n = standing[t]
        if n == 3:
            honors.append(_BLOCK[PUNG, t])
        elif n == 2:
            honor_pair.append(_BLOCK[PAIR, t])
        elif n:
            return []
    found: list[tuple[tuple[int, ...], tuple[Block, ...]]] = []
    for combo in product(*per_group):
        sets = [b for blocks, _ in combo for b in blocks] + honors
        pairs = [p for _, p in combo if p is not None] + honor_pair
        if len(pairs) != 1 or len(sets) + len(fixed) != 4:
            continue
        sets.sort(key=_DISPLAY_KEY.__getitem__)
        found.append((tuple(sorted([_EIGEN[b] for b in sets])), fixed + tuple(sets) + (pairs[0],)))
    found.sort(key=itemgetter(0))
    return [reading for _, reading in found]


def _eigen(b: Block) -> int:
    """The reference's order of sets: by their tiles (a pung of t before a chow starting at t)."""
    t = b.tile
    return t * 10101 if b.kind == PUNG else (t - 1) * 10000 + t * 100 + t + 1


class _EigenTable(dict):
    def __missing__(self, b: Block) -> int:
        self[b] = e = _eigen(b)
        return e


_EIGEN = _EigenTable()


class _DisplayKeyTable(dict):
    def __missing__(self, b: Block) -> tuple[int, str]:
        self[b] = key = _display_key(b)
        return key


_DISPLAY_KEY = _DisplayKeyTable()


@cache
def _suit_readings(base: int, group: tuple[int, ...]) -> tuple[tuple[tuple[Block, ...], Block | None], ...]:
    """Every way to divide one suit's tiles into sets and at most one pair: ((sets, pair or None), ...)."""
    lead = next(i for i, n in enumerate(group) if n)
    last = max(i for i, n in enumerate(group) if n)
    first = base + lead + 1  # the code of the lowest tile
    return tuple(
        (
            tuple(_BLOCK[kind, first + i + (kind == CHOW)] for kind, i in sets),
            None if pair is None else _BLOCK[PAIR, first + pair],
        )
        for sets, pair in _suit_divisions(group[lead: last + 1])
    )


@cache
def _suit_divisions(group: tuple[int, ...]) -> tuple[tuple[tuple[tuple[str, int], ...], int | None], ...]:
    """The divisions of one suit's tiles (from its lowest tile, wherever it lies in the suit):
    ((((kind, index of the set's lowest tile), ...), index of the pair or None), ...)."""
    counts = list(group)
    total = sum(counts)
    if total % 3 == 1:
        return ()
    out: list[tuple[tuple[tuple[str, int], ...], int | None]] = []
    pair_options = [i for i, n in enumerate(counts) if n >= 2] if total % 3 == 2 else [None]
    for p in pair_options:
        if p is not None:
            counts[p] -= 2
        for sets in dict.fromkeys(tuple(sorted(x)) for x in _suit_sets_all(tuple(counts))):  # distinct multisets
            out.append((sets, p))
        if p is not None:
            counts[p] += 2
    return tuple(out)


_BLOCK: dict[tuple[str, int], Block] = {
    (kind, c): Block(kind, c, False, False) for kind in (CHOW, PUNG, PAIR) for c in ALL_CODES
}


@cache
def _suit_sets_all(group: tuple[int, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every division of one suit's tiles into pungs and chows: tuples of (kind, lowest rank index)."""
    i = next((k for k, n in enumerate(group) if n), None)
    if i is None:
        return ((),)
    out: list[tuple[tuple[str, int], ...]] = []
    g = list(group)
    if g[i] >= 3:
        g[i] -= 3
        out.extend(((PUNG, i), *rest) for rest in _suit_sets_all(tuple(g)))
        g[i] += 3
    if i + 2 < len(g) and g[i + 1] and g[i + 2]:
        g[i] -= 1
        g[i + 1] -= 1
        g[i + 2] -= 1
        out.extend(((CHOW, i), *rest) for rest in _suit_sets_all(tuple(g)))
    return tuple(out)


def _present(counts: list[int]) -> tuple[int, ...]:
    return tuple([c for c in ALL_CODES if counts[c]])


def _display_key(b: Block) -> tuple[int, str]:
    """Standing sets in the canonical tile order (characters, dots, bamboo, honors), chows before pungs."""
    return (_TILE_ORDER[b.tile - 1 if b.kind == CHOW else b.tile], b.kind)


# --- special shapes --------------------------------------------------------------------------------


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


_KNITTED_SETS = tuple((frozenset(seq), seq) for seq in KNITTED_STRAIGHTS)


def knitted_straight_reading(
    fixed: tuple[Block, ...], standing: list[int], present: tuple[int, ...]
) -> Decomposition | None:
    """组合龙 + one set + a pair (at most one declared meld), or None.  `present`: the standing tiles' codes."""
    if len(fixed) > 1 or len(present) < 9:
        return None
    have = set(present)
    seq = next((seq for tiles, seq in _KNITTED_SETS if tiles <= have), None)
    if seq is None:
        return None
    rest = list(standing)
    for t in seq:
        rest[t] -= 1
    body = (Block(CHOW, 0, False, False),) * 3  # placeholders: the knitted tiles count as three sets
    found = standard_readings(body + fixed, rest)
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
_STRAIGHT, _TWO_PUNGS, _SHORT, _TERMINAL_PUNG = (
    int(FanId.PURE_STRAIGHT), int(FanId.TWO_CONCEALED_PUNGS), int(FanId.SHORT_STRAIGHT),
    int(FanId.PUNG_OF_TERMINALS_OR_HONORS),
)
NINE_GATES_IMPLIED: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((_STRAIGHT, 1),), 9: ((_STRAIGHT, 1),),
    2: ((_TWO_PUNGS, 1), (_SHORT, 1), (_TERMINAL_PUNG, 1)), 8: ((_TWO_PUNGS, 1), (_SHORT, 1), (_TERMINAL_PUNG, 1)),
    5: ((_TWO_PUNGS, 1), (_TERMINAL_PUNG, 1)),
    3: ((_SHORT, 1),), 4: ((_SHORT, 1),), 6: ((_SHORT, 1),), 7: ((_SHORT, 1),),
}


def decompositions(
    fixed: tuple[Block, ...], standing: list[int], win: int, unique: tuple[int, ...]
) -> list[Decomposition]:
    """Every reading of the hand, special shapes first (see the module docstring)."""
    special: Decomposition | None = None
    present = unique if not fixed else _present(standing)
    if not fixed:
        if not [c for c in present if standing[c] % 2]:
            special = Decomposition("seven_pairs", tiles=_tiles(standing, present))
        elif honors_knitted_tiles(unique):
            special = Decomposition("honors_knitted", tiles=_tiles(standing, present))
        elif is_thirteen_orphans(unique):
            special = Decomposition("thirteen_orphans", tiles=_tiles(standing, present))
    if special is None and len(fixed) <= 1:
        special = knitted_straight_reading(fixed, standing, present)
    if special is None and not fixed and len(unique) == 9 and nine_gates_rank(standing, win):
        special = Decomposition(
            "nine_gates", tiles=_tiles(standing, present), implied=NINE_GATES_IMPLIED[win % 10]
        )
    out = [special] if special is not None else []
    if special is None or special.kind == "seven_pairs":
        out.extend([Decomposition("standard", r) for r in standard_readings(fixed, standing)])
    return out


def _tiles(standing: list[int], present: tuple[int, ...]) -> tuple[int, ...]:
    return tuple([c for c in present for _ in range(standing[c])])
