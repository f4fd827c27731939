"""Per photo, how a calibrated version's face boxes compare with its set (stop 30): for the photos of SCENES
(the set's own) and for the val photos and the first 200 train photos of DATA (another set's), the share of face
boxes (the finder's, as the runtime judges a photo) passing a face's threshold (likeness >= 0: the rule of
`DetectorSettings.stray_photo_share`), the median likeness and the share with likeness >= -0.05; photos with
fewer than 3 face boxes are left out. With CUTS (e.g. 0.5,0.25,0.2), also how many photos of each side have a
share passing a face's threshold at or above each cut: the photos a version with that `stray_photo_share`
judges to be of the set (stop 31).

    .venv/bin/python benchmarks/table_clutter/photo_shares.py MODELS SCENES DATA [CUTS]
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import sys
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from vision.detector import TileDetector
from vision.evaluate import dataset_images
from vision.registry import active_dir

STATISTICS = ("share with likeness >= 0", "median likeness", "share with likeness >= -0.05")


def photo_statistics(detector: TileDetector, photos: Iterable[Path]) -> np.ndarray:
    rows = []
    for photo in photos:
        image = cv2.imread(str(photo))
        xyxy, _, classes = detector.find_tiles(image)  # the boxes the runtime judges the photo by
        faces = detector.finder.is_face(classes)
        if faces.sum() < 3:
            continue
        read = detector.classify_faces(image, xyxy[faces])
        likeness = read.likeness[~read.table]
        if len(likeness):
            rows.append((np.mean(likeness >= 0), np.median(likeness), np.mean(likeness >= -0.05)))
    return np.array(rows, np.float64).reshape(-1, len(STATISTICS))


def main(models: Path, scenes: Path, data: Path, cuts: "tuple[float, ...]" = ()) -> None:
    detector = TileDetector.load(active_dir(models))
    own = photo_statistics(detector, sorted((scenes / "images").glob("*.jpg")))
    other = photo_statistics(detector, [*dataset_images(data, "val"), *list(dataset_images(data, "train"))[:200]])
    print(f"{len(own)} photos of the set, {len(other)} of another")
    for k, name in enumerate(STATISTICS):
        print(f"{name}: the set's 5th percentile {np.quantile(own[:, k], 0.05):.3f}, median {np.median(own[:, k]):.3f}; "
              f"the other's 95th percentile {np.quantile(other[:, k], 0.95):.3f}, highest {other[:, k].max():.3f}")
    for cut in cuts:
        print(f"share with likeness >= 0 at least {cut:g}: {int(np.sum(own[:, 0] >= cut))} of the set's {len(own)} photos, "
              f"{int(np.sum(other[:, 0] >= cut))} of the other's {len(other)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]),
         tuple(float(cut) for cut in sys.argv[4].split(",")) if len(sys.argv) > 4 else ())
