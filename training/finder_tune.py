"""The tile finder fine-tuned on calibration photos, for a set it scores low on the club's table.

When the finder found some tiles of a calibration photo only among its unsure boxes
(`vision.calibration_layout.unsure_boxes`), the version it makes would miss them in every photo:
calibration cannot name tiles the finder does not box. Then calibration fine-tunes the finder's
`.pt` (`finder_for_version`) on augmented copies of the photo (every tile labeled, the club's table all
around them), mixed with labeled base photos (other sets, other tables) and bare tables of the training families (hard
negatives), backbone frozen and BatchNorm statistics kept (on a CPU with a batch of 8 they drift and
cost precision everywhere, model card, "Tables the finder has not met"), time-boxed. The new finder is
kept only when it finds more of held-out copies' tiles with no more false boxes there and no lower
precision on the base val photos (`finder_is_better`).
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tileset.classes import BACK, BACK_ID
from training.augment import augmented_copy
from training.calibration_photos import Pictures
from training.promotion import BasePhotos, base_train_photos
from vision.settings import CalibrateSettings

FINDER_TILE, FINDER_BACK = 0, 1  # the finder's classes (`vision.models.TILE_FINDER_NAMES`)


class FinderTuneError(RuntimeError):
    """The finder's fine-tune could not run (no checkpoint, no ultralytics): the old finder stays."""


@dataclass(frozen=True)
class LaidPhoto:
    """A calibration photo's pixels and its tiles' boxes (pixels), face-up and backs."""

    picture: np.ndarray
    faces: np.ndarray  # (N, 4)
    backs: np.ndarray  # (M, 4)


@dataclass(frozen=True)
class FinderTune:
    onnx: Path
    epochs: int
    batches: int
    seconds: float
    copies: int  # augmented copies of the photos trained on
    base_photos: int
    negatives: int


def yolo_lines(boxes: np.ndarray, cls: int, w: int, h: int) -> list[str]:
    """YOLO label lines (class, centre, size; 0-1) of pixel boxes on a w x h picture, clipped to it; a box left
    under 2 px is dropped."""
    lines = []
    for x1, y1, x2, y2 in np.asarray(boxes, np.float64).reshape(-1, 4):
        x1, x2 = max(0.0, x1), min(float(w), x2)
        y1, y2 = max(0.0, y1), min(float(h), y2)
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue  # pushed off the copy
        lines.append(f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return lines


def finder_label(label: Path) -> str:
    """A 43-class label file as the finder's two classes (backs stay backs, every face is a tile)."""
    lines = []
    for line in label.read_text(encoding="utf-8").splitlines() if label.is_file() else []:
        parts = line.split()
        if len(parts) == 5:
            lines.append(" ".join([str(FINDER_BACK if int(parts[0]) == BACK_ID else FINDER_TILE), *parts[1:]]))
    return "\n".join(lines) + ("\n" if lines else "")


def copies_of(photos: Sequence[LaidPhoto], count: int, rng: random.Random,
              settings: CalibrateSettings) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """`count` augmented copies of each photo (as the classifier's crops are cut from: `augmented_copy`),
    with where their face-up tiles and backs went."""
    out = []
    for photo in photos:
        every = np.concatenate([photo.faces, photo.backs]).reshape(-1, 4)
        for _ in range(count):
            copy, moved, _ = augmented_copy(photo.picture, every, rng, settings)
            out.append((copy, moved[: len(photo.faces)], moved[len(photo.faces):]))
    return out


def scenes_at_play(photos: Sequence[LaidPhoto], count: int, rng: random.Random
                   ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """`count` scenes of each photo's tiles at play on its table (`training.play_scenes`), with their boxes."""
    from training.play_scenes import scenes_of

    out = []
    for photo in photos:
        for scene in scenes_of(photo.picture, photo.faces, photo.backs, count, rng):
            out.append((scene.picture, scene.faces, scene.backs))
    return out


def write_finder_data(folder: Path, copies: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
                      base: Sequence[tuple[Path, Path]], negatives: Sequence[np.ndarray],
                      val: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> Path:
    """folder/data.yaml over folder/{train,val}/{images,labels}: the copies (faces as tiles, backs as
    backs), the base photos (image, 43-class label) in the finder's classes, the bare tables unlabeled."""
    import yaml

    for split in ("train", "val"):
        for kind in ("images", "labels"):
            (folder / split / kind).mkdir(parents=True, exist_ok=True)

    def put(split: str, name: str, picture: np.ndarray, text: str) -> None:
        cv2.imwrite(str(folder / split / "images" / f"{name}.jpg"), picture, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (folder / split / "labels" / f"{name}.txt").write_text(text, encoding="utf-8")

    for split, items in (("train", copies), ("val", val)):
        for k, (picture, faces, backs) in enumerate(items):
            h, w = picture.shape[:2]
            lines = yolo_lines(faces, FINDER_TILE, w, h) + yolo_lines(backs, FINDER_BACK, w, h)
            put(split, f"copy{k:04d}", picture, "\n".join(lines) + ("\n" if lines else ""))
    for k, (image, label) in enumerate(base):
        target = folder / "train" / "images" / f"base{k:04d}{image.suffix.lower()}"
        shutil.copy2(image, target)
        (folder / "train" / "labels" / f"base{k:04d}.txt").write_text(finder_label(label), encoding="utf-8")
    for k, picture in enumerate(negatives):
        put("train", f"table{k:04d}", picture, "")
    config = {"path": str(folder.resolve()), "train": "train/images", "val": "val/images",
              "names": {FINDER_TILE: "tile", FINDER_BACK: "back"}}
    (folder / "data.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder / "data.yaml"


def finetune_finder(work: Path, weights: Path, data_yaml: Path, imgsz: int, settings: CalibrateSettings, seed: int,
                    log: Callable[[str], None], copies: int = 0, base_photos: int = 0, negatives: int = 0) -> FinderTune:
    """Fine-tune the finder's `weights` on `data_yaml` (`write_finder_data`) with ultralytics on the CPU:
    the backbone frozen (`finder_freeze` layers), every BatchNorm layer kept in eval mode, no mosaic, a
    fixed number of epochs none of which would end past `finder_seconds`; exported to ONNX."""
    from training.export import export_checkpoint
    from training.train import _ultralytics_environment, train_time_boxed, ultralytics_on_stderr

    if not weights.is_file():
        raise FinderTuneError(f"no finder weights at {weights}")
    started = time.monotonic()
    _ultralytics_environment()
    import torch
    from ultralytics import YOLO

    def keep_batchnorm(trainer: Any) -> None:
        for module in trainer.model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.eval()

    with ultralytics_on_stderr():
        model = YOLO(str(weights))
        model.add_callback("on_train_batch_start", keep_batchnorm)
        run_done = train_time_boxed(
            model, settings.finder_seconds, settings.finetune_threads,
            data=str(data_yaml), epochs=settings.finder_epochs, imgsz=imgsz, batch=settings.finder_batch,
            device="cpu", workers=0, amp=False, optimizer="SGD", lr0=settings.finder_lr0, warmup_epochs=0,
            freeze=settings.finder_freeze, mosaic=0.0, close_mosaic=0, degrees=5.0, seed=seed,
            deterministic=True, project=str(work.resolve()), name="finder", exist_ok=True, plots=False,
            val=False, patience=settings.finder_epochs + 1, verbose=False)
        run = work / "finder" / "weights"
        checkpoint = run / "last.pt"  # no validation each epoch: the last one is the one
        if not checkpoint.is_file():
            raise FinderTuneError(f"fine-tuning the finder left no checkpoint in {run}")
        onnx = export_checkpoint(checkpoint, work / "finder.onnx", "detector")
    seconds = time.monotonic() - started
    log(f"  finder fine-tuned {run_done.epochs} epoch(s), {run_done.batches} batches ({seconds:.0f} s)")
    return FinderTune(onnx, run_done.epochs, run_done.batches, seconds, copies, base_photos, negatives)


@dataclass(frozen=True)
class FinderCheck:
    """A finder on held-out copies of the calibration photos: their tiles found (IoU >= 0.5), boxes on none."""

    tiles: int
    found: int
    false_boxes: int

    def to_json(self) -> dict[str, int]:
        return {"tiles": self.tiles, "found": self.found, "false_boxes": self.false_boxes}


def check_finder(detector: Any, copies: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
                 match_iou: float = 0.5) -> FinderCheck:
    """How many tiles of `copies` the finder of `detector` boxes, and how many of its boxes lie on no tile."""
    from vision.boxes import box_iou

    tiles = found = false = 0
    for picture, faces, backs in copies:
        truth = np.concatenate([faces, backs]).reshape(-1, 4)
        boxes, _, _ = detector.find_tiles(picture)
        tiles += len(truth)
        if len(boxes) and len(truth):
            iou = box_iou(truth, boxes)
            found += int((iou.max(axis=1) >= match_iou).sum())
            false += int((iou.max(axis=0) < match_iou).sum())
        else:
            false += len(boxes)
    return FinderCheck(tiles, found, false)


def finder_is_better(old: FinderCheck, new: FinderCheck, base_old: dict[str, Any] | None,
                     base_new: dict[str, Any] | None) -> tuple[bool, str]:
    """The fine-tuned finder is kept only when it finds more of the held-out copies' tiles, with no more
    false boxes there, and reads the base val photos with no lower precision and recall."""
    if new.found <= old.found:
        return False, f"it finds no more of the held-out copies' tiles ({old.found} -> {new.found} of {old.tiles})"
    if new.false_boxes > old.false_boxes:
        return False, f"more false boxes on the held-out copies ({old.false_boxes} -> {new.false_boxes})"
    if base_old is not None and base_new is not None:
        for key in ("box_precision", "recall"):
            if key in base_old and key in base_new and base_new[key] < base_old[key]:
                return False, f"base val {key} {base_old[key]:.2%} -> {base_new[key]:.2%}"
    return True, (f"held-out copies: tiles found {old.found} -> {new.found} of {old.tiles}, false boxes "
                  f"{old.false_boxes} -> {new.false_boxes}")


def missed_by_finder(detector: Any, picture: np.ndarray, tiles: np.ndarray, match_iou: float = 0.5) -> int:
    """How many of a calibration photo's `tiles` (boxes) the finder boxes nowhere at its threshold: found
    only among its unsure boxes, or placed by a person."""
    check = check_finder(detector, [(picture, tiles, np.zeros((0, 4), np.float32))], match_iou)
    return check.tiles - check.found


@dataclass(frozen=True)
class FinderOutcome:
    kept: bool
    reason: str
    onnx: Path | None
    checkpoint: Path | None
    card: dict[str, Any]


def tune_finder_for(work: Path, weights: Path, detector: Any, photos: Sequence[LaidPhoto], missed: int,
                    base_train: Sequence[Path], checked: Sequence[Path], base_old: dict[str, Any] | None,
                    settings: CalibrateSettings, seed: int, log: Callable[[str], None]) -> FinderOutcome:
    """The finder's `weights` fine-tuned on `photos` (`finetune_finder`) and judged against the version in use's finder
    (`finder_is_better`) on held-out copies and the base val photos `checked` (`base_old`: the version in
    use's figures on them)."""
    from datasets.tables import TRAIN_FAMILIES, render_empty, table_source
    from training.evaluate import evaluate, label_path_for

    started = time.monotonic()
    rng = random.Random(seed + 2)  # its own draws: the classifier's crops are cut as without it
    train = copies_of(photos, settings.finder_copies, rng, settings) + scenes_at_play(photos, settings.finder_scenes, rng)
    check = (copies_of(photos, settings.finder_check_copies, rng, settings)
             + scenes_at_play(photos, settings.finder_check_scenes, rng))
    base = [(image, label_path_for(image)) for image in base_train]
    source = table_source(TRAIN_FAMILIES, negatives=1.0)
    negatives = [render_empty(rng, 640, 480, source) for _ in range(settings.finder_negatives)]
    data_yaml = write_finder_data(work / "finder_data", train, base, negatives, check[:2])
    card: dict[str, Any] = {"missed": missed, "copies_and_scenes": len(train), "base_photos": len(base),
                            "negatives": len(negatives)}
    tune = finetune_finder(work, weights, data_yaml, int(detector.finder.imgsz), settings, seed, log,
                           len(train), len(base), len(negatives))
    from vision.detector import TileDetector
    from vision.models import TileFinder, open_session

    new_finder = TileFinder(open_session(tune.onnx, detector.settings), str(tune.onnx))
    new_detector = TileDetector(new_finder, detector.classifier, detector.settings)
    old_check, new_check = check_finder(detector, check), check_finder(new_detector, check)
    base_new = evaluate(new_detector, list(checked)).summary() if base_old is not None and checked else None
    kept, reason = finder_is_better(old_check, new_check, base_old, base_new)
    card.update({"epochs": tune.epochs, "batches": tune.batches, "seconds": round(time.monotonic() - started, 1),
                 "check_before": old_check.to_json(), "check_after": new_check.to_json(),
                 "base_val_before": None if base_old is None else {k: base_old.get(k) for k in ("box_precision", "recall")},
                 "base_val_after": None if base_new is None else {k: base_new.get(k) for k in ("box_precision", "recall")},
                 "kept": kept, "reason": reason})
    log(f"  the fine-tuned finder is {'kept' if kept else 'not kept'}: {reason} ({time.monotonic() - started:.0f} s)")
    return FinderOutcome(kept, reason, tune.onnx if kept else None,
                         work / "finder" / "weights" / "last.pt" if kept else None, card)


def finder_for_version(work: Path, parent_dir: Path, detector: Any, pictures: Pictures, missed: int, base: BasePhotos,
                       base_old: dict[str, Any] | None, settings: CalibrateSettings, seed: int, issues: list[str],
                       step: Callable[[float, str], None], version_dir: Path) -> dict[str, Any]:
    """The finder fine-tuned on the calibration photos and written into `version_dir` when kept
    (`tune_finder_for`); what was done, for the card. Without the .pt or ultralytics: not fine-tuned, and
    an issue when the finder `missed` tiles of the photos."""
    weights = parent_dir / (Path(detector.settings.detector_file).stem + ".pt")
    why_not = None
    if not weights.is_file():
        why_not = f"{parent_dir.name} has no {weights.name} to fine-tune"
    elif importlib.util.find_spec("ultralytics") is None:
        why_not = "ultralytics (the train extra) is not installed"
    if why_not is not None:
        if missed:  # a finder that missed tiles of the photo will miss them at play: the player is told
            issues.append(f"the finder missed {missed} tile(s), but {why_not}")
        return {"missed": missed, "kept": False, "reason": f"the finder was not fine-tuned: {why_not}"}
    base_train = base_train_photos(base, settings.finder_base_images, issues, "the finder's fine-tune")
    laid = [LaidPhoto(picture,
                      np.array([t.xyxy for t in r.tiles if t.expected != BACK], np.float32).reshape(-1, 4),
                      np.array([t.xyxy for t in r.tiles if t.expected == BACK], np.float32).reshape(-1, 4))
            for picture, r in pictures]
    why = (f"the finder boxed {missed} tile(s) of the photo(s) only below its threshold" if missed
           else "the finder learns the set's tiles at play")
    step(0.72, f"[calibrate 4/5] {why}: fine-tuning {weights.name} on {settings.finder_copies} copies and "
               f"{settings.finder_scenes} scenes at play of each photo + {len(base_train)} base photos + "
               f"{settings.finder_negatives} bare tables (time box {settings.finder_seconds:.0f} s)")
    try:
        outcome = tune_finder_for(work, weights, detector, laid, missed, base_train, base.checked, base_old, settings,
                                  seed, lambda line: step(0.76, line))
    except FinderTuneError as error:
        issues.append(f"the finder's fine-tune failed: {error}")
        return {"missed": missed, "kept": False, "reason": str(error)}
    if outcome.kept and outcome.onnx is not None and outcome.checkpoint is not None:
        shutil.copy2(outcome.onnx, version_dir / detector.settings.detector_file)
        shutil.copy2(outcome.checkpoint, version_dir / weights.name)
    return outcome.card
