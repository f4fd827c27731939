"""How surely the tile finder alone boxes a set's labeled tiles, for one or more models folders side by side.

    .venv/bin/python benchmarks/finder_scores.py DATASET --models DIR [DIR ...] [--split val] [--floor 0.01] [--show 5] [--json]

DATASET is what `training.evaluate` takes. For every labeled tile, the finder's score (`find_boxes` down to
`--floor`, no reader rule) of its best box overlapping the label by `training.evaluate.MATCH_IOU`, 0 when none
does; per folder the median over the tiles and the weakest tiles. A fine-tune that fades a kind of tile shows
here before its tiles fall under the reader's threshold. Also the finder's boxes at the floor that overlap no
label that much, by photo: tiles the labels leave out, or clutter.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileset.classes import CLASS_NAMES
from training.evaluate import MATCH_IOU, DatasetError, dataset_images, read_truth
from vision.boxes import box_iou
from vision.detector import TileDetector
from vision.registry import active_dir


def finder_scores(detector: TileDetector, images: list[Path], floor: float, show: int) -> dict[str, Any]:
    tiles: list[tuple[float, str, str]] = []
    unlabeled: dict[str, int] = {}
    for image in images:
        picture = cv2.imread(str(image))
        if picture is None:
            raise DatasetError(f"cannot read {image}")
        height, width = picture.shape[:2]
        truth = read_truth(image, width, height)
        found = detector.find_boxes(picture, conf_threshold=floor)
        overlap = box_iou(truth.xyxy, found.xyxy) >= MATCH_IOU
        best = np.where(overlap, found.conf[None, :], 0.0).max(axis=1, initial=0.0)
        tiles += [(round(float(score), 3), CLASS_NAMES[int(c)], image.name) for score, c in zip(best, truth.class_id, strict=True)]
        on_no_label = int((~overlap.any(axis=0)).sum())
        if on_no_label:
            unlabeled[image.name] = on_no_label
    scores = [score for score, _, _ in tiles]
    return {"tiles": len(tiles), "median": round(float(np.median(scores)), 3) if scores else None,
            "weakest": [list(tile) for tile in sorted(tiles)[:show]],
            "boxes_on_no_label": sum(unlabeled.values()),
            "photos_with_most_boxes_on_no_label": dict(sorted(unlabeled.items(), key=lambda kv: -kv[1])[:show])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--models", type=Path, nargs="+", required=True, help="models folders (their versions in use)")
    parser.add_argument("--split", default="val")
    parser.add_argument("--floor", type=float, default=0.01, help="lowest finder score kept")
    parser.add_argument("--show", type=int, default=5, help="weakest tiles and photos listed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        images = dataset_images(args.dataset, args.split)
        figures = {str(models): finder_scores(TileDetector.load(active_dir(models)), images, args.floor, args.show)
                   for models in args.models}
    except DatasetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(figures, indent=1))
    for models, f in ({} if args.json else figures).items():
        weakest = ", ".join(f"{face} {score} ({photo})" for score, face, photo in f["weakest"])
        print(f"{models}: {f['tiles']} tiles, median score {f['median']}; weakest: {weakest}; "
              f"boxes on no label at {args.floor}: {f['boxes_on_no_label']} {f['photos_with_most_boxes_on_no_label']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
