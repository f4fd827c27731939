"""Adapting to a tile set the shipped models never saw: read accuracy before and after, and the time it takes.

    .venv/bin/python benchmarks/adapt.py --art ART [--artwork gnome-smooth] [--labeled 20] [--test 100] [--work DIR]

ART: an artwork folder in the form of `datasets/fake_art.py`'s (`datasets.art`); the base data mixed in is the
shipped base photos (`models/base/`) unless `--base-data` names another.

1. Renders `labeled + test` scenes of one artwork (`python -m datasets.synth --only ARTWORK`).
2. Pre-labels the first `labeled` scenes with the shipped models (`datasets.label.prelabel_folder`), then
   plays the person reviewing them: each pre-labeled box that overlaps a true tile gets the true face
   (a face fix), the others are deleted, missed tiles are added; every change is saved through the
   label files as the review page saves it.
3. Reads the `test` other scenes with the shipped models (before), runs `training.adapt` on the labeled
   folder against a private copy of the models folder (the repository's registry is not touched),
   and reads the test scenes again with the new version (after).

Prints one JSON object (before, after, wall time of the adaptation, corrections made).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tileset.classes import CLASS_ID
from tileset.labelfiles import LabelBox, Photo, list_photos, read_labels
from vision.settings import BASE_PHOTOS_DIR, MODELS_DIR

DEFAULT_BASE = BASE_PHOTOS_DIR / "data.yaml"
MATCH_IOU = 0.5


def render_scenes(art: Path, artwork: str, out: Path, n: int, seed: int, workers: int) -> Path:
    if out.is_dir() and len(list((out / "images").glob("*.jpg"))) == n:
        return out
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "datasets.synth", "--art", str(art), "--out", str(out), "--n", str(n),
                    "--seed", str(seed), "--only", artwork, "--workers", str(workers)], check=True, cwd=REPO)
    return out


def split_scenes(scenes: Path, labeled: int, work: Path) -> tuple[Path, Path]:
    """work/club/images: the photos to label (no labels yet); work/test: images + true labels."""
    names = sorted(p.stem for p in (scenes / "images").glob("*.jpg"))
    club, test = work / "club", work / "test"
    for folder in (club, test):
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "images").mkdir(parents=True)
    (test / "labels").mkdir()
    (test / "truth").mkdir()
    for index, name in enumerate(names):
        image = scenes / "images" / f"{name}.jpg"
        if index < labeled:
            shutil.copy(image, club / "images" / image.name)
        else:
            (test / "images" / image.name).symlink_to(image.resolve())
            shutil.copy(scenes / "labels" / f"{name}.txt", test / "labels" / f"{name}.txt")
            shutil.copy(scenes / "truth" / f"{name}.json", test / "truth" / f"{name}.json")
    return club, test


def review_with_truth(photo: Photo, truth: tuple[LabelBox, ...], width: int, height: int) -> dict[str, int]:
    """The person's corrections, one saved edit at a time, until the labels hold every true tile."""
    from vision.boxes import match_boxes

    labels = photo.load()
    counts = {"faces_fixed": 0, "deleted": 0, "added": 0, "accepted": 0}
    truth_xyxy = np.array([b.xyxy(width, height) for b in truth], np.float32).reshape(-1, 4)
    pred_xyxy = np.array([b.xyxy(width, height) for b in labels.boxes], np.float32).reshape(-1, 4)
    matched = dict(match_boxes(pred_xyxy, truth_xyxy, MATCH_IOU))
    for p, t in sorted(matched.items()):
        if labels.boxes[p].class_id != truth[t].class_id:
            labels = labels.with_class(p, truth[t].class_id)
            photo.save(labels)
            counts["faces_fixed"] += 1
        else:
            counts["accepted"] += 1
    for p in sorted(set(range(len(pred_xyxy))) - set(matched), reverse=True):
        labels = labels.without(p)
        photo.save(labels)
        counts["deleted"] += 1
    for t in sorted(set(range(len(truth))) - set(matched.values())):
        labels = labels.with_added(truth[t])
        photo.save(labels)
        counts["added"] += 1
    photo.save(labels.marked_reviewed())
    return counts


def read_test_scenes(detector: object, test: Path) -> dict[str, object]:
    """Tile read accuracy (training.adapt.score_photos' measure) and hands read exactly (training.evaluate_read)."""
    from training.adapt import ReadMetrics, match_tiles
    from training.evaluate_read import judge, scenes_from_dir, summary
    from vision.images import load_image
    from vision.read import read_detections
    from vision.settings import DEFAULT_SETTINGS

    tiles = found = read = exact = 0
    outcomes = []
    for scene in scenes_from_dir(test):
        image = load_image(scene.image)
        dets = detector.detect(image)  # type: ignore[attr-defined]
        truth = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
        truth_cls = np.array([CLASS_ID[c] for c, _ in scene.truth_tiles], np.int64)
        f, r, extra = match_tiles(truth, truth_cls, dets.xyxy, dets.class_id, MATCH_IOU)
        tiles, found, read = tiles + len(truth), found + f, read + r
        exact += int(r == len(truth) and extra == 0)
        outcomes.append(judge(scene, read_detections(dets, scene.hand.context, DEFAULT_SETTINGS.layout)))
    tile_metrics = ReadMetrics(len(outcomes), tiles, found, read, exact)
    hands = summary(outcomes)
    return {**tile_metrics.to_json(), "hands_exact": hands["hands_exact"], "scores_right": hands["scores_right"],
            "text": f"{tile_metrics}; hands read exactly {hands['hands_exact']}/{hands['scenes']}, "
                    f"scores right {hands['scores_right']}"}


def private_models(source: Path, work: Path, weights: Path | None) -> Path:
    """A copy of the shipped models folder (plus `weights`/*.pt when the folder lacks its checkpoints)."""
    target = work / "models"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.is_file():
            shutil.copy2(path, target / path.name)
    for name in ("detector.pt", "classifier.pt"):
        if not (target / name).exists() and weights is not None and (weights / name).is_file():
            shutil.copy2(weights / name, target / name)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--art", type=Path, required=True, help="ART: the artwork folder the scenes are drawn from")
    parser.add_argument("--artwork", default="gnome-smooth", help="an artwork the shipped models never saw")
    parser.add_argument("--labeled", type=int, default=20)
    parser.add_argument("--test", type=int, default=100)
    parser.add_argument("--seed", type=int, default=770_000, help="first scene seed (far from training seeds)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the shipped models folder")
    parser.add_argument("--weights", type=Path, help="folder with detector.pt / classifier.pt if --models lacks them")
    parser.add_argument("--base-data", type=Path, default=DEFAULT_BASE)
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--workers", type=int, default=2, help="scene rendering processes")
    parser.add_argument("--work", type=Path, default=Path("/tmp/mcr-adapt-bench"))
    args = parser.parse_args(argv)

    from datasets.label import prelabel_folder
    from training.adapt import adapt
    from vision.detector import TileDetector
    from vision.images import load_image

    args.work.mkdir(parents=True, exist_ok=True)
    scenes = render_scenes(args.art, args.artwork, args.work / "scenes", args.labeled + args.test, args.seed,
                           args.workers)
    club, test = split_scenes(scenes, args.labeled, args.work)
    models = private_models(args.models, args.work, args.weights)
    shipped = TileDetector.load(models)

    started = time.monotonic()
    report = prelabel_folder(club, shipped, "shipped")
    prelabel_seconds = time.monotonic() - started
    corrections = {"faces_fixed": 0, "deleted": 0, "added": 0, "accepted": 0}
    for photo in list_photos(club):
        image = load_image(photo.image)
        truth = read_labels(scenes / "labels" / f"{photo.name}.txt")
        for key, value in review_with_truth(photo, truth, image.shape[1], image.shape[0]).items():
            corrections[key] += value

    before = read_test_scenes(shipped, test)
    print(f"before: {before['text']}", flush=True)

    started = time.monotonic()
    result = adapt(club, base_data=args.base_data, epochs=args.epochs, device=args.device, models_root=models,
                   name=args.artwork, command="benchmarks/adapt.py", log=lambda line: print(line, flush=True))
    adapt_seconds = time.monotonic() - started
    after = read_test_scenes(TileDetector.load(result.version_dir), test)
    print(f"after: {after['text']}", flush=True)

    summary = {
        "artwork": args.artwork, "labeled_scenes": args.labeled, "test_scenes": len(list_photos(test)),
        "prelabel": {"photos": report.labeled, "boxes": report.boxes, "seconds": round(prelabel_seconds, 1)},
        "corrections": corrections,
        "before": before, "after": after,
        "held_back": {"old": result.old.to_json(), "new": result.new.to_json()},
        "promoted": result.decision.promote, "reason": result.decision.reason,
        "retrained": list(result.retrained), "adapt_wall_seconds": round(adapt_seconds, 1),
    }
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
