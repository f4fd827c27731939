"""The faces the repair search turns into a flower or season through their second reading (why a face read
by a few-shot head has no flower as its second reading: `vision.rules.named`), each with what its box shows by the
labels.

    .venv/bin/python benchmarks/flower_seconds.py SETDIR [SETDIR ...] [--set FIELD=VALUE ...]

SETDIR: a set folder of `benchmarks/calibration_round.sh` (scn/, models/). Prints one line per such change and the
count of right and wrong ones.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1]))


import argparse
from pathlib import Path

import numpy as np

from tileset.classes import FLOWER_NAMES
from training.evaluate_read import judge, scenes_from_dir
from vision.boxes import box_iou
from vision.images import decode_image
from vision.issues import IssueCode
from vision.read import HandReader, load_detector
from vision.registry import active_dir
from vision.settings import DetectorSettings, with_overrides


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set_dirs", nargs="+", type=Path)
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE")
    args = parser.parse_args()
    settings = with_overrides(DetectorSettings(), args.overrides)
    right = wrong = 0
    for set_dir in args.set_dirs:
        detector = load_detector(active_dir(set_dir / "models"), settings)
        reader = HandReader(detector)
        for scene in scenes_from_dir(set_dir / "scn"):
            result = reader.read(decode_image(str(scene.image), detector.settings).bgr)
            for found in result.issues:
                if found.code != IssueCode.SECOND_READING or found.params.get("read_as") not in FLOWER_NAMES:
                    continue
                labeled = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
                overlap = box_iou(result.detections.xyxy[list(found.tiles[:1])], labeled)[0]
                label = scene.truth_tiles[int(overlap.argmax())][0] if overlap.max() >= 0.3 else "no tile"
                is_right = label in FLOWER_NAMES
                right, wrong = right + is_right, wrong + (not is_right)
                print(f"{set_dir}: {scene.name} {found.params.get('name')} -> {found.params.get('read_as')}, "
                      f"labeled {label}, hand read exactly: {judge(scene, result).exact}", flush=True)
    print(f"turned into flowers: {right} rightly, {wrong} wrongly")


if __name__ == "__main__":
    main()
