"""A photo stretched on its way here (a labeling tool's 640x640, a squeezed screenshot), resized back.

Its tiles come out far thinner (or wider) than any tile is
(`UnstretchSettings.stretched_aspect`), all of them: a photo where a share of the faces has a tile's
shape (`not_stretched_share`) is a table seen from low, its flat boxes tiles lying in front of standing
ones, and is read as it is. A stretched photo is resized, keeping its pixel count,
until its tiles have about their natural shape (`within`), and its faces
are read in that copy. The tiles themselves are taken from the copy whose finder found
the most of them (a long thin copy shrinks in the finder's square input).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.boxes import Found, face_aspects, median_face_aspect
from vision.settings import UnstretchSettings


@dataclass(frozen=True)
class Unstretched:
    """Where to read a photo's faces: the copy to crop from and the finder's boxes in its pixels."""

    image_bgr: np.ndarray
    found: Found  # the finder's boxes, in this copy's pixels

    def scale_to(self, width: int, height: int) -> tuple[float, float]:
        """Factors (x, y) from this copy's pixels to those of a `width` x `height` photo."""
        return width / self.image_bgr.shape[1], height / self.image_bgr.shape[0]


def unstretched(image_bgr: np.ndarray, find: Callable[[np.ndarray], Found], is_face: Callable[[np.ndarray], np.ndarray],
                settings: UnstretchSettings, first: Found | None = None) -> Unstretched:
    """The copy of `image_bgr` to read and its finder boxes: the photo itself, found once (`first`, when
    given, is that run), unless its faces come out stretched (`find` runs again on each resized copy, at
    most `passes` more times)."""
    s = settings

    def tile_shaped(aspect: float | None) -> bool:
        return aspect is not None and s.stretched_aspect <= aspect <= 1 / s.stretched_aspect

    def natural(aspect: float | None) -> bool:
        ratio = s.natural_tile_aspect / aspect if aspect else math.inf
        return 1 / s.within <= ratio <= s.within

    def face_aspect(found: Found) -> float | None:
        return median_face_aspect(found.xyxy, is_face(found.classes), s.min_tiles)

    def partly_tile_shaped(found: Found) -> bool:
        aspects = face_aspects(found.xyxy, is_face(found.classes))
        return len(aspects) > 0 and sum(map(tile_shaped, aspects)) >= s.not_stretched_share * len(aspects)

    h, w = image_bgr.shape[:2]
    found = find(image_bgr) if first is None else first
    aspect = face_aspect(found)
    copies = [(image_bgr, found, aspect)]  # each copy read: the image, its finder boxes, the median face aspect
    stretch = 1.0  # how much the photo's x axis is widened against its y axis
    for _ in range(s.passes):
        if aspect is None or (tile_shaped(aspect) or partly_tile_shaped(found) if len(copies) == 1 else natural(aspect)):
            break
        stretch = float(np.clip(stretch * s.natural_tile_aspect / aspect, 1 / s.max_stretch, s.max_stretch))
        k = math.sqrt(stretch)  # keep the pixel count: widen one axis, narrow the other
        new_w, new_h = max(1, round(w * k)), max(1, round(h / k))
        resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        found = find(resized)
        aspect = face_aspect(found)
        copies.append((resized, found, aspect))
    if len(copies) == 1:
        return Unstretched(image_bgr, found)

    def faces_found(copy: tuple) -> int:
        return int(is_face(copy[1].classes).sum())

    shaped = [copy for copy in copies if tile_shaped(copy[2])]
    if not shaped:  # never came out tile-shaped: the copy with the most faces, as it is
        image, found, _ = max(reversed(copies), key=faces_found)
        return Unstretched(image, found)
    boxes_from = max(reversed(shaped), key=faces_found)  # ties: the later, more natural copy
    read_in = shaped[-1][0]
    (bh, bw), (rh, rw) = boxes_from[0].shape[:2], read_in.shape[:2]
    found = boxes_from[1]
    return Unstretched(read_in, found.with_boxes(found.xyxy * np.array([rw / bw, rh / bh, rw / bw, rh / bh], np.float32)))
