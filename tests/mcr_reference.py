"""The reference MCR calculator (PyPI `pymahjonggb`, a wrapper of ChineseOfficialMahjongHelper's
fan calculator), adapted to this project's Hand and fan ids, for differential tests and benchmarks.

Its extra fan 明暗杠 (one concealed kong plus one melded kong, 5 points) is counted the way
contracts.md decides: Concealed Kong (2) + Melded Kong (1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from MahjongGB import MahjongFanCalculator

from scoring.hand import Hand, MeldKind
from scoring.tiles import Tile

_SUIT_CODE = {"m": "W", "p": "B", "s": "T"}
_HONOR_CODE = {"E": "F1", "S": "F2", "W": "F3", "N": "F4", "C": "J1", "F": "J2", "P": "J3"}
_PACK = {MeldKind.CHOW: "CHI", MeldKind.PUNG: "PENG", MeldKind.KONG: "GANG"}
CONCEALED_AND_MELDED_KONG = "Concealed Kong and Melded Kong"
CONCEALED_KONG, MELDED_KONG = 67, 74

# The reference's English fan names that differ from fans.tsv, by fan id.
_NAME_ALIASES = {"All Five": 31, "Robbing The Kong": 47, "Two Dragons Pungs": 54}


class ReferenceRefused(Exception):
    """The reference raised (not a winning hand, wrong tile count, ...)."""


@dataclass(frozen=True)
class ReferenceResult:
    total: int
    fans: dict[int, int]  # fan id -> count


def tile_code(tile: Tile) -> str:
    if tile.is_suited:
        return f"{_SUIT_CODE[tile.suit]}{tile.rank}"
    return _HONOR_CODE[tile.name]


def _packs(hand: Hand) -> tuple[tuple[str, str, int], ...]:
    packs = []
    for m in hand.melds:
        tile = m.tiles[1]  # the middle tile of a chow; any tile of a pung or kong
        offer = 0 if m.concealed else 1
        packs.append((_PACK[m.kind], tile_code(tile), offer))
    return tuple(packs)


def raw(hand: Hand) -> tuple[tuple[int, int, str, str], ...]:
    """The reference's own answer: (points, count, name_zh, name_en) per fan."""
    c = hand.context
    winds = "ESWN"
    try:
        return MahjongFanCalculator(
            pack=_packs(hand),
            hand=tuple(tile_code(t) for t in hand.concealed),
            winTile=tile_code(hand.win_tile),
            flowerCount=c.flowers,
            isSelfDrawn=c.self_drawn,
            is4thTile=c.last_tile,
            # one flag there: out with a replacement when self-drawn, robbing the kong on a discard
            isAboutKong=c.kong_replacement if c.self_drawn else c.robbing_kong,
            isWallLast=c.last_of_wall,
            seatWind=winds.index(c.seat_wind.name),
            prevalentWind=winds.index(c.prevalent_wind.name),
            verbose=True,
        )
    except Exception as exc:  # noqa: BLE001 -- the extension raises plain exceptions with a message
        raise ReferenceRefused(str(exc)) from None


def reference_score(hand: Hand, fan_ids_by_name: dict[str, int]) -> ReferenceResult:
    """Total and fans per the reference, in this project's fan ids and kong rule."""
    fans: Counter[int] = Counter()
    total = 0
    for points, count, _zh, name_en in raw(hand):
        if name_en == CONCEALED_AND_MELDED_KONG:
            fans[CONCEALED_KONG] += 1
            fans[MELDED_KONG] += 1
            total += 2 + 1
            continue
        fan_id = _NAME_ALIASES.get(name_en) or fan_ids_by_name[name_en]
        fans[fan_id] += count
        total += points * count
    return ReferenceResult(total, dict(fans))
