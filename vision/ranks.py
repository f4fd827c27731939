"""Where a set prints its suited ranks, from the numerals read on its calibration photo.

Some sets print a suited tile's rank as a numeral in a top corner (KDE's, many Western sets). A calibration
photo's suited tiles have known ranks: the corner where enough of them read their own rank alone, and none
another digit, is where the set prints them (`printed_corner`, on the bands `corner_bands` cuts). The
recognizer itself is `vision.ocr`; everything here is pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vision.ocr import Reading, TextRead, surest_if_agreed
from vision.settings import RankSettings

LEFT, RIGHT = "left", "right"  # the top corners


def index_numeral(text: str) -> int | None:
    """1-9 when the text is that digit alone, perhaps with a mark beside it (no letter or character:
    a row of sticks reads as 开7)."""
    found = re.fullmatch(r"[^\w]?([1-9])[^\w]?", text.strip())
    return int(found.group(1)) if found else None


def _half(band: np.ndarray, side: str, edge: int) -> np.ndarray:
    """The LEFT or RIGHT half of a band, less `edge` pixels at its outer side (where a neighbour shows)."""
    width = band.shape[1]
    return band[:, edge : max(edge + 1, width // 2)] if side == LEFT else band[:, width // 2 : max(width // 2 + 1, width - edge)]



def corner_bands(tile_bgr: np.ndarray, corner: str, settings: RankSettings = RankSettings(),
                 margin: float = 0.0) -> list[np.ndarray]:
    """The `corner` (LEFT or RIGHT) half of each band across the top of an upright tile crop, one per
    depth (`RankSettings.band_shares`), less the share `margin` of the crop's width at its outer side that
    lies beyond the tile's box (where a neighbour's numeral shows): where a set that prints its ranks in
    that corner prints them."""
    height, width = tile_bgr.shape[:2]
    edge = round(width * margin)
    return [_half(tile_bgr[: max(1, round(height * share))], corner, edge) for share in settings.band_shares]


def corner_rank(texts: Sequence[TextRead], min_score: float, min_reads: int = 1) -> Reading | None:
    """The rank (1-9, as its digit) that the digits read alone at `min_score` or more in a tile's corner
    bands agree on, read so in at least `min_reads` bands; None when fewer read it or they disagree (a tile
    lying sideways, read both ways up, where one way reads its numeral and the other a second one printed
    in the opposite corner)."""
    found = [(rank, score, text) for text, score in texts if score >= min_score
             for rank in [index_numeral(text)] if rank]
    agreed = surest_if_agreed(set(found))
    return None if agreed is None or len(found) < min_reads else Reading(str(agreed[0]), float(agreed[1]), agreed[2])


@dataclass(frozen=True)
class CornerCount:
    """How a calibration photo's suited tiles read in one top corner: their own rank, another, or nothing sure."""

    own: int = 0
    other: int = 0
    tiles: int = 0


def printed_corner(reads: Sequence[tuple[int, Mapping[str, Sequence[TextRead]]]], min_score: float,
                   min_share: float) -> tuple[str | None, dict[str, CornerCount]]:
    """The top corner a set prints its suited ranks in, learned from tiles whose ranks are known (a
    calibration photo): `(rank, {LEFT: texts, RIGHT: texts})` each, the texts read on that corner's bands
    (`corner_bands`). A corner where at least `min_share` of the tiles read their own rank alone and no
    tile read another digit; None where neither does (a set without index numerals). Also the counts."""
    counts = {}
    for corner in (LEFT, RIGHT):
        own = other = 0
        for rank, texts in reads:
            reading = corner_rank(texts.get(corner, ()), min_score)
            if reading is not None and int(reading.name) == rank:
                own += 1
            elif any(score >= min_score and index_numeral(text) not in (None, rank) for text, score in texts.get(corner, ())):
                other += 1
        counts[corner] = CornerCount(own, other, len(reads))
    printed = [corner for corner, count in counts.items()
               if count.tiles and count.other == 0 and count.own >= min_share * count.tiles]
    return (printed[0] if len(printed) == 1 else None), counts
