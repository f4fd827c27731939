"""Which labeled tiles the reader leaves unfound, by kind: where a set's recall goes.

    .venv/bin/python benchmarks/finder_misses.py DATASET [--split val] [--models DIR] [--show 8] [--json]

DATASET is what `training.evaluate` takes. Each photo is read by the version in use of DIR (default: the
repository's `models/`) and paired with its labels by `training.evaluate`'s own pairing, so "found" is its
recall. Every labeled tile is put in one kind, the first that fits:

* `stretched photo`: a tile of a photo its labeling tool stretched beyond recognition (`is_stretched`);
* `back`;
* `edge-on face`: a face lying flat seen from low: its box more than `EDGE_ON_ASPECT` times wider than tall
  and under `EDGE_ON_PX` pixels tall, a sliver of face no reader can name;
* `covered face`: a face whose box lies at least `COVERED_SHARE` inside another labeled tile's box (leaning,
  overlapping, partly hidden tiles);
* `face`: the rest, counted again by the box's height in pixels.

Then the faces missed most and the photos with the most misses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileset.classes import BACK_ID, CLASS_NAMES
from training.evaluate import DatasetError, LabeledTiles, dataset_images, is_stretched, match_tiles, read_truth
from vision.boxes import share_on
from vision.detector import TileDetector
from vision.registry import active_dir

EDGE_ON_ASPECT = 2.0
EDGE_ON_PX = 12.0
COVERED_SHARE = 0.2
KINDS = ("stretched photo", "back", "edge-on face", "covered face", "face")
HEIGHTS_PX = (16, 32, 64)  # the faces' rows: under 16 px tall, 16-32, 32-64, 64 and over


def covered_shares(xyxy: np.ndarray) -> np.ndarray:
    """For each box, the largest share of its area inside one other box."""
    shares = share_on(xyxy, xyxy)
    np.fill_diagonal(shares, 0.0)
    return shares.max(axis=1, initial=0.0)


def tile_kinds(truth: LabeledTiles) -> list[str]:
    """The kind (`KINDS`) of every labeled tile of one photo."""
    if is_stretched(truth):
        return ["stretched photo"] * len(truth.xyxy)
    width = truth.xyxy[:, 2] - truth.xyxy[:, 0]
    height = truth.xyxy[:, 3] - truth.xyxy[:, 1]
    covered = covered_shares(truth.xyxy)
    kinds = []
    for i, class_id in enumerate(truth.class_id):
        if class_id == BACK_ID:
            kinds.append("back")
        elif width[i] > EDGE_ON_ASPECT * height[i] and height[i] < EDGE_ON_PX:
            kinds.append("edge-on face")
        elif covered[i] >= COVERED_SHARE:
            kinds.append("covered face")
        else:
            kinds.append("face")
    return kinds


def _height_rows() -> list[str]:
    bounds = (0, *HEIGHTS_PX)
    return [f"face {lo}-{hi} px tall" for lo, hi in pairwise(bounds)] + [f"face {bounds[-1]}+ px tall"]


HEIGHT_ROWS = _height_rows()


def height_row(height_px: float) -> str:
    return HEIGHT_ROWS[int(np.searchsorted(HEIGHTS_PX, height_px, side="right"))]


@dataclass
class Misses:
    """Labeled tiles and those found, by kind (and faces by height); what was missed, by face and by photo."""

    labeled: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    missed_faces: Counter[str] = field(default_factory=Counter)
    missed_in_photo: Counter[str] = field(default_factory=Counter)

    def add(self, photo: str, truth: LabeledTiles, found: set[int]) -> None:
        heights = truth.xyxy[:, 3] - truth.xyxy[:, 1]
        for i, kind in enumerate(tile_kinds(truth)):
            rows = [kind] + ([height_row(float(heights[i]))] if kind == "face" else [])
            for row in rows:
                self.labeled[row] += 1
                self.found[row] += i in found
            if i not in found:
                self.missed_faces[CLASS_NAMES[int(truth.class_id[i])]] += 1
                self.missed_in_photo[photo] += 1

    def rows(self) -> list[str]:
        return [r for r in (*KINDS, *HEIGHT_ROWS) if self.labeled[r]]

    def summary(self, show: int) -> dict:
        kinds = {row: {"labeled": self.labeled[row], "found": self.found[row],
                       "recall": round(self.found[row] / self.labeled[row], 4)} for row in self.rows()}
        total = sum(self.labeled[k] for k in KINDS)
        return {"labeled_tiles": total, "found": sum(self.found[k] for k in KINDS), "kinds": kinds,
                "missed_faces": dict(self.missed_faces.most_common(show)),
                "photos_with_most_misses": dict(self.missed_in_photo.most_common(show))}


def find_misses(detector: TileDetector, images: list[Path]) -> Misses:
    misses = Misses()
    for image in images:
        detections, (width, height) = detector.detect_file(image)
        truth = read_truth(image, width, height)
        match = match_tiles(truth, detections)
        misses.add(image.name, truth, {t for t, _ in match.pairs})
    return misses


def format_table(summary: dict) -> str:
    lines = ["| tiles | labeled | found | recall |", "|---|---|---|---|"]
    for row, figures in summary["kinds"].items():
        lines.append(f"| {row} | {figures['labeled']} | {figures['found']} | {100 * figures['recall']:.2f} % |")
    lines.append(f"| all | {summary['labeled_tiles']} | {summary['found']} | "
                 f"{100 * summary['found'] / max(summary['labeled_tiles'], 1):.2f} % |")
    lines.append("")
    lines.append("missed most: " + ", ".join(f"{name} {n}" for name, n in summary["missed_faces"].items()))
    lines.append("photos with the most misses: " + ", ".join(f"{name} ({n})" for name, n in summary["photos_with_most_misses"].items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--split", default="val")
    parser.add_argument("--models", type=Path, default=Path(__file__).resolve().parents[1] / "models")
    parser.add_argument("--show", type=int, default=8, help="faces and photos listed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        images = dataset_images(args.dataset, args.split)
    except DatasetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = find_misses(TileDetector.load(active_dir(args.models)), images).summary(args.show)
    print(json.dumps(summary, indent=1) if args.json else format_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
