"""Which win-context flags the tiles and the way of winning rule out: the one set of rules.

The scorer drops such flags with a warning (`consistent`), the app greys them out with the
reason (`ruled_out`), the waits score each tile under a context that follows them, and the
hand generator only sets flags they allow.  They are the reference calculator's:

- kong replacement only on a self-drawn win (the replacement tile is drawn), and only with a kong;
- robbing the kong only on a discard win, and only when the hand holds no other copy of the
  winning tile (else no one could have added that tile to a kong);
- last tile only when the standing tiles hold no other copy of the winning tile; when the
  melds show the other three copies it can only be the last one, so it is set.

Last of the wall goes with any of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .hand import Meld, MeldKind, WinContext
from .tiles import Tile


class Why(StrEnum):
    """Why a flag cannot be set (the app's label key is `why_` + the value)."""

    NO_KONG = "no_kong"
    REPLACEMENT_DISCARD = "replacement_discard"
    ROBBING_SELF_DRAWN = "robbing_self_drawn"
    ROBBING_HOLDS_COPY = "robbing_holds_copy"
    LAST_TILE_HOLDS_COPY = "last_tile_holds_copy"


@dataclass(frozen=True, slots=True)
class TileFacts:
    """What the flags depend on: the kongs, the winning tile and its other copies."""

    has_kong: bool
    win_tile: Tile | None
    standing_copies_of_win: int  # other copies of the winning tile among the standing tiles
    meld_copies_of_win: int  # copies of the winning tile in the melds

    @staticmethod
    def of(melds: Iterable[Meld], standing: Iterable[Tile], win_tile: Tile | None) -> TileFacts:
        """`standing` without the winning tile itself."""
        melds = tuple(melds)
        return TileFacts(
            has_kong=any(m.kind is MeldKind.KONG for m in melds),
            win_tile=win_tile,
            standing_copies_of_win=sum(t == win_tile for t in standing) if win_tile else 0,
            meld_copies_of_win=sum(t == win_tile for m in melds for t in m.tiles) if win_tile else 0,
        )


@dataclass(frozen=True, slots=True)
class RuledOut:
    """A flag the tiles or the way of winning rule out, and why."""

    flag: str  # the WinContext field
    why: Why
    tile: str  # the winning tile, as the reasons name it

    def warning(self) -> str:
        """The scorer's sentence for a flag it ignored."""
        return _WARNINGS[self.why].format(tile=self.tile)


_WARNINGS = {
    Why.LAST_TILE_HOLDS_COPY: "last-tile ignored: the standing hand holds another {tile}, so {tile} was not the last of its kind",
    Why.REPLACEMENT_DISCARD: "kong-replacement ignored: a replacement tile after a kong is self-drawn, but the hand was won on a discard",
    Why.NO_KONG: "kong-replacement ignored: the hand has no kong to draw a replacement tile for",
    Why.ROBBING_SELF_DRAWN: "robbing-kong ignored: robbing a kong is a win on another player's tile, not self-drawn",
    Why.ROBBING_HOLDS_COPY: "robbing-kong ignored: the hand holds another {tile}, so no one else could add {tile} to a kong",
}


def ruled_out(facts: TileFacts, self_drawn: bool) -> dict[str, RuledOut]:
    """Flag name -> why the tiles and the way of winning rule it out (absent: allowed), in the scorer's order."""
    tile = str(facts.win_tile) if facts.win_tile else ""
    out: dict[str, RuledOut] = {}
    if facts.standing_copies_of_win > 0:
        out["last_tile"] = RuledOut("last_tile", Why.LAST_TILE_HOLDS_COPY, tile)
    if not self_drawn:
        out["kong_replacement"] = RuledOut("kong_replacement", Why.REPLACEMENT_DISCARD, tile)
    elif not facts.has_kong:
        out["kong_replacement"] = RuledOut("kong_replacement", Why.NO_KONG, tile)
    if self_drawn:
        out["robbing_kong"] = RuledOut("robbing_kong", Why.ROBBING_SELF_DRAWN, tile)
    elif facts.meld_copies_of_win or facts.standing_copies_of_win:
        out["robbing_kong"] = RuledOut("robbing_kong", Why.ROBBING_HOLDS_COPY, tile)
    return out


def consistent(context: WinContext, facts: TileFacts) -> tuple[WinContext, list[RuledOut]]:
    """`context` with every set flag the tiles rule out cleared (and what was cleared, in order),
    and last tile set when the melds show the other three copies of the winning tile."""
    dropped: list[RuledOut] = []
    if context.last_tile or context.kong_replacement or context.robbing_kong:
        blocked = ruled_out(facts, context.self_drawn)
        dropped = [r for name, r in blocked.items() if getattr(context, name)]
        if dropped:
            cleared: dict[str, Any] = {r.flag: False for r in dropped}
            context = replace(context, **cleared)
    if facts.meld_copies_of_win == 3 and not context.last_tile:
        context = replace(context, last_tile=True)  # the other three are in the melds: it is the last one
    return context, dropped
