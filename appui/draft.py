"""The manual scorer's hand under construction: a frozen value, changed one click at a time.

Every change returns a new `Draft` or raises `HandError` with a message a player understands
(a fifth copy of a tile, a chow that cannot start at that tile, a full standing hand, ...).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum

from scoring.hand import Hand, HandError, Meld, WinContext
from scoring.tiles import Tile

MAX_MELDS = 4
HAND_SIZE = 13


class Target(str, Enum):
    """Where a click on the palette puts the tile."""

    STANDING = "standing"
    WIN = "win"
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"
    CONCEALED_KONG = "concealed_kong"


@dataclass(frozen=True)
class Draft:
    melds: tuple[Meld, ...] = ()
    standing: tuple[Tile, ...] = ()
    win_tile: Tile | None = None

    @property
    def standing_needed(self) -> int:
        """How many standing tiles (winning tile excluded) the melds leave room for."""
        return HAND_SIZE - 3 * len(self.melds)

    def tile_counts(self) -> Counter[Tile]:
        tiles = [t for m in self.melds for t in m.tiles] + list(self.standing)
        if self.win_tile is not None:
            tiles.append(self.win_tile)
        return Counter(tiles)

    def add(self, tile: Tile, target: Target) -> Draft:
        if target is Target.STANDING:
            if len(self.standing) >= self.standing_needed:
                raise HandError(
                    f"the standing hand is full: with {len(self.melds)} meld(s) it holds "
                    f"{self.standing_needed} tiles plus the winning tile"
                )
            return self._checked(replace(self, standing=(*self.standing, tile)), tile)
        if target is Target.WIN:
            return self._checked(replace(self, win_tile=tile), tile)
        return self._add_meld(_meld_for(tile, target))

    def _add_meld(self, meld: Meld) -> Draft:
        if len(self.melds) >= MAX_MELDS:
            raise HandError("a hand has at most 4 melds")
        new = replace(self, melds=(*self.melds, meld))
        if len(new.standing) > new.standing_needed:
            raise HandError(
                f"no room for another meld: take out {len(new.standing) - new.standing_needed} "
                "standing tile(s) first"
            )
        return new._checked(new, *meld.tiles)

    def _checked(self, new: Draft, *added: Tile) -> Draft:
        counts = new.tile_counts()
        for tile in added:
            if counts[tile] > 4:
                raise HandError(f"there are only 4 of {tile} in a set; this hand would hold {counts[tile]}")
        return new

    def without_standing(self, index: int) -> Draft:
        return replace(self, standing=self.standing[:index] + self.standing[index + 1 :])

    def without_meld(self, index: int) -> Draft:
        return replace(self, melds=self.melds[:index] + self.melds[index + 1 :])

    def without_win(self) -> Draft:
        return replace(self, win_tile=None)

    def missing(self) -> str | None:
        """None when the draft has the right number of tiles; else the first thing missing, in words."""
        if self.win_tile is None:
            return "need_win"
        if len(self.standing) != self.standing_needed:
            return "need_more" if len(self.standing) < self.standing_needed else "too_many"
        return None

    def to_hand(self, context: WinContext) -> Hand:
        """The validated hand, or HandError saying what is missing or wrong."""
        if self.win_tile is None:
            raise HandError("pick the winning tile")
        return Hand(self.melds, self.standing, self.win_tile, context).validate()

    @staticmethod
    def from_hand(hand: Hand) -> Draft:
        return Draft(hand.melds, hand.concealed, hand.win_tile)


def _meld_for(tile: Tile, target: Target) -> Meld:
    if target is Target.CHOW:
        if tile.next_in_suit(2) is None:
            raise HandError(f"a chow cannot start at {tile}: pick the lowest of three consecutive suited tiles")
        return Meld.chow(tile)
    if target is Target.PUNG:
        return Meld.pung(tile)
    if target is Target.KONG:
        return Meld.kong(tile)
    if target is Target.CONCEALED_KONG:
        return Meld.kong(tile, concealed=True)
    raise ValueError(f"not a meld target: {target}")
