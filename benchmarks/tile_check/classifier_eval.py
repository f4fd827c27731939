"""Tiles lost and false boxes kept (finder confidence >= 0.25) when boxes the tile-or-not classifier of
`classifier_train.py` scores below a threshold are dropped, per test set of `mine_crops.py`.

    .venv/bin/python benchmarks/tile_check/classifier_eval.py WEIGHTS CROPS

CROPS holds test_TM, test_TE, test_TC, test_RV, each with its index CSV. Stop 28: the best and last
epochs of `classifier_train.py`.
"""

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from vision.train import _ultralytics_environment

_ultralytics_environment()
import torch
from ultralytics import YOLO

torch.set_num_threads(2)
weights = sys.argv[1]
model = YOLO(weights)
names = model.names
tile_col = next(k for k, v in names.items() if v == "tile")
V = Path(sys.argv[2])
for s in ("TM", "TE", "TC", "RV"):
    with open(V / f"test_{s}" / f"index_{s}.csv") as index:
        rows = list(csv.DictReader(index))
    score = {}
    paths = [V / f"test_{s}" / ("tile" if int(r["pos"]) else "table") / r["name"] for r in rows]
    have = [p for p in paths if p.exists()]
    for start in range(0, len(have), 256):
        for p, res in zip(
            have[start : start + 256],
            model.predict([str(x) for x in have[start : start + 256]], imgsz=64, verbose=False),
        ):
            score[p.name] = float(res.probs.data[tile_col])
    n_img = max(int(r["image"]) for r in rows) + 1
    out = []
    for t in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5):
        lost = false0 = false1 = 0
        per0 = np.zeros(n_img, int)
        per1 = np.zeros(n_img, int)
        for r in rows:
            if float(r["conf"]) < 0.25:
                continue
            sc = score.get(r["name"], 1.0)  # ambiguous boxes: kept
            kept = sc >= t
            if int(r["pos"]):
                lost += not kept
            else:
                false0 += 1
                per0[int(r["image"])] += 1
                if kept:
                    false1 += 1
                    per1[int(r["image"])] += 1
        out.append(
            f"t{t}: lost {lost} false {false0}->{false1} (>1 {int((per0 > 1).sum())}->{int((per1 > 1).sum())}, "
            f"any {int((per0 > 0).sum())}->{int((per1 > 0).sum())})"
        )
    print(s, " | ".join(out))
