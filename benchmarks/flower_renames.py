"""What naming flowers one of each renames, against the truth of rendered scenes (stop 45): every box the assignment
would rename with no floor (`one_flower_of_each.min_chance=0`), split at `--floor` by the chance its reading gives the new
flower, and whether it was read right before and after. Chooses `OneFlowerSettings.min_chance`.

    .venv/bin/python benchmarks/flower_renames.py ROUND/SET [ROUND/SET ...] [--floor 1e-5]

Each ROUND/SET folder is one of `benchmarks/calibration_round.sh`'s: `scn/` (scenes of `datasets.synth`) and
`models/` (the version its scenes are read with). Each photo is detected once, as `training.evaluate` detects it; a
box renamed is matched to the truth tile it overlaps by half ("none": no tile there).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileset.classes import CLASS_NAMES
from training.evaluate_read import scenes_from_dir
from vision.boxes import box_iou
from vision.detector import TileDetector
from vision.registry import active_dir
from vision.rules import BOXES, RULE_NAMES, apply_rules, one_flower_of_each
from vision.settings import OneFlowerSettings


def renames(detector: TileDetector, image: np.ndarray) -> list[tuple[np.ndarray, str, str, float]]:
    """Each box of `image` the assignment renames: its box, its reading before and after, the new reading's chance."""
    sighting = apply_rules(BOXES, detector.sight(image), detector)
    boxes = sighting.found.xyxy[detector.is_face(sighting.found.classes)]
    if not len(boxes):
        return []
    before = detector.classify_faces(sighting.image_bgr, boxes)  # the rules of the faces up to this one
    after = one_flower_of_each(before, OneFlowerSettings(min_chance=0.0), detector)
    return [(boxes[k], CLASS_NAMES[before.ids[k]], CLASS_NAMES[after.ids[k]], float(after.confidence[k]))
            for k in np.flatnonzero(after.ids != before.ids)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", type=Path, help="ROUND/SET folders (scn/, models/)")
    parser.add_argument("--floor", type=float, default=1e-5, help="where to split the renames (default 1e-5)")
    args = parser.parse_args(argv)
    tally = {band: [0, 0, 0] for band in ("under", "over")}  # renamed, wrong after, right before
    for folder in args.sets:
        loaded = TileDetector.load(active_dir(folder / "models"))
        later = RULE_NAMES[RULE_NAMES.index("one_flower_of_each"):]  # applied by hand, then none after it
        detector = loaded.with_settings(replace(loaded.settings, rules_off=frozenset(later)))
        for scene in scenes_from_dir(folder / "scn"):
            image = cv2.imread(str(scene.image))
            if image is None:
                print(f"{scene.image}: cannot be read", file=sys.stderr)
                continue
            truth = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
            for box, before, after, chance in renames(detector, image):
                overlaps = box_iou(box[None], truth)[0] if len(truth) else np.zeros(0)
                want = scene.truth_tiles[int(overlaps.argmax())][0] if len(overlaps) and overlaps.max() >= 0.5 else "none"
                band = "under" if chance < args.floor else "over"
                tally[band][0] += 1
                tally[band][1] += after != want
                tally[band][2] += before == want
                print(f"  {scene.name}: {before} -> {after} (chance {chance:.2g}), truth {want}")
        print(f"{folder}: read", file=sys.stderr, flush=True)
    for band, (renamed, wrong, right_before) in tally.items():
        print(f"renamed with a chance {band} {args.floor:g}: {renamed}; wrong after {wrong}; read right before {right_before}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
