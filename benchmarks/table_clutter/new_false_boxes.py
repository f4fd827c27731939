"""The boxes a finder adds on a dataset split that the shipped one does not (stop 30): per photo, the boxes of
MODELS that pair with no labeled tile (IoU < 0.5) and overlap none of the shipped finder's such boxes by half,
with the totals of both; OUT (optional) gets each such photo with those boxes in red, labeled tiles in green.

    .venv/bin/python benchmarks/table_clutter/new_false_boxes.py DATA SPLIT MODELS [OUT]
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from pathlib import Path

import cv2
import numpy as np

from benchmarks.table_clutter.loose_boxes import labeled_overlap
from vision.boxes import box_iou
from vision.detector import TileDetector
from vision.evaluate import dataset_images

REPO = Path(__file__).resolve().parents[2]


def unpaired(detector: TileDetector, path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(image, labeled boxes, boxes, class names) of a photo's detections that pair with no labeled tile."""
    image, found, truth, nearest = labeled_overlap(detector, path)
    alone = nearest < 0.5
    return image, truth, found.xyxy[alone], [n for n, keep in zip(found.class_names, alone) if keep]


def main(data: Path, split: str, models: Path, out: "Path | None") -> None:
    shipped, other = TileDetector.load(REPO / "models"), TileDetector.load(models)
    totals = [0, 0, 0]
    for path in dataset_images(data, split):
        _, _, old, _ = unpaired(shipped, path)
        image, truth, new, names = unpaired(other, path)
        added = [k for k in range(len(new)) if not len(old) or box_iou(new[k:k + 1], old).max() < 0.5]
        totals = [totals[0] + len(old), totals[1] + len(new), totals[2] + len(added)]
        if added:
            print(f"{path.name}: shipped {len(old)}, this finder {len(new)}, added {' '.join(names[k] for k in added)}")
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                for box in truth.astype(int):
                    cv2.rectangle(image, tuple(box[:2]), tuple(box[2:]), (0, 255, 0), 1)
                for box in new[added].astype(int):
                    cv2.rectangle(image, tuple(box[:2]), tuple(box[2:]), (0, 0, 255), 3)
                cv2.imwrite(str(out / (path.stem + ".png")), image)
    print(f"unpaired boxes: shipped {totals[0]}, this finder {totals[1]}; added by this finder {totals[2]}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]) if len(sys.argv) > 4 else None)
