"""Labeled photos cut to a 4:3 (or 3:4) frame around their tiles: real photos that are not square, to judge how the
reader reads a photo of that shape (chinese-v4's photos are all 640x640 exports).

    .venv/bin/python benchmarks/cut_to_aspect.py OUT DATASET[:SPLIT] ... [--margin 8] [--aspect 4:3]

Each photo of each DATASET (a data YAML, or a folder of `images/` and `labels/`) is cut to the largest frame of the
aspect, landscape first, then portrait, that holds every labeled tile with `--margin` pixels to spare (none needed
at the photo's own edge), centred on the tiles; a photo no such frame fits is left out. OUT gets `images/` (JPEG,
quality 95) and `labels/` (the labels moved into the frame, `tileset.labelfiles`), then reads as any dataset:

    python -m vision.evaluate OUT --models M
    python benchmarks/detect.py OUT
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tileset.atomic_files import atomic_write_text
from tileset.labelfiles import LabelBox, format_label_text
from training.evaluate import dataset_images, read_truth


def frame_around(tiles_xyxy: np.ndarray, width: int, height: int, aspect: float, margin: float
                 ) -> tuple[int, int, int, int] | None:
    """(x0, y0, w, h) of the largest `aspect` (w / h) frame inside the photo, landscape then portrait, centred on the
    tiles and holding each with `margin` pixels to spare where the frame's edge is not the photo's; None if none."""
    lo, hi = tiles_xyxy[:, :2].min(axis=0), tiles_xyxy[:, 2:].max(axis=0)
    for w, h in ((width, round(width / aspect)), (round(height / aspect), height)):
        if w > width or h > height or (w, h) == (width, height):
            continue
        x0 = round(float(min(max((lo[0] + hi[0]) / 2 - w / 2, 0), width - w)))
        y0 = round(float(min(max((lo[1] + hi[1]) / 2 - h / 2, 0), height - h)))
        left, top = (margin if x0 > 0 else 0), (margin if y0 > 0 else 0)
        right, bottom = (margin if x0 + w < width else 0), (margin if y0 + h < height else 0)
        if lo[0] >= x0 + left and lo[1] >= y0 + top and hi[0] <= x0 + w - right and hi[1] <= y0 + h - bottom:
            return x0, y0, w, h
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("datasets", nargs="+", help="DATASET[:SPLIT] (default split: test for a data YAML)")
    parser.add_argument("--margin", type=float, default=8.0, help="pixels kept around the tiles (default 8)")
    parser.add_argument("--aspect", default="4:3", help="width:height of the landscape frame (default 4:3)")
    args = parser.parse_args(argv)
    w_part, _, h_part = args.aspect.partition(":")
    aspect = float(w_part) / float(h_part or 1)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "labels").mkdir(parents=True, exist_ok=True)
    seen = written = 0
    for dataset in args.datasets:
        path, _, split = dataset.partition(":")
        for image in dataset_images(Path(path), split or "test"):
            seen += 1
            bgr = cv2.imread(str(image))
            if bgr is None:
                continue
            height, width = bgr.shape[:2]
            truth = read_truth(image, width, height)
            frame = frame_around(truth.xyxy, width, height, aspect, args.margin) if len(truth.xyxy) else None
            if frame is None:
                continue
            x0, y0, w, h = frame
            name = f"{image.stem}_{w}x{h}"
            cv2.imwrite(str(args.out / "images" / f"{name}.jpg"), bgr[y0:y0 + h, x0:x0 + w], [cv2.IMWRITE_JPEG_QUALITY, 95])
            moved = truth.xyxy - np.array([x0, y0, x0, y0], np.float32)
            boxes = [LabelBox.from_xyxy(int(c), box, w, h) for c, box in zip(truth.class_id, moved, strict=True)]
            atomic_write_text(args.out / "labels" / f"{name}.txt", format_label_text(boxes))
            written += 1
    print(f"{written} of {seen} photos cut to {args.aspect} (or its portrait) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
