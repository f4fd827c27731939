"""The finder's score for the back class of the boxes it takes for faces, against the truth of rendered scenes
(stop 44): how far a back boxed as a face stands from the faces, for `BacksAsFacesSettings.back_chance`.

    .venv/bin/python benchmarks/back_scores.py ROUND/SET [ROUND/SET ...]

Each ROUND/SET folder is one of `benchmarks/calibration_round.sh`'s: `scn/` (scenes of `datasets.synth`) and
`models/` (the version its scenes are read with). Only the finder runs (`TileDetector.find_boxes`):
each scene's boxes over the threshold after NMS, matched to the truth tile they overlap by half. Prints the
quantiles of the back score of faces boxed as faces, and each back boxed as a face with its score.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.evaluate_read import scenes_from_dir  # noqa: E402
from vision.boxes import box_iou  # noqa: E402
from vision.detector import TileDetector  # noqa: E402
from vision.models import TILE_FINDER_NAMES  # noqa: E402
from vision.registry import active_dir  # noqa: E402

QUANTILES = (0.5, 0.9, 0.99, 0.999, 1.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", type=Path, help="ROUND/SET folders (scn/, models/)")
    args = parser.parse_args(argv)
    tile, back = TILE_FINDER_NAMES.index("tile"), TILE_FINDER_NAMES.index("back")
    faces_back_scores: list[float] = []
    backs_as_faces: list[tuple[str, float, float]] = []
    backs_as_backs = 0
    for folder in args.sets:
        detector = TileDetector.load(active_dir(folder / "models"))
        for scene in scenes_from_dir(folder / "scn"):
            image = cv2.imread(str(scene.image))
            if image is None:
                print(f"{scene.image}: cannot be read", file=sys.stderr)
                continue
            found = detector.find_boxes(image)
            xyxy, classes, scores = found.xyxy, found.classes, found.class_scores
            truth = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
            if not len(xyxy) or not len(truth):
                continue
            overlaps = box_iou(xyxy, truth)
            nearest = overlaps.argmax(axis=1)
            for i, j in enumerate(nearest):
                if overlaps[i, j] < 0.5:
                    continue
                name = scene.truth_tiles[j][0]
                if name == "back":
                    if classes[i] == tile:
                        backs_as_faces.append((scene.name, float(scores[i, tile]), float(scores[i, back])))
                    else:
                        backs_as_backs += 1
                elif classes[i] == tile:
                    faces_back_scores.append(float(scores[i, back]))
        print(f"{folder}: read", file=sys.stderr, flush=True)
    ranked = np.sort(np.array(faces_back_scores))
    if len(ranked):
        shown = ", ".join(f"{q:g}: {ranked[int(q * (len(ranked) - 1))]:.4f}" for q in QUANTILES)
        print(f"faces boxed as faces: {len(ranked)}; their back score at quantiles {shown}")
    print(f"backs boxed as backs: {backs_as_backs}; as faces: {len(backs_as_faces)}")
    for name, face_score, back_score in sorted(backs_as_faces, key=lambda row: row[2]):
        print(f"  {name}: face {face_score:.3f}, back {back_score:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
