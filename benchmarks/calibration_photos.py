"""How many calibration photos read as the layout, and whether each tile of a reading is named as labeled.

    .venv/bin/python benchmarks/calibration_photos.py FOLDER... [--models DIR] [--set layout.FIELD=VALUE]

FOLDER holds calibration photos with labels (`python -m datasets.synth --layout calibration`: `images/`
and `labels/`). Each photo is read by the models of DIR (default: the shipped `models/`), then its
layout (`vision.calibration_layout.read_layout`) twice: with every box only (`calibration_doubtful=0`,
`calibration_unsure=0`) and as `vision calibrate` reads it (`read_layout_photo`: leaving out the least
sure boxes and adding the finder's unsure ones, one at a time, while the layout does not fit). A
reading's tile is named right when the labeled tile its box overlaps most (IoU >= 0.5) has the name its
place gives. Prints one line per folder and one JSON object per folder, then the time each photo's reading
took as calibrate reads it (detection and layout, decoding aside): median, p90 and max over every photo.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np

from tileset.classes import CLASS_NAMES
from training.evaluate import read_truth
from vision.boxes import box_iou
from vision.calibration_layout import LayoutReading, read_layout, read_layout_photo
from vision.detector import TileDetector
from vision.images import decode_image
from vision.settings import LayoutSettings, with_overrides


def named_right(reading: LayoutReading, photo: Path, width: int, height: int) -> tuple[int, int]:
    """(tiles named as labeled, tiles) of a reading that fits the layout."""
    truth = read_truth(photo, width, height)
    boxes = np.array([t.xyxy for t in reading.tiles], np.float32).reshape(-1, 4)
    iou = box_iou(boxes, truth.xyxy.astype(np.float32)) if len(truth.xyxy) else np.zeros((len(boxes), 0))
    right = 0
    for k, tile in enumerate(reading.tiles):
        j = int(iou[k].argmax()) if iou.shape[1] else -1
        right += bool(j >= 0 and iou[k, j] >= 0.5 and CLASS_NAMES[truth.class_id[j]] == tile.expected)
    return right, len(reading.tiles)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--models", type=Path, default=REPO / "models")
    p.add_argument("--set", action="append", default=[], metavar="layout.FIELD=VALUE", dest="overrides")
    args = p.parse_args(argv)
    try:
        settings = with_overrides(LayoutSettings(), [o.removeprefix("layout.") for o in args.overrides])
    except ValueError as error:
        p.error(str(error))
    every_box = replace(settings, calibration_doubtful=0, calibration_unsure=0)
    detector = TileDetector.load(args.models)
    seconds: list[float] = []  # every photo's reading as calibrate reads it, decoding aside
    for folder in args.folders:
        photos = sorted((folder / "images").glob("*.jpg")) + sorted((folder / "images").glob("*.png"))
        fits = {"every_box": 0, "as_calibrate_reads": 0}
        right = total = 0
        for photo in photos:
            picture = decode_image(photo, detector.settings, reduce_to=detector.settings.decode_long_side).bgr
            fits["every_box"] += read_layout(detector.detect(picture), settings=every_box).ok
            started = time.perf_counter()
            reading = read_layout_photo(detector, picture, settings=settings)  # as vision calibrate reads it
            seconds.append(time.perf_counter() - started)
            if reading.ok:
                fits["as_calibrate_reads"] += 1
                got, count = named_right(reading, photo, picture.shape[1], picture.shape[0])
                right, total = right + got, total + count
        print(f"{folder}: {len(photos)} photos; layout read with every box {fits['every_box']}, as calibrate "
              f"reads it {fits['as_calibrate_reads']}; tiles of those readings named as labeled {right}/{total}")
        print(json.dumps({"folder": str(folder), "photos": len(photos), **fits, "tiles_named_right": right,
                          "tiles": total}))
    ms = np.array(seconds) * 1000
    if len(ms):
        print(f"read as calibrate reads it, every photo ({len(ms)}): median {np.median(ms):.0f} ms, "
              f"p90 {np.percentile(ms, 90):.0f} ms, max {ms.max():.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
