"""What a calibrated version's head says of the boxes stop 33's two rules look at, against the labels.

    .venv/bin/python benchmarks/table_clutter/flower_rescue.py SCENES MODELS

For every scene photo of SCENES (`datasets.synth`: images/ + labels/), with MODELS' version in use:
- `back`: each box the finder gave as a back, what the classifier with its head reads its face as, how
  surely, its likeness to the set, and the labeled tile under it (IoU > 0.5; none: a false box);
- `unsure`: the finder's boxes down to `flower_rescue_conf` on no box found and of a tile's size, the
  surest `flower_rescue_boxes` (`vision.detector.rescue_candidates`, what the detector reads),
  read the same way, with the labeled tile under each and MISSED where the reading lacks that tile.
One line per box; the settings' cuts (`back_flower_confidence`, `flower_rescue_confidence`,
`flower_rescue_likeness`) are applied by the detector, not here.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from tileset.classes import CLASS_NAMES
from vision.boxes import box_iou
from vision.detector import TileDetector, rescue_candidates
from vision.registry import active_dir


def labels_of(photo: Path, width: int, height: int) -> tuple[np.ndarray, list[str]]:
    rows = np.loadtxt(photo.parent.parent / "labels" / f"{photo.stem}.txt", ndmin=2)
    xyxy = np.array([[(x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height]
                     for _, x, y, w, h in rows], np.float32).reshape(-1, 4)
    return xyxy, [CLASS_NAMES[int(c)] for c in rows[:, 0]]


def main(scenes: Path, models: Path) -> None:
    detector = TileDetector.load(active_dir(models))
    s = detector.settings
    low = detector.with_settings(replace(s, conf_threshold=s.flower_rescue_conf))
    for photo in sorted((scenes / "images").glob("*.jpg")):
        image = cv2.imread(str(photo))
        truth_xyxy, truth_names = labels_of(photo, image.shape[1], image.shape[0])
        dets = detector.detect(image)
        found = box_iou(truth_xyxy, dets.xyxy).max(axis=1) > 0.5 if len(dets) else np.zeros(len(truth_xyxy), bool)
        xyxy, conf, classes = low.find_tiles(image)
        sure = conf >= s.conf_threshold
        faces = detector.finder.is_face(classes)
        picked = [("back", i) for i in np.flatnonzero(sure & ~faces)]
        unsure = np.flatnonzero(~sure)
        picked += [("unsure", unsure[k]) for k in rescue_candidates(xyxy[unsure], conf[unsure], xyxy[sure], s)]
        if not picked or not len(dets):
            continue
        read = detector.classify_faces(image, xyxy[[i for _, i in picked]])
        ious = box_iou(xyxy[[i for _, i in picked]], truth_xyxy)
        for k, (kind, i) in enumerate(picked):
            j = int(ious[k].argmax()) if len(truth_xyxy) else -1
            under = truth_names[j] if j >= 0 and ious[k, j] > 0.5 else "none"
            missed = " MISSED" if under != "none" and not found[j] else ""
            print(f"{photo.stem} {kind} finder {conf[i]:.3f} read {CLASS_NAMES[read.ids[k]]} {read.confidence[k]:.2f} "
                  f"likeness {read.likeness[k]:+.3f} table {int(read.table[k])} labeled {under}{missed}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
