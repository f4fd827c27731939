"""Which flower or season a tile is, from its caption (OCR).

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

The rules that turn OCR text into a class are pure (`reading_from_texts`); the recognizer
is `vision.ocr`. A suited tile's printed rank is read the same way (`vision.ranks`).
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from vision.ocr import Reading, TextLineReader, TextRead, middle_band, surest_if_agreed
from vision.settings import FlowerSettings

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


def named_in(text: str) -> str | None:
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


def reading_from_texts(
    texts: Sequence[TextRead], classifier_guess: str, settings: FlowerSettings = FlowerSettings()
) -> Reading | None:
    """The flower that OCR lines name, or None to keep the classifier's reading.

    `texts` are (text, score) pairs from the recognizer; `classifier_guess` is the
    class the classifier read. A name decides on its own; a lone number only within
    the classifier's group; lines that disagree decide nothing.
    """
    named = {(name, score, text) for text, score in texts if score >= settings.min_name_score
             for name in [named_in(text)] if name}
    if named:
        agreed = surest_if_agreed(named)
        return None if agreed is None else Reading(agreed[0], float(agreed[1]), agreed[2])
    if classifier_guess[:1] not in ("f", "s") or len(classifier_guess) != 2:
        return None
    numbers = {(number, score, text) for text, score in texts if score >= settings.min_number_score
               for number in [_lone_number(text)] if number}
    agreed = surest_if_agreed(numbers)
    return None if agreed is None else Reading(f"{classifier_guess[0]}{agreed[0]}", float(agreed[1]), agreed[2])


UPRIGHT_BANDS = 2  # the first bands of `caption_bands`: the top and bottom bands as the crop stands


def caption_bands(tile_bgr: np.ndarray, settings: FlowerSettings = FlowerSettings()) -> list[np.ndarray]:
    """The top and bottom bands of an upright tile crop, then both turned over (text upside down),
    then the middle (one large character)."""
    height = tile_bgr.shape[0]
    band = max(1, round(height * settings.band_share))
    bands = [tile_bgr[:band], tile_bgr[height - band :]]
    turned_over = [np.ascontiguousarray(b[::-1, ::-1]) for b in bands]
    return bands + turned_over + [middle_band(tile_bgr, settings.middle_share)]


def confirms(texts: Sequence[TextRead], read_as: str, settings: FlowerSettings = FlowerSettings()) -> bool:
    """Whether the texts name a class surely enough to decide (`min_name_score`, `named_in`), and only
    `read_as`: then no further text can change the reading (more names either agree, or disagree and
    leave the reading as it is)."""
    named = {name for text, score in texts if score >= settings.min_name_score for name in [named_in(text)] if name}
    return named == {read_as}


def read_caption(reader: TextLineReader, tile_bgr: np.ndarray, classifier_guess: str,
                 settings: FlowerSettings = FlowerSettings()) -> Reading | None:
    """The flower an upright tile crop's caption names (`reading_from_texts` on its `caption_bands`)."""
    return reading_from_texts(reader.read_lines(caption_bands(tile_bgr, settings)), classifier_guess, settings)
