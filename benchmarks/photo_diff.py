"""Which photos two models folders read differently: read exactly by one and not the other, with what differs.

    .venv/bin/python benchmarks/photo_diff.py DATASET OLD NEW [--split val] [--keep-backs]

DATASET is what `training.evaluate` takes (a data YAML, a folder with one, or a folder with images/ and labels/).
Each photo is read by the version in use of OLD and of NEW and matched against its labels by `training.evaluate`'s
own pairing, so the counts are its "images read exactly". Printed per photo that only one reads exactly: the
labeled tiles missed, read as another face (true->read) and the boxes on no labeled tile (extra), for each
folder; then the counts. What stop 43's model card says of the 51 clean val photos.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tileset.classes import BACK_ID, CLASS_NAMES
from training.evaluate import ImageMatch, dataset_images, has_back_labels, match_tiles, read_truth
from vision.detector import TileDetector
from vision.registry import active_dir


def differences(match: ImageMatch) -> list[str]:
    """What keeps a photo from being read exactly: missed tiles, misread faces, extra boxes."""
    paired_truth = {t for t, _ in match.pairs}
    paired_pred = {p for _, p in match.pairs}
    names = CLASS_NAMES
    found = [f"{names[match.truth_classes[t]]}->{names[match.predicted_classes[p]]}" for t, p in match.pairs
             if match.truth_classes[t] != match.predicted_classes[p]]
    missed = [f"missed {names[c]}" for t, c in enumerate(match.truth_classes) if t not in paired_truth]
    extra = [f"extra {names[c]}" for p, c in enumerate(match.predicted_classes) if p not in paired_pred]
    return missed + found + extra


def read_all(models: Path, images: list[Path], keep_backs: bool) -> dict[str, list[str]]:
    detector = TileDetector.load(active_dir(models))
    result = {}
    for image in images:
        try:
            dets, (width, height) = detector.detect_file(image)
        except ValueError as error:  # ImageError: a photo that cannot be read, as training.evaluate counts it
            result[image.name] = [f"unreadable: {error}"]
            continue
        if not keep_backs:
            dets = dets[dets.class_id != BACK_ID]
        result[image.name] = differences(match_tiles(read_truth(image, width, height), dets))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("old", type=Path, help="models folder (its version in use is read)")
    parser.add_argument("new", type=Path)
    parser.add_argument("--split", default="val")
    parser.add_argument("--keep-backs", action="store_true", help="count backs (default: only where labels have any)")
    args = parser.parse_args(argv)
    images = dataset_images(args.dataset, args.split)
    keep_backs = args.keep_backs or has_back_labels(images)
    old, new = read_all(args.old, images, keep_backs), read_all(args.new, images, keep_backs)
    lost = [n for n in old if not old[n] and new[n]]
    gained = [n for n in old if old[n] and not new[n]]
    for label, names in (("read exactly by OLD only", lost), ("read exactly by NEW only", gained)):
        for name in names:
            print(f"{label}: {name}\n  old: {', '.join(old[name]) or '-'}\n  new: {', '.join(new[name]) or '-'}")
    exact_old, exact_new = sum(not d for d in old.values()), sum(not d for d in new.values())
    print(f"photos: {len(images)}; read exactly: old {exact_old}, new {exact_new}; "
          f"lost {len(lost)}, gained {len(gained)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
