"""What the tiles in view make, for the live page and the doubts (no Streamlit, no frames): how far a
standing hand is from ready and what to let go, the waits of a ready hand with the copies still unseen,
or a finished hand and its score once the way of winning is known.  A reading is given as its
`reading_key`: (face, group) pairs in the layout's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from scoring.hand import Hand, HandError, Meld, WinContext
from scoring.shanten import Discard, best_discards, shanten, useful_tiles
from scoring.tiles import ALL_TILES, Tile
from scoring.waits import Wait
from tileset.classes import BACK, is_flower
from tileset.groups import FLOWERS, GROUPS, HAND, MAX_MELDS, UNPLACED, WIN
from vision.layout import build_hand, type_group


@dataclass(frozen=True)
class WaitInView:
    """A winning tile of the hand in view, with its scores and the copies nobody shows."""

    wait: Wait
    unseen: int  # of its four copies, those not in view (the hand's own tiles and any on the table)


@dataclass(frozen=True)
class LiveAnalysis:
    """What the page shows for a steady reading.

    kind: empty | standing (shanten, the discards or draws that help) | ready (13 tiles, the waits)
    | finished (14 tiles that win: the hand, and its score once the context is known) | invalid
    (`message`: why, from the scorer).  Tiles in meld groups that make no set count as standing tiles;
    tiles set aside (unplaced) count only as seen.
    """

    kind: str
    message: str = ""
    counted: int = 0  # standing tiles plus three for each meld
    melds: tuple[Meld, ...] = ()
    standing: tuple[Tile, ...] = ()
    flowers: int = 0
    shanten: int | None = None
    discards: tuple[Discard, ...] = ()
    draws: tuple[Tile, ...] = ()  # draws that bring the hand closer
    unseen: tuple[int, ...] = (4,) * 34  # per tile index: copies not in view (in the hand, melds or on the table)
    waits: tuple[WaitInView, ...] = ()
    hand: Hand | None = None
    score: Any = None
    win_guessed: bool = False  # no tile set apart: the rightmost standing tile taken as the winning tile


def reading_key(tiles: Sequence[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The part of a reading the analysis depends on (classes and groups, not the boxes); any group name."""
    ordered = sorted(tiles, key=lambda t: (group_rank(t.get("group") or "unplaced"), t["xyxy"][0], t["cls"]))
    return tuple((t["cls"], t.get("group") or "unplaced") for t in ordered)


def group_rank(group: str) -> tuple[int, int]:
    """Where a group sorts: GROUPS order, then melds past the fourth (`meld4`, `meld5`...) by number,
    then any other name the reader may give."""
    if group in GROUPS:
        return (0, GROUPS.index(group))
    number = group.removeprefix("meld")
    return (1, int(number)) if number.isdigit() else (2, 0)


def meld_sets(key: Sequence[tuple[str, str]]) -> frozenset[str]:
    """The meld groups of a reading that count as melds (a set, at most four); the tiles of the others
    (tiles lying apart that the reader grouped) count as standing tiles."""
    sets: set[str] = set()
    _in_view(key, sets)
    return frozenset(sets)


def _in_view(key: Sequence[tuple[str, str]], sets: set[str] | None = None,
             ) -> tuple[tuple[Meld, ...], list[str], str | None, int, Counter[str]]:
    """Melds, standing tiles (left to right), the tile set apart as winning, flowers, and every face seen.

    Flowers are the flower tiles not set aside and any face-up tile in the flowers group (the reader puts
    tiles lying apart from a finished hand's rows there: they count as flowers whatever their face, as on
    the photo page, `appui.correction.Reading.flower_count`)."""
    melds: list[Meld] = []
    standing: list[str] = []
    wins: list[str] = []
    flowers = 0
    seen: Counter[str] = Counter()
    meld_groups: dict[str, list[str]] = {}
    sets = set() if sets is None else sets
    for cls, group in key:
        if is_flower(cls) or group == FLOWERS:
            flowers += group != UNPLACED and cls != BACK
            if not is_flower(cls) and cls != BACK:
                seen[cls] += 1
            continue
        if group.startswith("meld"):  # a concealed kong shows backs
            meld_groups.setdefault(group, []).append(cls)
        if cls == BACK:
            continue
        seen[cls] += 1
        if group == HAND:
            standing.append(cls)
        elif group == WIN:
            wins.append(cls)
    for group, classes in meld_groups.items():
        typed = type_group(tuple(classes))
        if isinstance(typed, Meld) and len(melds) < MAX_MELDS:
            melds.append(typed)
            sets.add(group)
        else:
            standing.extend(c for c in classes if c != BACK)  # scattered tiles are no meld
    win = wins[-1] if len(wins) == 1 else None
    if len(wins) > 1:
        standing.extend(wins)
    return tuple(melds), standing, win, flowers, seen


def counted_tiles(key: Sequence[tuple[str, str]]) -> int:
    """Standing tiles (the winning tile too) plus three for each meld: 13 or 14 make a hand's shape."""
    melds, standing, win, _, _ = _in_view(key)
    return len(standing) + (win is not None) + 3 * len(melds)


def analyse(key: Sequence[tuple[str, str]], context: WinContext | None) -> LiveAnalysis:
    """What the tiles of a reading (`reading_key`) make: how far from ready, the waits, or the finished hand.

    `context` None: the way of winning is not known yet, a finished hand gets no score.
    The waits are scored with `context`'s winds (or East, East).
    """
    melds, standing_cls, win, flowers, seen = _in_view(key)
    if not melds and not standing_cls and win is None:
        return LiveAnalysis("empty", flowers=flowers)
    all_standing = standing_cls + ([win] if win else [])
    tiles = tuple(Tile.parse(c) for c in all_standing)
    counted = len(tiles) + 3 * len(melds)
    base = LiveAnalysis("standing", counted=counted, melds=melds, standing=tiles, flowers=flowers)
    if any(c > 4 for c in seen.values()):
        name, count = max(seen.items(), key=lambda kv: kv[1])
        return replace(base, kind="invalid", message=f"{name} appears {count} times; a set has only 4 of each tile")
    away = shanten(tiles, len(melds))
    unseen = tuple(max(0, 4 - seen[t.name]) for t in ALL_TILES)
    base = replace(base, shanten=away, unseen=unseen)
    if counted > 14:
        return replace(base, message="too_many")
    if counted == 14 and away == -1:
        return _finished(base, standing_cls, win, context)
    if counted == 13 and away == 0:
        from scoring.waits import waits

        ways = replace(context or WinContext(), flowers=flowers)
        try:
            found = waits(melds, tiles, ways)
        except HandError as exc:
            return replace(base, kind="invalid", message=str(exc))
        return replace(base, kind="ready", waits=tuple(WaitInView(w, unseen[w.tile.index]) for w in found))
    if len(tiles) % 3 == 2:
        return replace(base, discards=tuple(best_discards(tiles, len(melds))))
    return replace(base, draws=useful_tiles(tiles, len(melds)))


def _finished(base: LiveAnalysis, standing: list[str], win: str | None, context: WinContext | None) -> LiveAnalysis:
    guessed = win is None
    if win is None:
        standing, win = standing[:-1], standing[-1]  # left to right: the rightmost is the last one drawn
    try:
        hand = build_hand(base.melds, standing, win, base.flowers, context or WinContext())
    except HandError as exc:
        return replace(base, kind="invalid", message=str(exc))
    if context is None:
        return replace(base, kind="finished", hand=hand, win_guessed=guessed)
    from scoring.scorer import score

    try:
        return replace(base, kind="finished", hand=hand, score=score(hand), win_guessed=guessed)
    except HandError as exc:
        return replace(base, kind="invalid", message=str(exc), hand=hand)
