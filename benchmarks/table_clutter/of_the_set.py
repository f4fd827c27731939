"""How many photos of a calibrated set its version judges to be of the set (the table rule and the rule for
boxes unlike the set hold only in those) and how many it reads with the open reading, the share of face boxes
passing a face's threshold, each false box's finder confidence, likeness to the set, table flag and doubtful
mark (`TileDetector._doubtful`), and how many boxes on a labeled tile the mark falls on (stop 36).

    .venv/bin/python benchmarks/table_clutter/of_the_set.py SCENES MODELS
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from pathlib import Path

import numpy as np

from benchmarks.table_clutter.scene_faces import scene_faces
from vision.detector import TileDetector
from vision.registry import active_dir


def main(scenes: Path, models: Path) -> None:
    detector = TileDetector.load(active_dir(models))
    of_the_set, read_open, shares, on_tiles, doubtful_on_tiles = 0, 0, [], 0, 0
    for scene, image, xyxy, conf, iou in scene_faces(detector, scenes):
        read = detector.classify_faces(image, xyxy)
        doubtful = detector._doubtful(read, conf)
        share = float(np.mean(read.likeness[~read.table] >= 0)) if (~read.table).any() else 0.0
        shares.append(share)
        of_the_set += read.of_the_set
        read_open += read.read_open
        on_tiles += int((iou >= 0.5).sum())
        doubtful_on_tiles += int((doubtful & (iou >= 0.5)).sum())
        for i in np.flatnonzero(iou < 0.5):
            print(f"false box {scene.name}: finder {conf[i]:.2f}, likeness {read.likeness[i]:.3f}, "
                  f"table-like {bool(read.table[i])}, doubtful {bool(doubtful[i])}, photo of the set "
                  f"{read.of_the_set} (share {share:.2f}), read open {read.read_open}")
    print(f"photos judged of the set: {of_the_set} of {len(shares)}, read open: {read_open}; share of boxes passing "
          f"a face's threshold: min {min(shares):.2f}, 10th percentile {np.quantile(shares, 0.1):.2f}, median "
          f"{np.median(shares):.2f}; face boxes on a labeled tile: {on_tiles}, marked doubtful: {doubtful_on_tiles}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
