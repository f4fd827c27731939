"""The shipped finder's boxes (confidence >= 0.1) of a dataset split, with the face classifier's pooled features
and probabilities of each crop and whether it lies on a labeled tile (for `probe.py`).

    [MARGIN=0.35] .venv/bin/python benchmarks/tile_check/mine.py DATA SPLIT OUT.npz [STEP] [MODELS]

MARGIN: crop margin instead of the runtime's (context crops). Stop 28 mined scenes of
`datasets.synth ... --tables train --empty 0.3` (seed 77800000, 200), default tables (77810000, 100), every
third chinese-v4 train photo, and the test sets TM/TE/TC (seeds 91000000/92000000/93000000) and real val.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import match_boxes
from vision.calibrate import Embedder
from vision.crops import cut_tiles
from vision.detector import TileDetector
from vision.evaluate import dataset_images, read_truth
from vision.settings import DetectorSettings

data, split, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
step = int(sys.argv[4]) if len(sys.argv) > 4 else 1
models = Path(sys.argv[5]) if len(sys.argv) > 5 else Path("models")
settings = replace(DetectorSettings(), conf_threshold=0.1)
MARGIN = float(__import__("os").environ.get("MARGIN", "0"))
crop_settings = replace(settings, crop_margin=MARGIN) if MARGIN else settings
det = TileDetector.load(models, settings)
emb = Embedder(models / "classifier.onnx", threads=2)
rows = {k: [] for k in ("feats", "probs", "conf", "cls", "pos", "image", "iou_any")}
images = dataset_images(data, split)[::step]
for n, image in enumerate(images):
    bgr = cv2.imread(str(image))
    h, w = bgr.shape[:2]
    xyxy, conf, cls = det.find_tiles(bgr)
    truth = read_truth(image, w, h)
    pos = np.zeros(len(xyxy), bool)
    for i, j in match_boxes(truth.xyxy, xyxy, 0.5):
        pos[j] = True
    if len(xyxy) == 0:
        continue
    crops = cut_tiles(bgr, xyxy, det.classifier.imgsz, crop_settings)
    probs, feats = emb(crops)
    rows["feats"].append(feats.astype(np.float16))
    rows["probs"].append(probs.astype(np.float16))
    rows["conf"].append(conf)
    rows["cls"].append(cls)
    rows["pos"].append(pos)
    rows["image"].append(np.full(len(xyxy), n))
    from vision.boxes import box_iou

    rows["iou_any"].append(box_iou(xyxy, truth.xyxy).max(axis=1) if len(truth.xyxy) else np.zeros(len(xyxy)))
    if n % 50 == 0:
        print(n, len(images), file=sys.stderr)
np.savez_compressed(out, **{k: np.concatenate(v) for k, v in rows.items()}, n_images=len(images))
print(out, sum(len(c) for c in rows["conf"]))
