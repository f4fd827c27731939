"""Which flower or season a tile is, from its caption, and a suited tile's rank, from its numeral (OCR).

The face classifier tells a flower from a suited tile well, but not which of the
eight a captioned flower is: at 96 px a caption is a few pixels tall, and sets
draw the pictures every way. Nearly every set prints the name or the number:
梅蘭菊竹 / 春夏秋冬 with 1-4 in a corner on Chinese sets, PLUM ... WINTER on
Western ones. So a tile the classifier gives some chance of being a flower is
read again by an OCR recognizer (rapidocr, onnxruntime), on a band across the
top and one across the bottom of the upright tile, each also turned over (a tile
laid upside down):

* a name (梅, PLUM, ORC, ...) read surely enough names the tile, flower or not;
* a lone 1-4 only picks which one, inside the group (flower or season) the
  classifier already chose: suited tiles carry corner numbers too.

Some sets also print a suited tile's rank as a numeral, in a top corner (KDE's,
many Western sets) or between two rows of pips. Where the classifier is unsure of
a suited tile's rank (one set's six is three rows of two sticks, a nine missing a
column), bands across the top of the upright tile (two depths), their halves and
the middle are read too (both ways up for a tile lying sideways): a digit alone
names the rank, in the suit the classifier gives that rank most, if it gives it
some chance (a six taken for a pin eight is still far likelier a bamboo six than a
pin six). Which top corner the set prints in is judged from all the tiles of the
photo; a digit read only in the other half, which is the rank of the neighbour
on that side, is that neighbour's numeral showing in the strip of it the crop
takes in, and is left out.

The rules that turn OCR text into a class are pure functions (`reading_from_texts`,
`rank_from_texts`); `CaptionReader` only cuts the bands and runs the recognizer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from vision.settings import FlowerSettings, RankSettings

# Names printed on flower and season tiles, Chinese (traditional and simplified) and English,
# with the abbreviations some sets print. Nothing else lists them.
FLOWER_WORDS: dict[str, str] = {
    "梅": "f1", "PLUM": "f1",
    "蘭": "f2", "兰": "f2", "ORCHID": "f2", "ORC": "f2",
    "菊": "f3", "CHRYSANTHEMUM": "f3", "CHRYS": "f3", "MUM": "f3",
    "竹": "f4", "BAMBOO": "f4", "BAM": "f4",
    "春": "s1", "SPRING": "s1", "SPR": "s1",
    "夏": "s2", "SUMMER": "s2", "SUM": "s2",
    "秋": "s3", "AUTUMN": "s3", "FALL": "s3", "AUT": "s3",
    "冬": "s4", "WINTER": "s4", "WIN": "s4",
}
_LATIN_WORDS = sorted((w for w in FLOWER_WORDS if w.isascii()), key=len, reverse=True)


@dataclass(frozen=True)
class CaptionReading:
    """What the caption says: the class (for a rank, its digit), how sure the recognizer was, and the text it read."""

    name: str
    score: float
    text: str


def _named_in(text: str) -> str | None:
    """The flower a text names: a Chinese name anywhere, or a line of letters starting with an English one."""
    for char in text:
        if char in FLOWER_WORDS:
            return FLOWER_WORDS[char]
    letters = re.sub(r"[^A-Z]", "", text.upper())
    if len(letters) <= len(text) // 2:  # mostly not letters: no English caption
        return None
    for word in _LATIN_WORDS:
        if letters.startswith(word) and len(letters) <= len(word) + 2:  # SUMM, MUMV: a stroke read as a letter
            return FLOWER_WORDS[word]
    return None


def _lone_number(text: str) -> int | None:
    """1-4 when the text is that digit alone, perhaps with a mark or one other character beside it."""
    digits = re.findall(r"\d", text)
    if len(digits) != 1 or len(text.strip()) > 3 or not 1 <= int(digits[0]) <= 4:
        return None
    return int(digits[0])


def _index_numeral(text: str) -> int | None:
    """1-9 when the text is that digit alone, perhaps with a mark beside it (no letter or character:
    a row of sticks reads as 开7)."""
    found = re.fullmatch(r"[^\w]?([1-9])[^\w]?", text.strip())
    return int(found.group(1)) if found else None


def reading_from_texts(
    texts: Sequence[tuple[str, float]], classifier_guess: str, settings: FlowerSettings = FlowerSettings()
) -> CaptionReading | None:
    """The flower that OCR lines name, or None to keep the classifier's reading.

    `texts` are (text, score) pairs from the recognizer; `classifier_guess` is the
    class the classifier read. A name decides on its own; a lone number only within
    the classifier's group; lines that disagree decide nothing.
    """
    named = {(name, score, text) for text, score in texts if score >= settings.min_name_score
             for name in [_named_in(text)] if name}
    if named:
        agreed = _surest_if_agreed(named)
        return None if agreed is None else CaptionReading(agreed[0], float(agreed[1]), agreed[2])
    if classifier_guess[:1] not in ("f", "s") or len(classifier_guess) != 2:
        return None
    numbers = {(number, score, text) for text, score in texts if score >= settings.min_number_score
               for number in [_lone_number(text)] if number}
    agreed = _surest_if_agreed(numbers)
    return None if agreed is None else CaptionReading(f"{classifier_guess[0]}{agreed[0]}", float(agreed[1]), agreed[2])


def rank_from_texts(
    texts: Sequence[tuple[str, float]], rank_shares: Sequence[float], settings: RankSettings = RankSettings()
) -> CaptionReading | None:
    """The rank (1-9, as its digit) that the index numerals read name, or None to keep the classifier's.

    `rank_shares[r - 1]` is the classifier's chance of rank r (in the suit it would be read in). A digit
    names a rank only where the classifier gives that rank some chance: a bamboo stick
    read as "1" on a nine names nothing. Digits that disagree decide nothing.
    """
    ranks = {(rank, score, text) for text, score in texts if score >= settings.min_digit_score
             for rank in [_index_numeral(text)] if rank and rank_shares[rank - 1] >= settings.min_share}
    agreed = _surest_if_agreed(ranks)
    return None if agreed is None else CaptionReading(str(agreed[0]), float(agreed[1]), agreed[2])


def _surest_if_agreed(found: set[tuple[Any, float, str]]) -> tuple[Any, float, str] | None:
    """Of (what, score, text) found on several lines, the surest when all found the same; else None."""
    if len({what for what, _, _ in found}) != 1:
        return None
    return max(found, key=lambda item: item[1])


def caption_bands(tile_bgr: np.ndarray, settings: FlowerSettings = FlowerSettings()) -> list[np.ndarray]:
    """The top and bottom bands of an upright tile crop, both turned over too (text upside down),
    and the middle (one large character)."""
    height = tile_bgr.shape[0]
    band = max(1, round(height * settings.band_share))
    bands = [tile_bgr[:band], tile_bgr[height - band :]]
    turned_over = [np.ascontiguousarray(b[::-1, ::-1]) for b in bands]
    return bands + turned_over + [_middle_band(tile_bgr, settings.middle_share)]


WHOLE, LEFT, RIGHT, MIDDLE = "whole", "left", "right", "middle"  # where on the tile an index band lies


def index_bands(
    tile_bgr: np.ndarray, settings: RankSettings = RankSettings(), margin: float = 0.0
) -> list[tuple[str, np.ndarray]]:
    """The bands across the top of an upright tile crop (`RankSettings.band_shares`: one per depth),
    each whole and as its left and right halves (a numeral in one corner reads better without the
    pips beside it), then a band across the middle; each named by where it lies.

    `margin` is the share of the crop's width on each side that lies beyond the tile's box: the
    halves leave it out, where a neighbour's numeral shows."""
    height, width = tile_bgr.shape[:2]
    edge = round(width * margin)
    bands = []
    for share in settings.band_shares:
        top = tile_bgr[: max(1, round(height * share))]
        bands += [(WHOLE, top), (LEFT, top[:, edge : max(edge + 1, width // 2)]),
                  (RIGHT, top[:, width // 2 : max(width // 2 + 1, width - edge)])]
    return [*bands, (MIDDLE, _middle_band(tile_bgr, settings.middle_share))]


Reads = list[tuple[str, tuple[str, float]]]  # (where, (text, score)) read on an upright tile's index bands


def _places(reads: Reads, min_score: float = 0.0) -> dict[int, set[str]]:
    """Each digit read alone (`_index_numeral`) at `min_score` or more, and the bands it was read in."""
    places: dict[int, set[str]] = {}
    for where, (text, score) in reads:
        rank = _index_numeral(text)
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


def own_numerals(reads: Reads, beside: Mapping[str, int], corner: str | None) -> list[tuple[str, float]]:
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
            if (rank := _index_numeral(text)) is None or not the_neighbours(rank)]


def _middle_band(tile_bgr: np.ndarray, share: float) -> np.ndarray:
    """The band across the middle of a tile crop, `share` of its height."""
    height = tile_bgr.shape[0]
    middle = max(1, round(height * share))
    start = (height - middle) // 2
    return tile_bgr[start : start + middle]


class CaptionReaderUnavailable(RuntimeError):
    """rapidocr is not installed: flowers and ranks are read by the classifier alone."""


class CaptionReader:
    """Reads flower captions and printed ranks with rapidocr's text recognizer (no text detection:
    the bands are the lines)."""

    def __init__(self, settings: FlowerSettings = FlowerSettings(), threads: int = 2) -> None:
        try:
            from rapidocr import RapidOCR
        except ImportError as error:  # the runtime lists it; a partial install still reads tiles
            raise CaptionReaderUnavailable(f"rapidocr is not installed ({error})") from error
        self.settings = settings
        self._ocr: Any = RapidOCR(params={
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        })

    def texts(self, tile_bgr: np.ndarray) -> list[tuple[str, float]]:
        """What the recognizer reads on each caption band of an upright tile crop."""
        return self._recognized(caption_bands(tile_bgr, self.settings))

    def _recognized(self, bands: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        read = []
        for band in bands:
            result = self._ocr(band, use_det=False, use_cls=False, use_rec=True)
            for text, score in zip(result.txts or (), result.scores or ()):
                if text:
                    read.append((str(text), float(score)))
        return read

    def index_reads(self, tile_bgr: np.ndarray, settings: RankSettings, margin: float = 0.0) -> Reads:
        """What the recognizer reads on each index band of an upright tile crop (`index_bands`)."""
        return [(where, text) for where, band in index_bands(tile_bgr, settings, margin)
                for text in self._recognized([band])]

    def read(self, tile_bgr: np.ndarray, classifier_guess: str) -> CaptionReading | None:
        return reading_from_texts(self.texts(tile_bgr), classifier_guess, self.settings)
