"""Which tiles complete a ready hand, and what each would score.

`waits(melds, concealed13, context)` tries every tile of which a copy is left (the melds and
the standing tiles hold fewer than four) and keeps those that make a winning hand, scored
both ways: won on a discard and self-drawn.  The context is adjusted to each way and tile by
the one set of flag rules (`scoring.winflags.consistent`), so that no contradiction is scored:
a discard win drops kong_replacement (and robbing_kong for a tile the hand holds), a self-drawn
win drops robbing_kong (and kong_replacement without a kong), and last_tile is dropped for a
tile the standing hand already holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from .hand import Hand, HandError, Meld, WinContext
from .scorer import NotWinningHand, ScoreResult, score
from .tiles import ALL_TILES, Tile
from .winflags import TileFacts, consistent


@dataclass(frozen=True, slots=True)
class Wait:
    tile: Tile
    discard: ScoreResult | None
    self_drawn: ScoreResult | None


def waits(melds: Iterable[Meld], concealed13: Iterable[Tile], context: WinContext | None = None) -> list[Wait]:
    """Every winning tile, in tile order; HandError when the tiles cannot be a ready hand."""
    context = context or WinContext()
    melds = tuple(m.validate() for m in melds)
    concealed = tuple(concealed13)
    expected = 13 - 3 * len(melds)
    if len(concealed) != expected:
        raise HandError(
            f"with {len(melds)} meld(s) a ready hand holds {expected} standing tiles, not {len(concealed)}"
        )
    held = [0] * 34
    for t in [t for m in melds for t in m.tiles] + list(concealed):
        held[t.index] += 1
    for t in ALL_TILES:
        if held[t.index] > 4:
            raise HandError(f"{t} appears {held[t.index]} times; a set has only 4 of each tile")
    out = []
    for tile in ALL_TILES:
        if held[tile.index] >= 4:
            continue
        facts = TileFacts.of(melds, concealed, tile)
        on_discard = _score_or_none(melds, concealed, tile, _way(context, facts, self_drawn=False))
        if on_discard is None:
            continue
        drawn = _score_or_none(melds, concealed, tile, _way(context, facts, self_drawn=True))
        out.append(Wait(tile, on_discard, drawn))
    return out


def _way(context: WinContext, facts: TileFacts, self_drawn: bool) -> WinContext:
    """`context` won this way, with the flags the tiles and the way rule out cleared."""
    return consistent(replace(context, self_drawn=self_drawn), facts)[0]


def _score_or_none(melds: tuple[Meld, ...], concealed: tuple[Tile, ...], tile: Tile, context: WinContext) -> ScoreResult | None:
    try:
        return score(Hand(melds, concealed, tile, context))
    except NotWinningHand:
        return None
