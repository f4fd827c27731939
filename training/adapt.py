"""Adapt the models to a club's own tiles: fine-tune on its labeled photos, promote only if better.

    python -m vision.adapt LABELED_DIR [--base-data DIR] [--epochs N] [--device cpu]

LABELED_DIR is a labeled folder (`tileset.labelfiles`: photos plus `labels/NAME.txt`, e.g. after
`python -m datasets.label prelabel` and a review in the app).  Steps, each reported as it runs:

1. Hold back a share of the labeled photos (seeded); the rest is for training.
2. Read the held-back photos with the model version in use (the "old" model).
3. Fine-tune the face classifier from the old version's `classifier.pt` on crops of the
   training photos (repeated, they are few) mixed with crops of `--base-data` (default: the
   shipped base photos, `models/base/`: real photos of another set holding every face), so
   faces the club's photos lack are not forgotten: the base photos picked hold every face they
   have. A face that neither the club's photos nor the base photos hold (`--no-base-data`, or a
   base set without it) is learned from layouts drawn here (`drawn_stand_ins`: every face, the
   suits and honours drawn by `datasets.drawn`, the rest by `datasets.fake_art`), as the log
   says: the classifier needs crops of every face.  The tile finder is fine-tuned too (from
   `detector.pt`) only when the old one misses tiles: recall below `AdaptSettings`.
4. Export to ONNX, read the held-back photos with the new model.
5. Write the new version to `models/versions/<date>-<name>/` with its card (data, command,
   both scores) and switch to it only when it reads the held-back photos better.  The old
   version stays; `python -m vision.registry back` (or the app) returns to it.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tileset.classes import CLASS_NAMES
from tileset.labelfiles import LabelFileError, Photo, list_photos, read_labels
from vision.registry import EARLIER_SET_CLASSIFIER, Registry, RegistryError, utc_now
from vision.settings import BASE_PHOTOS_DIR, MODELS_DIR, AdaptSettings, DetectorSettings

DEFAULT = AdaptSettings()
DETECTOR_SETTINGS = DetectorSettings()


class AdaptError(RuntimeError):
    """Input the adaptation cannot work with, said plainly (no traceback)."""


# ---------------------------------------------------------------- scoring


@dataclass(frozen=True)
class ReadMetrics:
    """How well a model reads labeled photos: tiles matched at IoU >= match_iou."""

    photos: int
    tiles: int  # labeled tiles
    found: int  # labeled tiles with a detection at IoU >= match_iou (any class)
    read: int  # ... and with the right class
    photos_exact: int  # photos whose every tile was read right, with no extra detection
    detections: int = -1  # tiles the model found (-1: not counted)

    @property
    def read_accuracy(self) -> float:
        return self.read / self.tiles if self.tiles else 0.0

    @property
    def recall(self) -> float:
        return self.found / self.tiles if self.tiles else 0.0

    @property
    def precision(self) -> float | None:
        """Detections paired with a labeled tile of their class / all detections (as training.evaluate)."""
        if self.detections < 0:
            return None
        return self.read / self.detections if self.detections else 1.0

    def to_json(self) -> dict[str, Any]:
        precision = self.precision
        return {**asdict(self), "read_accuracy": round(self.read_accuracy, 6), "recall": round(self.recall, 6),
                "precision": None if precision is None else round(precision, 6)}

    def __str__(self) -> str:
        precision = "" if self.precision is None else f", precision {self.precision:.2%}"
        return (f"read accuracy {self.read_accuracy:.2%} ({self.read}/{self.tiles} tiles), recall {self.recall:.2%}"
                f"{precision}, {self.photos_exact}/{self.photos} photos exact")


def match_tiles(truth_xyxy: np.ndarray, truth_cls: np.ndarray, det_xyxy: np.ndarray, det_cls: np.ndarray,
                iou_min: float) -> tuple[int, int, int]:
    """(found, read right, unmatched detections): greedy one-to-one matching, highest IoU first."""
    from vision.boxes import match_boxes

    pairs = match_boxes(truth_xyxy, det_xyxy, iou_min)
    right = sum(int(truth_cls[t] == det_cls[d]) for t, d in pairs)
    return len(pairs), right, len(det_xyxy) - len(pairs)


def score_photos(detector: Any, photos: Sequence[Photo | Sample], iou_min: float = DEFAULT.match_iou) -> ReadMetrics:
    """Read each photo with `detector` (`.detect(image) -> Detections`) and compare with its labels."""
    from vision.images import load_image

    tiles = found = read = exact = detections = 0
    for photo in photos:
        image = load_image(photo.image)
        height, width = image.shape[:2]
        label = photo.label_path if isinstance(photo, Photo) else photo.label
        boxes = read_labels(label) if label.is_file() else ()
        truth = np.array([b.xyxy(width, height) for b in boxes], np.float32).reshape(-1, 4)
        truth_cls = np.array([b.class_id for b in boxes], np.int64)
        dets = detector.detect(image)
        f, r, extra = match_tiles(truth, truth_cls, dets.xyxy, dets.class_id, iou_min)
        tiles, found, read = tiles + len(boxes), found + f, read + r
        exact += int(r == len(boxes) and extra == 0)
        detections += len(dets)
    return ReadMetrics(len(photos), tiles, found, read, exact, detections)


# ---------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Decision:
    promote: bool
    reason: str


def decide(old: ReadMetrics, new: ReadMetrics, settings: AdaptSettings = DEFAULT,
           old_base: ReadMetrics | None = None, new_base: ReadMetrics | None = None) -> Decision:
    """Promote only a model that reads the held-back photos strictly better than the one in use, with no
    lower precision there and on the base val photos (when given): recall is never bought with false boxes."""
    gain = new.read_accuracy - old.read_accuracy
    reasons = []
    if gain <= settings.min_gain:
        verdict = "worse" if gain < 0 else "not better"
        reasons.append(f"{verdict} on the held-back photos ({old.read_accuracy:.2%} -> {new.read_accuracy:.2%})")
    for where, before, after in (("held-back", old, new), ("base val", old_base, new_base)):
        if before is None or after is None or before.precision is None or after.precision is None:
            continue
        if after.precision < before.precision:
            reasons.append(f"its precision on the {where} photos is lower ({before.precision:.2%} -> "
                           f"{after.precision:.2%}: more false boxes or misreads)")
    if reasons:  # every reason, so that a person sees when recall would have been bought with false boxes
        return Decision(False, "; ".join(reasons) + "; the model in use is kept")
    return Decision(True, f"reads {gain:+.2%} better on the held-back photos "
                          f"({old.read_accuracy:.2%} -> {new.read_accuracy:.2%}), precision no lower")


def needs_detector(recall: float, settings: AdaptSettings = DEFAULT) -> bool:
    """Fine-tune the tile finder only when it misses tiles of the club's photos."""
    return recall < settings.detector_recall_min


def split_photos(photos: Sequence[Photo], settings: AdaptSettings = DEFAULT,
                 seed: int = 0) -> tuple[list[Photo], list[Photo]]:
    """(train, held back): a seeded share held back, at least one photo each side."""
    if len(photos) < settings.min_photos:
        raise AdaptError(f"{len(photos)} labeled photos: label at least {settings.min_photos} to adapt "
                         "(some are held back to check the new model)")
    order = sorted(photos, key=lambda p: p.name)
    random.Random(seed).shuffle(order)
    held = max(1, min(len(order) - 1, round(len(order) * settings.holdout_share)))
    return sorted(order[held:], key=lambda p: p.name), sorted(order[:held], key=lambda p: p.name)


def labeled_photos(folder: Path) -> list[Photo]:
    """Photos of the folder that have a label file (a photo with no tiles has an empty one)."""
    photos = [p for p in list_photos(folder) if p.label_path.is_file()]
    for photo in photos:
        read_labels(photo.label_path)  # a broken label file stops here, with its line number
    return photos


def reviewed_photos(folder: Path) -> tuple[list[Photo], list[Photo]]:
    """(photos a person marked reviewed, the others): only the first are learned from or judged by.

    Reviewed means checked: the Label page's "Looks right", a Label Studio import, or label files made
    outside this program (no metadata). An edit alone is not a check: a photo with one box fixed may
    still show a dozen false ones."""
    used: list[Photo] = []
    skipped: list[Photo] = []
    for photo in labeled_photos(folder):
        (used if photo.load().meta.reviewed else skipped).append(photo)
    return used, skipped


# ---------------------------------------------------------------- training data


@dataclass(frozen=True)
class Sample:
    image: Path
    label: Path


def base_samples(base: Path, split: str) -> list[Sample]:
    """Images and labels of a base dataset: a YOLO data.yaml, a folder holding one, or images/ + labels/."""
    from training.train import TrainError, read_yolo_yaml

    data_yaml = base if base.suffix in (".yaml", ".yml") else base / "data.yaml"
    if data_yaml.is_file():
        try:
            splits = read_yolo_yaml(data_yaml)
        except TrainError as error:
            raise AdaptError(str(error)) from None
        return [Sample(item.image, item.label) for item in getattr(splits, split)]
    try:
        photos = list_photos(base)
    except LabelFileError as error:
        raise AdaptError(f"--base-data {base}: {error}") from None
    photos = sorted(photos, key=lambda p: p.name)
    if split == "val":  # a folder without splits: its last tenth checks training progress
        return [Sample(p.image, p.label_path) for p in photos[-max(1, len(photos) // 10):]]
    return [Sample(p.image, p.label_path) for p in photos[: len(photos) - max(1, len(photos) // 10)]]


def faces_held(samples: Sequence[Sample]) -> set[str]:
    """The face classes the samples' labels hold (backs are no face)."""
    from tileset.classes import FACE_NAMES

    held: set[str] = set()
    for sample in samples:
        if sample.label.is_file():
            held.update(CLASS_NAMES[box.class_id] for box in read_labels(sample.label))
    return held & set(FACE_NAMES)


def pick_base(pool: Sequence[Sample], count: int, rng: random.Random) -> list[Sample]:
    """`count` samples of `pool` (the base train split): for each face in turn that those picked do not hold
    yet, a sample holding it (a random one), then random others; so a fine-tune sees every face the base set has."""
    from tileset.classes import FACE_NAMES

    if count <= 0 or not pool:
        return []
    holds = {sample: faces_held([sample]) for sample in pool}
    picked: list[Sample] = []
    seen: set[str] = set()
    for face in FACE_NAMES:
        if face in seen or len(picked) >= count:
            continue
        holders = [sample for sample in pool if face in holds[sample] and sample not in picked]
        if holders:
            choice = rng.choice(holders)
            picked.append(choice)
            seen |= holds[choice]
    rest = [sample for sample in pool if sample not in picked]
    return picked + rng.sample(rest, min(count - len(picked), len(rest)))


def drawn_stand_ins(folder: Path, count: int, seed: int) -> list[Sample]:
    """`count` photos of the calibration layout (every face once) of a set drawn here, with their labels: the
    suits and honours drawn by `datasets.drawn` (seeded), the white dragon, flowers and seasons by
    `datasets.fake_art`. They stand in for faces that no photo of the fine-tune holds."""
    from datasets.art import load_art
    from datasets.fake_art import write_fake_art
    from datasets.restyle import drawn_set
    from datasets.synth import make_calibration_scene

    art = load_art(write_fake_art(folder / "art"), only=["gl-mahjongtile"])
    drawn = [drawn_set(art[0], seed)]
    samples: list[Sample] = []
    for index in range(count):
        scene = make_calibration_scene(index, seed, drawn)
        image, label = folder / f"drawn{index:03d}.jpg", folder / f"drawn{index:03d}.txt"
        _write_image(image, scene.image)
        label.write_text("".join(line + "\n" for line in scene.yolo_lines()), encoding="utf-8")
        samples.append(Sample(image, label))
    return samples


def _write_image(path: Path, image: np.ndarray) -> None:
    import cv2

    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise AdaptError(f"cannot write {path}")


def hard_negatives(folder: Path, count: int, seed: int) -> list[Sample]:
    """`count` photos of bare tables (patterned cloths, books, papers, hands; no tile) with empty labels.

    The finder's fine-tune sees what is not a tile, so learning a club's tiles cannot buy recall with
    false boxes on its tablecloth.  Drawn from the training table families only (`datasets.tables`).
    """
    if count <= 0:
        return []
    import cv2

    from datasets.tables import TRAIN_FAMILIES, render_empty, table_source

    source = table_source(TRAIN_FAMILIES, negatives=1.0)
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    for k in range(count):
        image = folder / f"table{k:03d}.jpg"
        cv2.imwrite(str(image), render_empty(rng, 640, 480, source))
        samples.append(Sample(image, folder / f"table{k:03d}.txt"))  # no label file: no tile on it
    return samples


def link_samples(samples: Sequence[Sample], folder: Path, prefix: str) -> None:
    """folder/images/<prefix>NAME + folder/labels/<prefix>NAME.txt, the layout ultralytics reads."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    for index, sample in enumerate(samples):
        name = f"{prefix}{index:05d}_{sample.image.stem}"
        (folder / "images" / (name + sample.image.suffix.lower())).symlink_to(sample.image.resolve())
        text = sample.label.read_text(encoding="utf-8") if sample.label.is_file() else ""
        (folder / "labels" / f"{name}.txt").write_text(text, encoding="utf-8")


def build_dataset(work: Path, train: Sequence[Photo], base: Path | None, settings: AdaptSettings,
                  seed: int, log: Callable[[str], None] = print) -> Path:
    """WORK/dataset/data.yaml: the club's training photos (repeated) plus a sample of the base data holding every
    face it has (`pick_base`), and drawn layouts (`drawn_stand_ins`) when some face is in neither, said in `log`."""
    from tileset.classes import FACE_NAMES

    root = work / "dataset"
    if root.exists():
        shutil.rmtree(root)
    rng = random.Random(seed)
    user = [Sample(p.image, p.label_path) for p in train]
    train_samples = user * settings.user_repeat
    val_samples = list(user)
    if base is not None:
        base_train = base_samples(base, "train")
        base_val = base_samples(base, "val")
        train_samples += pick_base(base_train, settings.base_images, rng)
        val_samples += rng.sample(base_val, min(settings.base_val_images, len(base_val)))
    missing = [face for face in FACE_NAMES if face not in faces_held(train_samples)]
    if missing:
        stand_ins = drawn_stand_ins(root / "drawn", settings.stand_in_layouts, seed)
        train_samples += stand_ins
        log(f"  no photo to train on holds {' '.join(missing)}"
            f"{'' if base is None else f' (nor the base data {base})'}: {len(stand_ins)} drawn layouts of every face "
            "(datasets.drawn, datasets.fake_art) stand in for them")
    train_samples += hard_negatives(root / "negatives", settings.hard_negatives, seed)
    link_samples(train_samples, root / "train", "t")
    link_samples(val_samples, root / "val", "v")
    config = {"path": str(root.resolve()), "train": "train/images", "val": "val/images",
              "names": {i: n for i, n in enumerate(CLASS_NAMES)}}
    import yaml

    (root / "data.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return root / "data.yaml"


# ---------------------------------------------------------------- fine-tuning


@dataclass(frozen=True)
class RetrainRequest:
    role: str  # "classifier" | "detector"
    weights: Path  # the old version's checkpoint
    data_yaml: Path  # 43-class dataset (build_dataset)
    imgsz: int
    epochs: int
    device: str
    work: Path
    seed: int
    out_onnx: Path  # where the retrained model's ONNX goes
    settings: AdaptSettings = DEFAULT
    seconds: float | None = None  # training stops between batches past this (None: every epoch runs)


Retrainer = Callable[[RetrainRequest], Path]  # returns the new checkpoint (.pt); writes out_onnx


def ultralytics_retrain(request: RetrainRequest) -> Path:
    """Fine-tune an ultralytics checkpoint on the request's data, then export it to ONNX."""
    from training.export import export_checkpoint
    from training.train import (
        _ultralytics_environment,
        prepare_classifier_data,
        prepare_detector_data,
        train_time_boxed,
    )

    _ultralytics_environment()
    from ultralytics import YOLO

    if request.role == "classifier":
        data = prepare_classifier_data(request.data_yaml, request.work, request.imgsz, workers=1, seed=request.seed)
        augment = {"fliplr": 0.0, "erasing": 0.1, "scale": 0.1}  # as training.train: tiles are not mirror-symmetric
    else:
        data = prepare_detector_data(request.data_yaml, request.work)
        augment = {"degrees": 5.0, "close_mosaic": 0}
    run = request.work / f"finetune_{request.role}"
    batch = request.settings.batch if request.role == "classifier" else request.settings.detector_batch
    model = YOLO(str(request.weights))
    train_args = dict(
        data=str(data), epochs=request.epochs, imgsz=request.imgsz, device=request.device,
        batch=batch, optimizer=request.settings.optimizer, lr0=request.settings.lr0, workers=0,
        seed=request.seed, deterministic=True, project=str(run.parent.resolve()), name=run.name, exist_ok=True,
        plots=False, amp=False, warmup_epochs=0, patience=request.epochs + 1, verbose=True, **augment,
    )
    if request.seconds is not None:  # stopped between batches at the budget; the last weights are saved
        done = train_time_boxed(model, max(1.0, request.seconds), request.settings.threads, **train_args)
        print(f"  {request.role}: {done.epochs} epoch(s), {done.batches} batches in the time budget", flush=True)
    else:
        model.train(**train_args)
    checkpoint = run / "weights" / "best.pt"
    if not checkpoint.is_file():
        checkpoint = run / "weights" / "last.pt"
    if not checkpoint.is_file():
        raise AdaptError(f"fine-tuning the {request.role} left no checkpoint in {run / 'weights'}")
    export_checkpoint(checkpoint, request.out_onnx, request.role)
    return checkpoint


# ---------------------------------------------------------------- the pipeline


@dataclass(frozen=True)
class AdaptResult:
    version: str
    version_dir: Path
    old: ReadMetrics
    new: ReadMetrics
    decision: Decision
    retrained: tuple[str, ...]
    seconds: float
    held_back: tuple[str, ...] = field(default=())


def checkpoint_for(version_dir: Path, onnx_name: str) -> Path:
    return version_dir / (Path(onnx_name).stem + ".pt")


def write_card(folder: Path, card: dict[str, Any]) -> None:
    from tileset.atomic_files import atomic_write_text

    atomic_write_text(folder / "card.json", json.dumps(card, indent=1) + "\n")
    old, new = card["parent_metrics"], card["metrics"]
    lines = [
        f"# Model version {card['name']}",
        "",
        f"Adapted from `{card['parent']}` on {card['created']} with:",
        "",
        f"    {card['command']}",
        "",
        f"- Retrained: {', '.join(card['retrained']) or 'nothing'} ({card['epochs']} epochs, {card['seconds']:.0f} s)",
        (f"- Club photos: {len(card['data']['train_photos'])} for training, "
         f"{len(card['data']['held_back_photos'])} held back; base data: {card['data']['base_data'] or 'none'}"),
        (f"- Held-back read accuracy: old {old['read_accuracy']:.2%}, new {new['read_accuracy']:.2%} "
         f"(recall {old['recall']:.2%} -> {new['recall']:.2%})"),
        f"- Promoted: {'yes' if card['promoted'] else 'no'} — {card['reason']}",
        "",
    ]
    atomic_write_text(folder / "card.md", "\n".join(lines))


def adapt(labeled_dir: Path, *, base_data: Path | None = None, epochs: int | None = None, device: str = "cpu",
          models_root: Path = MODELS_DIR, name: str = "adapted", seed: int = 0, work: Path | None = None,
          settings: AdaptSettings = DEFAULT, retrain: Retrainer = ultralytics_retrain,
          command: str = "", log: Callable[[str], None] = print, minutes: float | None = None) -> AdaptResult:
    """Fine-tune the version in use on the reviewed photos of `labeled_dir` and promote the result only when it
    reads the held-back photos (and `base_data`'s val photos) better. `minutes`: the whole run's time budget;
    training stops early enough to leave `settings.reserve_seconds` for exporting and judging."""
    from vision.detector import TileDetector

    started = time.monotonic()
    deadline = None if minutes is None else started + 60.0 * minutes
    registry = Registry(models_root)
    parent = registry.active_name()
    parent_dir = registry.active_dir()
    photos, unreviewed = reviewed_photos(labeled_dir)
    if len(photos) < settings.min_photos and unreviewed:
        raise AdaptError(f"{len(photos)} reviewed photos ({len(unreviewed)} unreviewed ones are "
                         f"skipped): review at least {settings.min_photos} in the labeling page to adapt")
    train, held = split_photos(photos, settings, seed)
    log(f"[adapt 1/5] {len(photos)} reviewed photos: {len(train)} to train on, {len(held)} held back "
        f"({', '.join(p.name for p in held)}); {len(unreviewed)} skipped (not reviewed)")

    old_detector = TileDetector.load(parent_dir)
    old = score_photos(old_detector, held, settings.match_iou)
    log(f"[adapt 2/5] model in use ({parent}) on the held-back photos: {old}")
    train_recall = score_photos(old_detector, train, settings.match_iou).recall
    roles = ["classifier"]
    if needs_detector(train_recall, settings):
        if checkpoint_for(parent_dir, DETECTOR_SETTINGS.detector_file).is_file():
            roles.append("detector")
            log(f"  fine-tuning the tile finder too (its recall on the training photos: {train_recall:.2%})")
        else:
            log(f"  the tile finder misses tiles (recall {train_recall:.2%}) but {parent} has no detector.pt: "
                "only the classifier is fine-tuned")
    if old_detector.model_info.classifier_imgsz is None:
        raise AdaptError(f"{parent} has no face classifier (a single 43-class detector): nothing to fine-tune")

    version_dir = registry.new_version_dir(name)
    try:
        for model_file in sorted(parent_dir.glob("*.onnx")) + sorted(parent_dir.glob("*.pt")):
            if model_file.name != EARLIER_SET_CLASSIFIER:
                shutil.copy2(model_file, version_dir / model_file.name)
        work = Path(work) if work else version_dir / "work"
        data_yaml = build_dataset(work, train, base_data, settings, seed, log)
        log(f"[adapt 3/5] fine-tuning {' and '.join(roles)} on {len(train)} photos x{settings.user_repeat}"
            + (f" + base data {base_data}" if base_data else ""))
        for index, role in enumerate(roles):
            seconds = None
            if deadline is not None:  # what is left, less the reserve, shared by the roles still to train
                seconds = (deadline - time.monotonic() - settings.reserve_seconds) / (len(roles) - index)
                log(f"  {role}: {max(0.0, seconds):.0f} s of the {minutes:g}-minute budget")
            onnx_name = DETECTOR_SETTINGS.classifier_file if role == "classifier" else DETECTOR_SETTINGS.detector_file
            weights = checkpoint_for(parent_dir, onnx_name)
            if not weights.is_file():
                raise AdaptError(f"fine-tuning needs the PyTorch weights {weights} beside {onnx_name}")
            imgsz = (old_detector.model_info.classifier_imgsz if role == "classifier"
                     else old_detector.model_info.detector_imgsz)
            role_epochs = epochs or (settings.classifier_epochs if role == "classifier" else settings.detector_epochs)
            request = RetrainRequest(role, weights, data_yaml, int(imgsz), role_epochs, device, work / role, seed,
                                     version_dir / onnx_name, settings, seconds)
            checkpoint = retrain(request)
            if checkpoint.resolve() != checkpoint_for(version_dir, onnx_name).resolve():
                shutil.copy2(checkpoint, checkpoint_for(version_dir, onnx_name))
        new_detector = TileDetector.load(version_dir)
        new = score_photos(new_detector, held, settings.match_iou)
        log(f"[adapt 4/5] new model on the held-back photos: {new}")
        old_base = new_base = None
        if base_data is not None:
            pool = base_samples(base_data, "val")
            base_val = random.Random(seed + 1).sample(pool, min(settings.base_val_images, len(pool)))
            old_base = score_photos(old_detector, base_val, settings.match_iou)
            new_base = score_photos(new_detector, base_val, settings.match_iou)
            log(f"  base val ({len(base_val)} photos): old {old_base}; new {new_base}")
        decision = decide(old, new, settings, old_base, new_base)
        seconds = time.monotonic() - started
        card = {
            "name": version_dir.name, "created": utc_now(), "parent": parent, "command": command,
            "retrained": roles, "epochs": epochs or settings.classifier_epochs, "device": device, "minutes": minutes,
            "seconds": round(seconds, 1), "promoted": decision.promote, "reason": decision.reason,
            "evaluated_on": f"{len(held)} held-back photos of {Path(labeled_dir).resolve()}",
            "metrics": new.to_json(), "parent_metrics": old.to_json(),
            "base_val_metrics": None if old_base is None or new_base is None else {
                "old": old_base.to_json(), "new": new_base.to_json()},
            "skipped_unreviewed": [p.name for p in unreviewed],
            "data": {"labeled_dir": str(Path(labeled_dir).resolve()), "train_photos": [p.name for p in train],
                     "held_back_photos": [p.name for p in held], "base_data": str(base_data) if base_data else None,
                     "user_repeat": settings.user_repeat, "base_images": settings.base_images if base_data else 0},
            "settings": asdict(settings),
        }
        write_card(version_dir, card)
    except BaseException:
        shutil.rmtree(version_dir, ignore_errors=True)  # a half-made version is never listed
        raise
    if not settings.keep_work:
        shutil.rmtree(version_dir / "work", ignore_errors=True)
    if decision.promote:
        registry.activate(version_dir.name)
    log(f"[adapt 5/5] {'promoted' if decision.promote else 'not promoted'}: {decision.reason}; "
        f"version {version_dir.name} ({time.monotonic() - started:.0f} s)")
    return AdaptResult(version_dir.name, version_dir, old, new, decision, tuple(roles), seconds,
                       tuple(p.name for p in held))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision.adapt", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labeled", type=Path, metavar="LABELED_DIR", help="photos with reviewed labels/")
    parser.add_argument("--base-data", type=Path, default=BASE_PHOTOS_DIR if BASE_PHOTOS_DIR.is_dir() else None,
                        help="base dataset mixed in, whose val photos the new models must read no worse: a data.yaml, "
                             "or a folder with images/ and labels/ (default: the shipped base photos, %(default)s)")
    parser.add_argument("--no-base-data", dest="base_data", action="store_const", const=None,
                        help="neither mix in nor check on a base dataset")
    parser.add_argument("--minutes", type=float, help="time budget of the whole run: training stops early enough "
                        "to export and judge the new models within it")
    parser.add_argument("--epochs", type=int, help=f"fine-tuning epochs (default: classifier "
                        f"{DEFAULT.classifier_epochs}, detector {DEFAULT.detector_epochs})")
    parser.add_argument("--device", default="cpu", help="cpu, or a GPU id")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default: %(default)s)")
    parser.add_argument("--name", default="adapted", help="label in the new version's name")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--holdout", type=float, default=DEFAULT.holdout_share, help="share of photos held back")
    parser.add_argument("--keep-work", action="store_true", help="keep the training work folder in the version")
    parser.add_argument("--finder", action="store_true",
                        help="fine-tune the tile finder too, even when it finds every tile of the training photos")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from dataclasses import replace

    settings = replace(DEFAULT, holdout_share=args.holdout, keep_work=args.keep_work,
                       detector_recall_min=2.0 if args.finder else DEFAULT.detector_recall_min)
    command = "python -m vision.adapt " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        result = adapt(args.labeled, base_data=args.base_data, epochs=args.epochs, device=args.device,
                       models_root=args.models, name=args.name, seed=args.seed, settings=settings, command=command,
                       log=lambda line: print(line, flush=True), minutes=args.minutes)
    except (AdaptError, LabelFileError, RegistryError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        if type(error).__name__ in ("ModelLoadError", "ClassTableMismatch", "TrainError", "ImageError", "ExportError"):
            print(f"error: {error}", file=sys.stderr)
            return 2
        raise
    print(json.dumps({"version": result.version, "promoted": result.decision.promote, "reason": result.decision.reason,
                      "old": result.old.to_json(), "new": result.new.to_json(), "seconds": round(result.seconds, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
