"""How many photos of a calibrated set its version judges to be of the set (the table rule and the rule for
boxes unlike the set hold only in those), the share of face boxes passing a face's threshold, and each false
box's finder confidence, likeness to the set, table flag.

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
    of_the_set, shares = 0, []
    for scene, image, xyxy, conf, iou in scene_faces(detector, scenes):
        read = detector.classify_faces(image, xyxy)
        share = float(np.mean(read.likeness[~read.table] >= 0)) if (~read.table).any() else 0.0
        shares.append(share)
        of_the_set += read.of_the_set
        for i in np.flatnonzero(iou < 0.5):
            print(f"false box {scene.name}: finder {conf[i]:.2f}, likeness {read.likeness[i]:.3f}, "
                  f"table-like {bool(read.table[i])}, photo of the set {read.of_the_set} (share {share:.2f})")
    print(f"photos judged of the set: {of_the_set} of {len(shares)}; share of boxes passing a face's threshold: "
          f"min {min(shares):.2f}, 10th percentile {np.quantile(shares, 0.1):.2f}, median {np.median(shares):.2f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
