"""Save a corrected photo for training: the image and its YOLO labels, written atomically.

Layout (ultralytics, as `tileset.labelfiles` and the labeling page read it): `DIR/images/NAME.jpg`,
`DIR/labels/NAME.txt` and `DIR/labels/NAME.meta.json` (origin human, reviewed: a person checked
the tiles before saving; one confidence per box, 1.0 for the boxes the person corrected).
The labels are written by `tileset.labelfiles` (the one label writer: atomic, locked, the previous
version kept in `labels/.history/`); the image is written atomically, a JPEG it replaces kept as
`NAME.jpg.bak` first.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import cv2
import numpy as np

from tileset.atomic_files import atomic_write_bytes
from tileset.labelfiles import (
    LabelBox,
    LabelFileError,
    LabelMeta,
    Photo,
    PhotoLabels,
    parse_label_text,
)

from .correction import Reading


class SaveError(OSError):
    """The photo could not be saved (folder not writable, image not encodable)."""


def photo_name(image_bytes: bytes) -> str:
    """A stable name for a photo: the same photo saved twice replaces its earlier version."""
    return "app_" + hashlib.sha1(image_bytes).hexdigest()[:16]


def atomic_write(path: Path, data: bytes) -> None:
    """Atomic write (tileset.atomic_files) that keeps the previous version as NAME.bak."""
    if path.exists():
        shutil.copy2(path, path.with_name(path.name + ".bak"))
    atomic_write_bytes(path, data)


def save_for_training(
    image_bgr: np.ndarray, reading: Reading, folder: Path, name: str, model: str = ""
) -> tuple[Path, Path]:
    """Write `folder/images/name.jpg`, `folder/labels/name.txt` and its meta.json; returns the first two."""
    ok, encoded = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise SaveError("the image could not be encoded as JPEG")
    height, width = image_bgr.shape[:2]
    image_path = folder / "images" / f"{name}.jpg"
    photo = Photo(image_path, folder / "labels")
    boxes: list[LabelBox] = []
    confidences: list[float] = []
    for line, confidence in reading.labeled(width, height):
        try:
            boxes.extend(parse_label_text(line))
        except LabelFileError:
            continue  # a box under a millionth of the photo, rounded to nothing: no tile to learn from
        confidences.append(confidence)
    labels = PhotoLabels(tuple(boxes), LabelMeta("human", True, model, tuple(confidences)))
    try:
        atomic_write(image_path, encoded.tobytes())
        photo.save(labels)
    except OSError as exc:
        raise SaveError(f"could not write to {folder}: {exc.strerror or exc}") from exc
    except LabelFileError as exc:
        raise SaveError(str(exc)) from exc
    return image_path, photo.label_path
