"""Which win-context options the tiles make impossible, and why (pure; the pages disable them).

The scorer would ignore such flags with a warning (contracts.md); the app goes one step
earlier and greys them out, with the reason shown on hover.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scoring.hand import Meld, MeldKind
from scoring.tiles import Tile


@dataclass(frozen=True)
class HandFacts:
    """What the context options depend on: the kongs, the winning tile and its other copies."""

    has_kong: bool
    win_tile: Tile | None
    standing_copies_of_win: int  # copies of the winning tile among the standing tiles
    meld_copies_of_win: int  # copies of the winning tile in the melds

    @staticmethod
    def of(melds: Iterable[Meld], standing: Iterable[Tile], win_tile: Tile | None) -> "HandFacts":
        melds = tuple(melds)
        standing = tuple(standing)
        return HandFacts(
            has_kong=any(m.kind is MeldKind.KONG for m in melds),
            win_tile=win_tile,
            standing_copies_of_win=sum(t == win_tile for t in standing) if win_tile else 0,
            meld_copies_of_win=sum(t == win_tile for m in melds for t in m.tiles) if win_tile else 0,
        )


@dataclass(frozen=True)
class Reason:
    """Why an option is impossible: an i18n label key and its fields."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    def params(self) -> dict[str, str]:
        return dict(self.values)


def impossible_flags(facts: HandFacts, *, self_drawn: bool, kong_replacement: bool, robbing_kong: bool) -> dict[str, Reason]:
    """Flag name -> why the tiles and the other choices rule it out (absent = allowed)."""
    reasons: dict[str, Reason] = {}
    win = str(facts.win_tile) if facts.win_tile else ""
    if not facts.has_kong:
        reasons["kong_replacement"] = Reason("why_no_kong")
    elif not self_drawn:
        reasons["kong_replacement"] = Reason("why_replacement_discard")
    elif robbing_kong:
        reasons["kong_replacement"] = Reason("why_robbing_replacement")
    if self_drawn:
        reasons["robbing_kong"] = Reason("why_robbing_self_drawn")
    elif facts.standing_copies_of_win + facts.meld_copies_of_win > 0:
        reasons["robbing_kong"] = Reason("why_robbing_holds_copy", (("tile", win),))
    elif kong_replacement and facts.has_kong:
        reasons["robbing_kong"] = Reason("why_robbing_replacement")
    if facts.standing_copies_of_win > 0:
        reasons["last_tile"] = Reason("why_last_tile_holds_copy", (("tile", win),))
    return reasons
