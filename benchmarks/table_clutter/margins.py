"""How near each of a calibrated version's table prototypes the finder's face boxes of some scenes come: per
prototype, its threshold, the highest margin of any box on a labeled tile, and each false box's margins
(a box's cosine with the prototype minus its cosine with the nearest face; the table rule leaves a box out
when some margin passes that prototype's threshold). Stop 29 ran it with `clutter.diff` applied, where
prototypes 8-15 are the drawn things' (card, coin, die, stick: two each) after the cloth's eight.

    .venv/bin/python benchmarks/table_clutter/margins.py SCENES MODELS
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from pathlib import Path

import numpy as np

from benchmarks.table_clutter.scene_faces import scene_faces
from vision.calibrate import Embedder
from vision.crops import cut_tiles
from vision.detector import TileDetector
from vision.fewshot import PROTOTYPES_FILE, FewShotHead
from vision.registry import active_dir


def main(scenes: Path, models: Path) -> None:
    version = active_dir(models)
    detector, head = TileDetector.load(version), FewShotHead.load(version / PROTOTYPES_FILE)
    assert head.table is not None and detector.classifier is not None, "not a version calibrated with a table"
    embedder = Embedder(version / "classifier_base.onnx", 2)
    thresholds = np.broadcast_to(np.asarray(head.table_threshold, np.float32), (len(head.table),))
    print("thresholds", np.round(thresholds, 3))
    on_tiles, false = [], []
    for scene, image, xyxy, conf, iou in scene_faces(detector, scenes):
        _, feats = embedder(cut_tiles(image, xyxy, detector.classifier.imgsz, detector.settings))
        margins = (feats @ head.table.T) / head.members - head.cosines(feats).max(axis=1)[:, None]
        on_tiles.append(margins[iou >= 0.5])
        false += [(scene.name, float(conf[i]), margins[i]) for i in np.flatnonzero(iou < 0.5)]
    print("boxes on tiles: highest margin per prototype", np.round(np.concatenate(on_tiles).max(axis=0), 3))
    for name, conf, margins in false:
        print(f"false box {name} (finder {conf:.2f}):", np.round(margins, 3))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
