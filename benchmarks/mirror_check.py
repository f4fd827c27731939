"""How the finder's boxes fare under the mirror check (stop 37): each box of one run of the finder at 0.1 and up,
the best confidence the finder gives it in the mirror image (a box overlapping by `MirrorSettings.match_iou`), and
whether it lies on a labeled tile (IoU >= 0.5) or on none (IoU < 0.3); then, per folder, the tiles found, the
false boxes, the photos with more than one and the box precision under each rule: keep a box at the threshold
(0.25) or up only when its confidence reaches SURE or the mirror's reaches CONFIRM. One run of the finder on the
photo as it is (no stretched-photo pass: `training.evaluate` reads the runtime's whole pipeline).

    .venv/bin/python benchmarks/mirror_check.py MODELS DIR[:SPLIT] ... [--rules SURE/CONFIRM,...]

DIR is a YOLO folder (images/ and labels/, or images/SPLIT and labels/SPLIT). Default rules: 1/0 (no check),
0.5/1 (a threshold of 0.5 instead), 0.5/0.3, 0.7/0.25, 0.7/0.3 (the setting), 1/0.3 (every box checked).
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1]))

import argparse
from pathlib import Path

import cv2
import numpy as np

from training.evaluate import dataset_images, read_truth
from vision.boxes import box_iou
from vision.detector import TileDetector
from vision.registry import active_dir

RULES = "1/0,0.5/1,0.5/0.3,0.7/0.25,0.7/0.3,1/0.3"


def boxes_with_mirror(detector: TileDetector, folder: Path, split: str) -> list[dict]:
    s = detector.settings
    photos = []
    for path in dataset_images(folder, split):
        image = cv2.imread(str(path))
        if image is None:
            continue
        h, w = image.shape[:2]
        xyxy, conf, _ = detector.find_tiles(image, s.conf_threshold)
        mirror_conf = detector.confidence_in_mirror(image, xyxy, 0.05)
        photos.append(dict(conf=conf, mirror=mirror_conf, iou=box_iou(xyxy, read_truth(path, w, h).xyxy)))
    return photos


def judged(photos: list[dict], sure: float, confirm: float) -> tuple[int, int, int, int]:
    """Tiles, tiles found, false boxes, photos with more than one false box."""
    tiles = found = false = over_one = 0
    for photo in photos:
        kept = (photo["conf"] >= sure) | (photo["mirror"] >= confirm)
        iou = photo["iou"][kept]
        tiles += iou.shape[1]
        if iou.shape[1] and len(iou):
            found += int((iou >= 0.5).any(axis=0).sum())
        on_tile = (iou >= 0.5).any(axis=1) if iou.shape[1] else np.zeros(len(iou), bool)
        best = iou.max(axis=1) if iou.shape[1] else np.zeros(len(iou))
        n_false = int((~on_tile & (best < 0.3)).sum())
        false += n_false
        over_one += n_false > 1
    return tiles, found, false, over_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path)
    parser.add_argument("folders", nargs="+", help="DIR or DIR:SPLIT")
    parser.add_argument("--rules", default=RULES, help=f"SURE/CONFIRM pairs (default {RULES})")
    args = parser.parse_args()
    detector = TileDetector.load(active_dir(args.models))
    rules = [tuple(float(v) for v in rule.split("/")) for rule in args.rules.split(",")]
    for spec in args.folders:
        folder, _, split = spec.partition(":")
        photos = boxes_with_mirror(detector, Path(folder), split)
        print(f"== {spec}: {len(photos)} photos")
        for sure, confirm in rules:
            tiles, found, false, over_one = judged(photos, sure, confirm)
            precision = found / max(found + false, 1)
            print(f"  sure {sure:4.2f} confirm {confirm:4.2f}: found {found}/{tiles}, false boxes {false}, "
                  f"photos with > 1 {over_one}, box precision {100 * precision:.2f} %")


if __name__ == "__main__":
    main()
