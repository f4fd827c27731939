"""Integer tile codes for the scorer's hot path.

A code is `10 * block + rank`: characters 1..9, bamboo 11..19, dots 21..29,
honors 31..37 (E S W N C F P).  The gaps between suits keep `code + 1` and
`code + 3` inside one suit, and the order (characters, bamboo, dots, honors)
is the reference calculator's, so readings are listed and compared in the
same order as there.  Count arrays have `SIZE` entries indexed by code.
"""

from __future__ import annotations

from .tiles import ALL_TILES, Tile

SIZE = 38
E, S, W, N, C, F, P = 31, 32, 33, 34, 35, 36, 37

_BLOCK_OF_SUIT = {"m": 0, "s": 1, "p": 2}


def _code(tile: Tile) -> int:
    if tile.is_honor:
        return 30 + tile.rank
    return 10 * _BLOCK_OF_SUIT[tile.suit] + tile.rank


CODE_OF_INDEX: tuple[int, ...] = tuple(_code(t) for t in ALL_TILES)
TILE_OF_CODE: dict[int, Tile] = {_code(t): t for t in ALL_TILES}
ALL_CODES: tuple[int, ...] = tuple(sorted(TILE_OF_CODE))  # reference order

SUITED = frozenset(c for c in ALL_CODES if c < 30)
HONORS = frozenset(range(31, 38))
WINDS = frozenset((E, S, W, N))
DRAGONS = frozenset((C, F, P))
TERMINALS = frozenset(c for c in SUITED if c % 10 in (1, 9))
TERMINALS_OR_HONORS = TERMINALS | HONORS
GREEN = frozenset((12, 13, 14, 16, 18, F))  # 23468s and the green dragon
REVERSIBLE = frozenset((12, 14, 15, 16, 18, 19, 21, 22, 23, 24, 25, 28, 29, P))  # 245689s 1234589p white
THIRTEEN_ORPHANS = (1, 9, 11, 19, 21, 29, E, S, W, N, C, F, P)
# the six knitted straights 组合龙: 147, 258, 369 spread over the three suits
KNITTED_STRAIGHTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(10 * block + r for block, start in enumerate(starts) for r in (start, start + 3, start + 6))
    for starts in ((1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1))
)


def code(tile: Tile) -> int:
    return CODE_OF_INDEX[tile.index]


def name(c: int) -> str:
    return TILE_OF_CODE[c].name


def suit_block(c: int) -> int:
    """0 characters, 1 bamboo, 2 dots, 3 honors."""
    return c // 10


def rank(c: int) -> int:
    return c % 10
