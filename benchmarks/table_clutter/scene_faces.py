"""The finder's face-up boxes of each rendered scene, with how much each overlaps its nearest labeled tile:
what `margins.py` and `of_the_set.py` both go through."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.boxes import box_iou
from vision.evaluate_read import Scene, scenes_from_dir


def scene_faces(detector: Any, scenes: Path) -> Iterator[tuple[Scene, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(scene, image, boxes, finder confidences, IoU with the nearest labeled tile) of every scene in which the
    finder boxed a face-up tile."""
    for scene in scenes_from_dir(scenes):
        image = cv2.imread(str(scene.image))
        xyxy, conf, classes = detector.find_tiles(image)
        faces = detector.finder.is_face(classes)
        xyxy, conf = xyxy[faces], conf[faces]
        if not len(xyxy):
            continue
        truth = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
        nearest = box_iou(xyxy, truth).max(axis=1) if len(truth) else np.zeros(len(xyxy))
        yield scene, image, xyxy, conf, nearest
