"""Context crops (margin 0.35, 64 px) of the shipped finder's boxes, sorted into OUT/tile and OUT/table
(boxes partly on a label left out), with an index of every box (for `classifier.py eval`).

    .venv/bin/python benchmarks/tile_check/mine_crops.py DATA SPLIT OUT TAG MIN_CONF [STEP] [MARGIN]

Stop 28: train from the probe's scene sets plus 300 bare training-family tables (seed 77820000) at 0.02,
val from the default-table scenes, test_TM, test_TE, test_TC, test_RV as for `mine.py`.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import csv
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import box_iou, match_boxes
from vision.crops import cut_tiles
from vision.detector import TileDetector
from vision.evaluate import dataset_images, read_truth
from vision.settings import DetectorSettings

data, split, out, tag = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4]
conf_min = float(sys.argv[5])
step = int(sys.argv[6]) if len(sys.argv) > 6 else 1
margin = float(sys.argv[7]) if len(sys.argv) > 7 else 0.35
size = 64
settings = replace(DetectorSettings(), conf_threshold=conf_min)
crop = replace(settings, crop_margin=margin)
det = TileDetector.load("models", settings)
for c in ("tile", "table"):
    (out / c).mkdir(parents=True, exist_ok=True)
rows = []
for n, image in enumerate(dataset_images(data, split)[::step]):
    bgr = cv2.imread(str(image))
    h, w = bgr.shape[:2]
    xyxy, conf, cls = det.find_tiles(bgr)
    if not len(xyxy):
        continue
    truth = read_truth(image, w, h)
    pos = np.zeros(len(xyxy), bool)
    for i, j in match_boxes(truth.xyxy, xyxy, 0.5):
        pos[j] = True
    iou = box_iou(xyxy, truth.xyxy).max(axis=1) if len(truth.xyxy) else np.zeros(len(xyxy))
    crops = cut_tiles(bgr, xyxy, size, crop)
    for k in range(len(xyxy)):
        label = "tile" if pos[k] else ("table" if iou[k] < 0.05 else None)
        name = f"{tag}_{n:05d}_{k:03d}.png"
        if label:
            cv2.imwrite(str(out / label / name), crops[k])
        rows.append((name, n, float(conf[k]), int(cls[k]), int(pos[k]), float(iou[k])))
with open(out / f"index_{tag}.csv", "w", newline="") as f:
    csv.writer(f).writerows([("name", "image", "conf", "cls", "pos", "iou")] + rows)
print(tag, len(rows), "boxes")
