"""The finder's boxes on a dataset split that pair with no labeled tile (IoU < 0.5 with every one), split by
how much they overlap the nearest one: partly (0.05-0.5: a box that fits a tile loosely) or not at all.

    .venv/bin/python benchmarks/table_clutter/loose_boxes.py DATA SPLIT MODELS
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import box_iou
from vision.detections import Detections
from vision.detector import TileDetector
from vision.evaluate import dataset_images, read_truth


def labeled_overlap(detector: TileDetector, path: Path) -> tuple[np.ndarray, Detections, np.ndarray, np.ndarray]:
    """(image, the detections, the labeled boxes, each detection's IoU with its nearest labeled tile) of a photo
    of a dataset split; `new_false_boxes.py` goes through the same."""
    image = cv2.imread(str(path))
    found = detector.detect(image)
    truth = read_truth(path, image.shape[1], image.shape[0]).xyxy.astype(np.float32).reshape(-1, 4)
    nearest = box_iou(found.xyxy, truth).max(axis=1) if len(found) and len(truth) else np.zeros(len(found))
    return image, found, truth, nearest


def main(data: Path, split: str, models: Path) -> None:
    detector = TileDetector.load(models)
    partly = nothing = 0
    for path in dataset_images(data, split):
        _, found, _, nearest = labeled_overlap(detector, path)
        partly += int(((nearest >= 0.05) & (nearest < 0.5)).sum())
        nothing += int((nearest < 0.05).sum())
    print(f"boxes paired with no labeled tile: {partly + nothing}; overlapping one partly {partly}, none {nothing}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
