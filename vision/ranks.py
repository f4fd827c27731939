"""A suited tile's rank from the numeral printed on it: which bands are read, and the pure rules
from what the recognizer read there to a rank.

Some sets print a suited tile's rank as a numeral, in a top corner (KDE's, many
Western sets) or between two rows of pips. Where the classifier is unsure of a
suited tile's rank (one set's six is three rows of two sticks, a nine missing a
column), bands across the top of the upright tile (two depths), their halves and the
middle are read too (both ways up for a tile lying sideways): a digit alone names
the rank, in the suit the classifier gives that rank most, if it gives it some chance
(a six taken for a pin eight is still far likelier a bamboo six than a pin six).
Which top corner the set prints in is judged from all the tiles of the photo; a
digit read only in the other half, which is the rank of the neighbour on that side,
is that neighbour's numeral showing in the strip of it the crop takes in, and is
left out.

A calibrated set's photo shows where it prints its ranks (`printed_corner`, on the layout's
suited tiles, whose ranks are known); in photos of that set the suited tiles are read in that
corner (`corner_bands`, `corner_rank`), since the few-shot head is too sure of itself for its
0.95 to say which tiles to doubt: every one where it leaves another rank the least chance
(`RankSettings.corner_min_share`).

The recognizer itself is `vision.ocr`; everything here is pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from scoring.tiles import TILE_NAMES, Tile
from tileset.classes import CLASS_NAMES
from vision.ocr import Reading, TextLineReader, TextRead, middle_band, surest_if_agreed
from vision.settings import RankSettings


def index_numeral(text: str) -> int | None:
    """1-9 when the text is that digit alone, perhaps with a mark beside it (no letter or character:
    a row of sticks reads as 开7)."""
    found = re.fullmatch(r"[^\w]?([1-9])[^\w]?", text.strip())
    return int(found.group(1)) if found else None


def other_rank_share(rank_shares: np.ndarray, rank: int) -> float:
    """The classifier's largest chance for a rank other than `rank` (1-9), from its chances of ranks 1-9: under a
    small share, a digit read on the tile could only confirm the rank it was read as, or be misread."""
    return float(np.delete(rank_shares, rank - 1).max())


def rank_from_texts(
    texts: Sequence[TextRead], rank_shares: Sequence[float], settings: RankSettings = RankSettings()
) -> Reading | None:
    """The rank (1-9, as its digit) that the index numerals read name, or None to keep the classifier's.

    `rank_shares[r - 1]` is the classifier's chance of rank r (in the suit it would be read in). A digit
    names a rank only where the classifier gives that rank some chance: a bamboo stick
    read as "1" on a nine names nothing. Digits that disagree decide nothing.
    """
    ranks = {(rank, score, text) for text, score in texts if score >= settings.min_digit_score
             for rank in [index_numeral(text)] if rank and rank_shares[rank - 1] >= settings.min_share}
    agreed = surest_if_agreed(ranks)
    return None if agreed is None else Reading(str(agreed[0]), float(agreed[1]), agreed[2])


WHOLE, LEFT, RIGHT, MIDDLE = "whole", "left", "right", "middle"  # where on the tile an index band lies


def index_bands(
    tile_bgr: np.ndarray, settings: RankSettings = RankSettings(), margin: float = 0.0
) -> list[tuple[str, np.ndarray]]:
    """The bands across the top of an upright tile crop (`RankSettings.band_shares`: one per depth),
    each whole and as its left and right halves (a numeral in one corner reads better without the
    pips beside it), and a band across the middle, after the first depth's (the first
    `FIRST_ROUND` bands are those read first); each named by where it lies.

    `margin` is the share of the crop's width on each side that lies beyond the tile's box: the
    halves leave it out, where a neighbour's numeral shows."""
    height, width = tile_bgr.shape[:2]
    edge = round(width * margin)
    bands = []
    for depth, share in enumerate(settings.band_shares):
        top = tile_bgr[: max(1, round(height * share))]
        bands += [(WHOLE, top), (LEFT, _half(top, LEFT, edge)), (RIGHT, _half(top, RIGHT, edge))]
        if depth == 0:
            bands.append((MIDDLE, middle_band(tile_bgr, settings.middle_share)))
    return bands


def _half(band: np.ndarray, side: str, edge: int) -> np.ndarray:
    """The LEFT or RIGHT half of a band, less `edge` pixels at its outer side (where a neighbour shows)."""
    width = band.shape[1]
    return band[:, edge : max(edge + 1, width // 2)] if side == LEFT else band[:, width // 2 : max(width // 2 + 1, width - edge)]


FIRST_ROUND = 4  # the first depth's three bands and the middle


def confirms(reads: Reads, rank: int, settings: RankSettings = RankSettings()) -> bool:
    """Whether the bands read a lone digit surely enough to count (`min_digit_score`), and only `rank`:
    then no further band can change the reading (more digits either agree, or disagree and leave the
    reading as it is)."""
    return set(_places(reads, settings.min_digit_score)) == {rank}


Reads = list[tuple[str, tuple[str, float]]]  # (where, (text, score)) read on an upright tile's index bands


def _places(reads: Reads, min_score: float = 0.0) -> dict[int, set[str]]:
    """Each digit read alone (`index_numeral`) at `min_score` or more, and the bands it was read in."""
    places: dict[int, set[str]] = {}
    for where, (text, score) in reads:
        rank = index_numeral(text)
        if rank is not None and score >= min_score:
            places.setdefault(rank, set()).add(where)
    return places


def numeral_corner(tiles: Sequence[tuple[Reads, Mapping[str, int]]], min_score: float) -> str | None:
    """The top corner (LEFT or RIGHT) this photo's set prints its ranks in, from the index bands of
    its upright tiles, `(reads, beside)` each: where digits read surely, in one half only and naming
    no neighbour's rank (`beside`), were read most; None when neither side has more."""
    count = {LEFT: 0, RIGHT: 0}
    for reads, beside in tiles:
        for rank, found in _places(reads, min_score).items():
            halves = found & {LEFT, RIGHT}
            if len(halves) == 1 and rank not in beside.values():
                count[halves.pop()] += 1
    return None if count[LEFT] == count[RIGHT] else max(count, key=count.__getitem__)


def own_numerals(reads: Reads, beside: Mapping[str, int], corner: str | None) -> list[TextRead]:
    """The texts of an upright tile's index bands less its neighbour's numeral. A crop takes in a
    strip of each neighbour: with a set that prints its ranks in the top right `corner`, the left
    strip shows the left neighbour's numeral (top left: the right strip, the right neighbour's).
    A digit read only in the half away from the corner, or only across the whole band, that is
    the rank of the neighbour on that side (`beside`: LEFT/RIGHT -> the rank of the suited tile
    touching it) is taken for that neighbour's; read in the corner's half too, or in the middle,
    it is the tile's own. With no corner known, nothing is left out."""
    if corner not in (LEFT, RIGHT):
        return [text for _, text in reads]
    away = RIGHT if corner == LEFT else LEFT
    places = _places(reads)

    def the_neighbours(rank: int) -> bool:
        return beside.get(away) == rank and not places[rank] & {corner, MIDDLE}

    return [(text, score) for _, (text, score) in reads
            if (rank := index_numeral(text)) is None or not the_neighbours(rank)]


def corner_bands(tile_bgr: np.ndarray, corner: str, settings: RankSettings = RankSettings(),
                 margin: float = 0.0) -> list[np.ndarray]:
    """The `corner` (LEFT or RIGHT) half of each band across the top of an upright tile crop, one per
    depth (`RankSettings.band_shares`), as `index_bands` cuts it: where a set that prints its ranks in
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


def index_reads(reader: TextLineReader, tile_bgr: np.ndarray, settings: RankSettings, margin: float = 0.0) -> Reads:
    """What the recognizer reads on each index band of an upright tile crop (`index_bands`)."""
    bands = index_bands(tile_bgr, settings, margin)
    return reads_of(bands, reader.read_lines([band for _, band in bands]))


def reads_of(bands: Sequence[tuple[str, np.ndarray]], texts: Sequence[TextRead]) -> Reads:
    """Index bands and what was read on each, as `Reads` (bands where nothing was read left out)."""
    return [(where, text) for (where, _), text in zip(bands, texts) if text[0]]


def touching_ranks(boxes_xyxy: np.ndarray, class_ids: np.ndarray, index: int, reach: float = 0.3) -> dict[str, int]:
    """The ranks of the suited tiles touching upright tile `index` on its left and right in the same
    row (`LEFT`/`RIGHT`): a box whose centre lies within half the tile's height of its
    centre and whose near edge is within `reach` of its width (overlapping by up to half of it)."""
    x0, y0, x1, y1 = boxes_xyxy[index]
    width, centre_y = x1 - x0, (y0 + y1) / 2
    found: dict[str, tuple[float, int]] = {}
    for other, (ox0, oy0, ox1, oy1) in enumerate(boxes_xyxy):
        name = CLASS_NAMES[class_ids[other]]
        if other == index or abs((oy0 + oy1) / 2 - centre_y) > (y1 - y0) / 2 or name not in TILE_NAMES:
            continue
        tile = Tile.parse(name)
        left = (ox0 + ox1) < (x0 + x1)
        gap = x0 - ox1 if left else ox0 - x1
        side = LEFT if left else RIGHT
        if tile.is_suited and -width / 2 < gap < reach * width and (side not in found or gap < found[side][0]):
            found[side] = (gap, tile.rank)
    return {side: rank for side, (_, rank) in found.items()}
