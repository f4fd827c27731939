"""Tiles: a small frozen value whose string form is `5m`, `E`, `C`.

Order (and `index`) is the canonical one of `classes.txt`: 1m..9m, 1p..9p,
1s..9s, E S W N, C F P.  The 34 tiles are interned: `Tile.parse("5m") is
Tile.parse("5m")`.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS = "mps"
HONOR_NAMES = "ESWNCFP"
WIND_NAMES = "ESWN"
DRAGON_NAMES = "CFP"
SUIT_NAMES_EN = {"m": "characters", "p": "dots", "s": "bamboo"}


class TileError(ValueError):
    """An unknown tile name."""


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    index: int  # 0..33, canonical order

    @property
    def suit(self) -> str:
        """'m', 'p' or 's' for suited tiles, 'z' for honors."""
        return SUITS[self.index // 9] if self.index < 27 else "z"

    @property
    def rank(self) -> int:
        """1..9 for suited tiles; 1..7 (E S W N C F P) for honors."""
        return self.index % 9 + 1 if self.index < 27 else self.index - 26

    @property
    def is_suited(self) -> bool:
        return self.index < 27

    @property
    def is_honor(self) -> bool:
        return self.index >= 27

    @property
    def is_wind(self) -> bool:
        return 27 <= self.index <= 30

    @property
    def is_dragon(self) -> bool:
        return self.index >= 31

    @property
    def is_terminal(self) -> bool:
        return self.is_suited and self.rank in (1, 9)

    @property
    def is_terminal_or_honor(self) -> bool:
        return self.is_honor or self.rank in (1, 9)

    @property
    def name(self) -> str:
        if self.index < 27:
            return f"{self.rank}{self.suit}"
        return HONOR_NAMES[self.index - 27]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Tile({self.name})"

    @staticmethod
    def parse(name: str) -> Tile:
        try:
            return _BY_NAME[name]
        except (KeyError, TypeError):
            raise TileError(
                f"unknown tile {name!r}: use 1m-9m, 1p-9p, 1s-9s, E S W N, C F P"
            ) from None

    @staticmethod
    def suited(rank: int, suit: str) -> Tile:
        return ALL_TILES[SUITS.index(suit) * 9 + rank - 1]

    def next_in_suit(self, step: int = 1) -> Tile | None:
        """The suited tile `step` ranks higher, or None past 9 / for honors."""
        if not self.is_suited or not 1 <= self.rank + step <= 9:
            return None
        return ALL_TILES[self.index + step]


ALL_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(34))
_BY_NAME: dict[str, Tile] = {t.name: t for t in ALL_TILES}
WINDS: tuple[Tile, ...] = tuple(Tile.parse(n) for n in WIND_NAMES)
DRAGONS: tuple[Tile, ...] = tuple(Tile.parse(n) for n in DRAGON_NAMES)
TILE_NAMES: tuple[str, ...] = tuple(t.name for t in ALL_TILES)
