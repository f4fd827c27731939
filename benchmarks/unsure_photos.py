"""Photos whose boxes the finder is sure of none of (stop 38, `unsure_photo_boxes`): for each bound K, the photos
with at most K boxes after the mirror check, none reaching `mirror_sure_conf`, and the boxes they hold that lie on
a labeled tile (IoU >= 0.5, lost when such a photo shows no tile) or on none (IoU < 0.3, removed). One run of the
finder on the photo as it is, with the mirror check (no stretched-photo pass: `vision.evaluate` reads the
runtime's whole pipeline).

    .venv/bin/python benchmarks/unsure_photos.py MODELS DIR[:SPLIT] ... [--bounds 2,4,6,8,13]

DIR is a YOLO folder (images/ and labels/, or images/SPLIT and labels/SPLIT).
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1]))

import argparse
from pathlib import Path

import cv2

from vision.boxes import box_iou
from vision.detector import TileDetector
from vision.evaluate import dataset_images, read_truth
from vision.registry import active_dir


def photos_after_the_mirror_check(detector: TileDetector, folder: Path, split: str) -> list[dict]:
    photos = []
    for path in dataset_images(folder, split):
        image = cv2.imread(str(path))
        if image is None:
            continue
        h, w = image.shape[:2]
        (xyxy, conf, _), _ = detector._confirmed_in_mirror(image, detector.find_tiles(image))
        iou = box_iou(xyxy, read_truth(path, w, h).xyxy)
        on_tile = int((iou >= 0.5).any(axis=1).sum())
        on_none = int((iou.max(axis=1, initial=0.0) < 0.3).sum())
        photos.append(dict(boxes=len(xyxy), most=float(conf.max(initial=0.0)), on_tile=on_tile, on_none=on_none))
    return photos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path)
    parser.add_argument("folders", nargs="+", help="DIR or DIR:SPLIT")
    parser.add_argument("--bounds", default="2,4,6,8,13", help="values of K (default 2,4,6,8,13)")
    args = parser.parse_args()
    detector = TileDetector.load(active_dir(args.models))
    sure = detector.settings.mirror_sure_conf
    bounds = [int(v) for v in args.bounds.split(",")]
    for spec in args.folders:
        folder, _, split = spec.partition(":")
        photos = photos_after_the_mirror_check(detector, Path(folder), split)
        with_boxes = sum(p["boxes"] > 0 for p in photos)
        print(f"== {spec}: {len(photos)} photos, {with_boxes} with boxes, "
              f"{sum(p['on_none'] for p in photos)} boxes on no tile")
        for bound in bounds:
            taken = [p for p in photos if 0 < p["boxes"] <= bound and p["most"] < sure]
            print(f"  K {bound:2d}: {len(taken)} photos with no box at {sure:g}; boxes on no tile removed "
                  f"{sum(p['on_none'] for p in taken)}, boxes on a tile lost {sum(p['on_tile'] for p in taken)}")


if __name__ == "__main__":
    main()
