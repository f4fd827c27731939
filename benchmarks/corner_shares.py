"""How a calibrated set's corner reading (`RankSettings.corner_min_share`) was bounded (model card, stop 41): each
suited face the corner reads with the bound off, the head's largest chance for another rank of the suit it was read
in, and whether the corner changed the face rightly (to its label) or wrongly (away from it).

    .venv/bin/python benchmarks/corner_shares.py SCENES:MODELS [SCENES:MODELS ...]

SCENES: a `datasets.synth` folder of one set (truth/); MODELS: a calibrated version whose set prints its ranks.
Prints the counts per folder, the shares of the right and wrong changes, and for each bound the share of faces read
and the changes kept.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1]))


import sys
from pathlib import Path

import numpy as np

from scoring.tiles import TILE_NAMES, Tile
from tileset.classes import CLASS_NAMES
from training.evaluate_read import scenes_from_dir
from vision.boxes import box_iou
from vision.images import decode_image
from vision.ranks import other_rank_share
from vision.read import load_detector
from vision.registry import active_dir
from vision.rules import BOXES, apply_rules, corner_numerals
from vision.settings import DetectorSettings, with_overrides

BOUNDS = (1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)


def faces_read(scenes: Path, models: Path) -> list[tuple[float, bool, bool]]:
    """(another rank's chance, changed rightly, changed wrongly) of each face the corner reads."""
    detector = load_detector(active_dir(models), with_overrides(
        DetectorSettings(), ["ranks.corner_min_share=0", "rules_off=corner_numerals"]))  # applied here, by hand
    own = detector.settings.ranks
    rank_columns = detector.face_classifier.rank_columns
    rows = []
    for scene in scenes_from_dir(scenes):
        sighting = apply_rules(BOXES, detector.sight(decode_image(str(scene.image), detector.settings).bgr), detector)
        xyxy = sighting.found.xyxy[detector.is_face(sighting.found.classes)]
        if not len(xyxy):
            continue
        faces = detector.classify_faces(sighting.image_bgr, xyxy)
        after = corner_numerals(faces, own, detector)
        if faces.probs is None:
            continue
        among = np.ones(len(xyxy), bool) if faces.numerals_read is None else ~faces.numerals_read
        labeled = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
        overlap = box_iou(xyxy, labeled)
        for i in np.flatnonzero(among):
            name = CLASS_NAMES[faces.ids[i]]
            if name not in TILE_NAMES or not Tile.parse(name).is_suited:
                continue
            tile = Tile.parse(name)
            share = other_rank_share(faces.probs[i, rank_columns[tile.suit]], tile.rank)
            label = scene.truth_tiles[int(overlap[i].argmax())][0] if overlap[i].max() >= 0.5 else "-"
            changed = faces.ids[i] != after.ids[i]
            rows.append((share, changed and label == CLASS_NAMES[after.ids[i]], changed and label == name))
    return rows


def main() -> None:
    rows = []
    for arg in sys.argv[1:]:
        scenes, models = arg.split(":")
        these = faces_read(Path(scenes), Path(models))
        print(f"{scenes}: {len(these)} read, {sum(r for _, r, _ in these)} changed rightly, "
              f"{sum(w for _, _, w in these)} wrongly")
        rows += these
    share = np.array([s for s, _, _ in rows])
    right = np.array([r for _, r, _ in rows], bool)
    wrong = np.array([w for _, _, w in rows], bool)
    print(f"all: {len(rows)} read, {right.sum()} changed rightly, {wrong.sum()} wrongly")
    print("right changes' shares:", " ".join(f"{s:.1e}" for s in np.sort(share[right])))
    print("wrong changes' shares:", " ".join(f"{s:.1e}" for s in np.sort(share[wrong])))
    for bound in BOUNDS:
        kept = share >= bound
        print(f"bound {bound:g}: faces read {100 * kept.mean():.1f} %, right changes kept {(right & kept).sum()} "
              f"of {right.sum()}, wrong kept {(wrong & kept).sum()} of {wrong.sum()}")


if __name__ == "__main__":
    main()
