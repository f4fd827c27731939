"""Where a set prints its suited ranks: the top corner read on the calibration photos' own suited tiles
(`vision.ranks.printed_corner`), kept with the head so that photos of the set have every suited tile's
rank read there (`RankSettings.calibrated_corner`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from scoring.tiles import TILE_NAMES, Tile
from training.calibration_photos import Pictures
from vision.crops import cut_upright, margin_share
from vision.ranks import LEFT, RIGHT, CornerCount, corner_bands, printed_corner
from vision.settings import CalibrateSettings, DetectorSettings

DEFAULT = CalibrateSettings()


def printed_numerals(detector: Any, pictures: Pictures,
                     detector_settings: DetectorSettings, settings: CalibrateSettings = DEFAULT
                     ) -> tuple[str | None, dict[str, CornerCount]]:
    """The top corner the set prints its suited ranks in, read on the calibration photos' own suited tiles
    (`vision.ranks.printed_corner`), and how each corner read; None and no counts without the recognizer."""
    ranks = detector_settings.ranks
    reader = detector.text_reader() if ranks.enabled else None
    if reader is None:
        return None, {}
    margin = margin_share(detector_settings)
    tiles: list[tuple[int, dict[str, list[np.ndarray]]]] = []
    for picture, reading in pictures:
        for laid in reading.tiles:
            tile = Tile.parse(laid.expected) if laid.expected in TILE_NAMES else None
            crop = cut_upright(picture, laid.xyxy, detector_settings) if tile is not None and tile.is_suited else None
            if tile is not None and crop is not None:
                tiles.append((tile.rank, {corner: corner_bands(crop, corner, ranks, margin) for corner in (LEFT, RIGHT)}))
    texts = iter(reader.read_lines([band for _, bands in tiles for corner in (LEFT, RIGHT) for band in bands[corner]]))
    reads = [(rank, {corner: [next(texts) for _ in bands[corner]] for corner in (LEFT, RIGHT)}) for rank, bands in tiles]
    return printed_corner(reads, ranks.min_digit_score, settings.numeral_share)


def numerals_report(corner: str | None, counts: dict[str, CornerCount]) -> str:
    """How each corner read, and the corner kept, in one line of the calibration's report."""
    return ("  index numerals: of the suited tiles, " + ", ".join(
        f"{count.own} of {count.tiles} read their rank in the top {where} corner ({count.other} another)"
        for where, count in counts.items())
        + (f"; the set prints its ranks top {corner}, where photos of it are read" if corner
           else "; no corner: ranks are read only where the classifier is unsure"))
