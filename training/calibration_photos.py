"""The calibration photos read as the layout (`vision.calibration_layout`), and the errors calibration
says plainly."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.calibration_layout import LayoutReading, read_layout_photo, reread
from vision.settings import LayoutSettings

Pictures = Sequence[tuple[np.ndarray, LayoutReading]]  # each photo's pixels and its layout


class CalibrationError(RuntimeError):
    """Input calibration cannot work with, said plainly (no traceback)."""


class LayoutProblem(CalibrationError):
    """A photo that does not show the calibration layout: which rows and places are wrong."""

    def __init__(self, photo: str, problems: Sequence[str]) -> None:
        self.photo, self.problems = photo, tuple(problems)
        super().__init__(f"{photo}: " + "; ".join(problems))


def read_photo(detector: Any, photo: Path, bonus: tuple[str, ...] | None,
               confirmed: LayoutReading | None = None) -> tuple[np.ndarray, LayoutReading]:
    """The photo's pixels (decoded as the runtime decodes it) and its layout read by `detector`, or,
    given the `confirmed` layout (the player's, in the app), those tiles each read again."""
    from vision.images import decode_image

    picture = decode_image(photo, detector.settings, reduce_to=detector.settings.decode_long_side).bgr
    if confirmed is not None:
        return picture, reread(detector, picture, confirmed)
    return picture, read_layout_photo(detector, picture, bonus, LayoutSettings())


def read_photos(detector: Any, photos: Sequence[Path], bonus: tuple[str, ...] | None,
                layouts: Sequence[LayoutReading] | None) -> list[tuple[np.ndarray, LayoutReading]]:
    """Every photo read as the layout (or, given `layouts`, each photo's confirmed tiles read again);
    LayoutProblem for the first photo that does not show it."""
    if layouts is not None and len(layouts) != len(photos):
        raise CalibrationError(f"{len(layouts)} confirmed layouts for {len(photos)} photos")
    pictures = []
    for k, photo in enumerate(photos):
        picture, reading = read_photo(detector, Path(photo), bonus, None if layouts is None else layouts[k])
        if not reading.ok or not reading.tiles:
            raise LayoutProblem(str(photo), reading.problems or ("no tiles",))
        pictures.append((picture, reading))
    return pictures
