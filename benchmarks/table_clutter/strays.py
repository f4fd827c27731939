"""Tiles lying apart from a hand's rows that the reader counted as flowers (`vision.layout.hand_of`), with
what they are: per such tile of each scene, what it was read as, the finder's confidence, its likeness to
the calibrated set, the classifier's chance of a flower, and the labeled tile under it (none: a false box).

    .venv/bin/python benchmarks/table_clutter/strays.py SCENES MODELS
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.boxes import box_iou
from vision.crops import cut_tiles
from vision.evaluate_read import judge, scenes_from_dir
from vision.issues import IssueCode
from vision.read import load_detector, read_detections
from vision.registry import active_dir


def main(scenes: Path, models: Path) -> None:
    detector: Any = load_detector(active_dir(models))
    seen: dict[str, Any] = {}
    named, classify = detector._named, detector.classify_faces

    def named_and_kept(image, xyxy, conf, classes):  # type: ignore[no-untyped-def]
        seen["finder"] = (xyxy.copy(), conf.copy())
        return named(image, xyxy, conf, classes)

    def classify_and_kept(image, boxes):  # type: ignore[no-untyped-def]
        read = classify(image, boxes)
        crops = cut_tiles(image, boxes, detector.classifier.imgsz, detector.settings)
        flower = detector.classifier.read(crops)[0][:, detector.classifier.flower_columns].sum(axis=1)
        seen["faces"] = (boxes.copy(), read.likeness.copy(), flower, read.of_the_set)
        return read

    detector._named, detector.classify_faces = named_and_kept, classify_and_kept
    for scene in scenes_from_dir(scenes):
        result = read_detections(detector.detect(cv2.imread(str(scene.image))))
        exact = judge(scene, result).exact
        truth = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
        for issue in result.issues:
            if issue.code != IssueCode.STRAY_AS_FLOWERS:
                continue
            for index in issue.tiles:
                box = result.detections.xyxy[index]
                finder_boxes, finder_conf = seen["finder"]
                face_boxes, likeness, flower, of_the_set = seen["faces"]
                at_finder = np.flatnonzero(np.abs(finder_boxes - box).sum(axis=1) < 1e-2)
                at_face = np.flatnonzero(np.abs(face_boxes - box).sum(axis=1) < 1e-2)
                iou = box_iou(box[None], truth)[0] if len(truth) else np.zeros(0)
                under = scene.truth_tiles[int(iou.argmax())][0] if len(iou) and iou.max() > 0.4 else None
                print(json.dumps({
                    "scene": scene.name, "hand_read_exactly": exact, "read_as": result.detections.class_names[index],
                    "finder": round(float(finder_conf[at_finder[0]]), 3) if len(at_finder) else None,
                    "likeness": round(float(likeness[at_face[0]]), 3) if len(at_face) else None,
                    "flower_chance": round(float(flower[at_face[0]]), 3) if len(at_face) else None,
                    "photo_of_the_set": bool(of_the_set), "labeled": under}), flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
