"""Pairs of a photo's boxes that overlap, against the labels: one tile boxed twice, or two tiles.

    .venv/bin/python benchmarks/duplicate_boxes.py SCENES [MODELS]

For every scene photo of SCENES (`datasets.synth`: images/ + labels/), the detections of MODELS' version
in use (default: the repository's), before the layout reader merges duplicates: each pair whose IoU is
above 0.25 or whose smaller box lies in the larger by more than half, with the faces read, the IoU and
that share, and ONE-TILE when both boxes lie best on the same labeled tile, else TWO-TILES. What set
`LayoutSettings.duplicate_same_face_iou` (stop 33).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np

from tileset.classes import CLASS_NAMES
from vision.boxes import box_iou
from vision.detector import TileDetector
from vision.layout import _overlap
from vision.registry import active_dir
from vision.settings import MODELS_DIR


def labeled_boxes(photo: Path, width: int, height: int) -> np.ndarray:
    rows = np.loadtxt(photo.parent.parent / "labels" / f"{photo.stem}.txt", ndmin=2)
    return np.array([[(x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height]
                     for _, x, y, w, h in rows], np.float32).reshape(-1, 4)


def main(scenes: Path, models: Path) -> None:
    detector = TileDetector.load(active_dir(models))
    for photo in sorted((scenes / "images").glob("*.jpg")):
        image = cv2.imread(str(photo))
        truth = labeled_boxes(photo, image.shape[1], image.shape[0])
        dets = detector.detect(image)
        for i in range(len(dets)):
            for k in range(i + 1, len(dets)):
                iou, contained = _overlap(dets.xyxy[i], dets.xyxy[k])
                if (iou <= 0.25 and contained <= 0.5) or not len(truth):
                    continue
                on = box_iou(dets.xyxy[[i, k]], truth)
                one = on[0].argmax() == on[1].argmax()
                print(f"{photo.stem} {CLASS_NAMES[dets.class_id[i]]} {CLASS_NAMES[dets.class_id[k]]} iou {iou:.2f} "
                      f"contained {contained:.2f} {'ONE-TILE' if one else 'TWO-TILES'}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) == 3 else MODELS_DIR)
