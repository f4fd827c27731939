"""A tiny artwork folder drawn from scratch, in the form of the artwork folders
`datasets.art` reads (ART: one folder per set, each with its mapping.tsv).

For tests and demos without the real (partly GPL) artwork: every face is a
filled block of one colour per class (`class_colour`) with the class name
written on it.  `write_fake_art(root)` writes `gl-mahjongtile/` (all 42 faces
and a back) and `fluffystuff-riichi/` (no flowers, like the real set).
"""

from __future__ import annotations

import colorsys
from pathlib import Path

import cv2
import numpy as np

from tileset.classes import BACK, CLASS_ID, FACE_NAMES, FLOWER_NAMES

FAKE_SIZE = (112, 160)  # width, height of the fake PNGs
FAKE_BACK_COLOUR = (120, 120, 120)  # BGR, a grey back: far from every face colour


def class_colour(cls: str) -> tuple[int, int, int]:
    """A distinct, saturated BGR colour per face class (golden-ratio hues, three brightness levels)."""
    i = CLASS_ID[cls]
    r, g, b = colorsys.hsv_to_rgb((i * 0.618034) % 1.0, 0.85, (0.45, 0.7, 0.95)[i % 3])
    return int(b * 255), int(g * 255), int(r * 255)


def _face_png(cls: str) -> np.ndarray:
    w, h = FAKE_SIZE
    image = np.zeros((h, w, 4), np.uint8)  # transparent: the renderer adds the face panel
    cv2.rectangle(image, (w // 6, h // 6), (w - 1 - w // 6, h - 1 - h // 6), (*class_colour(cls), 255), -1)
    cv2.putText(image, cls, (w // 4, h // 3), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0, 255), 2, cv2.LINE_AA)
    return image


def _back_png() -> np.ndarray:
    w, h = FAKE_SIZE
    image = np.zeros((h, w, 4), np.uint8)
    image[:] = (*FAKE_BACK_COLOUR, 255)
    return image


def _write(path: Path, image: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"cannot write {path}")


def write_fake_art(root: Path | str) -> Path:
    """Write the fake art folder under `root` and return it."""
    root = Path(root)
    gl_rows = ["file\tcanonical\tpng\tverified\tnote"]
    for i, cls in enumerate(FACE_NAMES):
        _write(root / "gl-mahjongtile" / "png" / "converted" / f"x-{i}.png", _face_png(cls))
        gl_rows.append(f"svg/converted/x-{i}.svg\t{cls}\tpng/converted/x-{i}.png\tvisual\t")
    _write(root / "gl-mahjongtile" / "png" / "converted" / "s-0.png", _back_png())
    gl_rows.append(f"svg/converted/s-0.svg\t{BACK}\tpng/converted/s-0.png\tvisual\tback")
    (root / "gl-mahjongtile" / "mapping.tsv").write_text("\n".join(gl_rows) + "\n")

    fluffy_rows = ["variant\tfile\tcanonical\tpng\tverified\tnote"]
    for i, cls in enumerate(c for c in FACE_NAMES if c not in FLOWER_NAMES):
        _write(root / "fluffystuff-riichi" / "png" / "Regular" / f"F{i}.png", _face_png(cls))
        fluffy_rows.append(f"Regular\tsvg/Regular/F{i}.svg\t{cls}\tpng/Regular/F{i}.png\tvisual\t")
    _write(root / "fluffystuff-riichi" / "png" / "Regular" / "Back.png", _back_png())
    fluffy_rows.append(f"Regular\tsvg/Regular/Back.svg\t{BACK}\tpng/Regular/Back.png\tvisual\t")
    (root / "fluffystuff-riichi" / "mapping.tsv").write_text("\n".join(fluffy_rows) + "\n")
    return root
