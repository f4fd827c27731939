"""Train the tile finder and the face classifier with ultralytics, offline, from scratch.

    python -m training.train detector   --data DATA_YAML --work DIR [--imgsz 512] [--epochs N | --hours H]
    python -m training.train classifier --data DATA_YAML --work DIR [--imgsz 64] ...
    python -m training.train detector43 --data DATA_YAML --work DIR   (one 43-class detector, for comparison)

DATA_YAML is a 43-class YOLO dataset (`python -m datasets.build`).  The
detector's two-class labels (face-up tile, back) and the classifier's
ImageFolder of tile crops (cut with `vision.crops`, as at run time) are derived
into the work folder; the source dataset is never written to.  Training is
seeded, shows progress, keeps `last.pt` and `best.pt` under WORK/<model>/weights
and continues from `last.pt` with `--resume`.  `--device cpu`, `0` or `0,1`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from tileset import labelfiles
from tileset.classes import BACK_ID, CLASS_NAMES, FACE_NAMES, ClassTableMismatch, check_names
from tileset.labelfiles import IMAGE_SUFFIXES
from training.evaluate import label_path_for, read_truth
from vision.crops import crop_geometry, cut_tile

DETECTOR_NAMES = {0: "tile", 1: "back"}
DETECTOR_MODEL = "yolo11n.yaml"
CLASSIFIER_MODEL = "yolo11n-cls.yaml"
PREPARED_MARKER = "prepared.json"


class TrainError(RuntimeError):
    """Bad input to training (missing dataset, wrong class table...): reported without a traceback."""


@dataclass(frozen=True)
class LabeledImage:
    image: Path
    label: Path  # may not exist: an image without tiles


@dataclass(frozen=True)
class YoloSplits:
    train: tuple[LabeledImage, ...]
    val: tuple[LabeledImage, ...]


# ---------------------------------------------------------------- dataset reading


def _images_of(entry: Path) -> list[Path]:
    if entry.is_dir():
        return sorted(p for p in entry.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    if entry.suffix == ".txt" and entry.is_file():
        base = entry.parent
        lines = [line.strip() for line in entry.read_text().splitlines() if line.strip()]
        return [(base / line).resolve() if not Path(line).is_absolute() else Path(line) for line in lines]
    raise TrainError(f"dataset entry {entry} is neither a folder nor a .txt list of images")


def read_yolo_yaml(data_yaml: Path) -> YoloSplits:
    """The train and val images of a 43-class YOLO dataset YAML, names checked."""
    if not data_yaml.is_file():
        raise TrainError(f"dataset YAML not found: {data_yaml}")
    config = yaml.safe_load(data_yaml.read_text())
    check_names(config.get("names", []), CLASS_NAMES, f"dataset {data_yaml}")
    root = Path(config.get("path") or ".")
    if not root.is_absolute():
        root = (data_yaml.parent / root).resolve()
    splits = {}
    for split in ("train", "val"):
        entries = config.get(split)
        if not entries:
            raise TrainError(f"{data_yaml} has no '{split}' entry")
        entries = entries if isinstance(entries, list) else [entries]
        images = [img for e in entries for img in _images_of(root / e)]
        if not images:
            raise TrainError(f"{data_yaml}: no images under '{split}'")
        splits[split] = tuple(LabeledImage(img, label_path_for(img)) for img in images)
    return YoloSplits(**splits)


def read_labels(label: Path) -> np.ndarray:
    """(N, 5) float array class cx cy w h (normalised), read by `tileset.labelfiles.read_labels`;
    empty when the file is missing or empty, TrainError naming the file and line of a broken one."""
    try:
        boxes = labelfiles.read_labels(label)
    except labelfiles.LabelFileError as error:
        raise TrainError(str(error)) from None
    return np.asarray([(b.class_id, b.cx, b.cy, b.w, b.h) for b in boxes], np.float32).reshape(-1, 5)


def _fingerprint(data_yaml: Path, **options: object) -> str:
    text = data_yaml.read_text() + json.dumps(options, sort_keys=True) + str(data_yaml.resolve())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _already_prepared(folder: Path, fingerprint: str) -> bool:
    marker = folder / PREPARED_MARKER
    return marker.is_file() and json.loads(marker.read_text()).get("fingerprint") == fingerprint


def _mark_prepared(folder: Path, fingerprint: str, **summary: object) -> None:
    (folder / PREPARED_MARKER).write_text(json.dumps({"fingerprint": fingerprint, **summary}, indent=1))


def _unique_name(item: LabeledImage, index: int) -> str:
    return f"{index:06d}_{item.image.stem}"


# ---------------------------------------------------------------- detector data


def prepare_detector_data(data_yaml: Path, work: Path) -> Path:
    """WORK/detector_data: the dataset's images (linked) with labels mapped to tile=0 / back=1."""
    folder = work / "detector_data"
    fingerprint = _fingerprint(data_yaml, kind="detector")
    if _already_prepared(folder, fingerprint):
        print(f"detector data ready in {folder}", flush=True)
        return folder / "data.yaml"
    if folder.exists():
        shutil.rmtree(folder)
    splits = read_yolo_yaml(data_yaml)
    counts = {}
    for split, items in (("train", splits.train), ("val", splits.val)):
        (folder / "images" / split).mkdir(parents=True)
        (folder / "labels" / split).mkdir(parents=True)
        boxes = 0
        for index, item in enumerate(items):
            name = _unique_name(item, index)
            (folder / "images" / split / (name + item.image.suffix.lower())).symlink_to(item.image.resolve())
            labels = read_labels(item.label)
            lines = [
                f"{1 if int(c) == BACK_ID else 0} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}" for c, cx, cy, w, h in labels
            ]
            (folder / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            boxes += len(lines)
        counts[split] = {"images": len(items), "boxes": boxes}
    config = {"path": str(folder.resolve()), "train": "images/train", "val": "images/val", "names": DETECTOR_NAMES}
    (folder / "data.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    _mark_prepared(folder, fingerprint, **counts)
    print(f"detector data: {counts} -> {folder}", flush=True)
    return folder / "data.yaml"


# ---------------------------------------------------------------- classifier data


def jitter_box(xyxy: np.ndarray, rng: random.Random, amount: float) -> np.ndarray:
    """Each edge moved by up to `amount` x the box size: run-time boxes come from a detector, not a labeler."""
    x1, y1, x2, y2 = xyxy
    w, h = x2 - x1, y2 - y1
    return np.array(
        [x1 + rng.uniform(-amount, amount) * w, y1 + rng.uniform(-amount, amount) * h,
         x2 + rng.uniform(-amount, amount) * w, y2 + rng.uniform(-amount, amount) * h],
        np.float32,
    )


def turn_image(image: np.ndarray, boxes: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """`image` turned by `degrees` (counter-clockwise, canvas grown to fit) and the upright boxes of its turned tiles.

    A detector boxes a turned tile with an axis-aligned box that also holds corners of its
    neighbours: training crops cut this way look like what the runtime cuts from a turned photo.
    """
    height, width = image.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_w, new_h = int(np.ceil(height * sin + width * cos)), int(np.ceil(height * cos + width * sin))
    matrix[0, 2] += new_w / 2 - width / 2
    matrix[1, 2] += new_h / 2 - height / 2
    turned = cv2.warpAffine(image, matrix, (new_w, new_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if len(boxes) == 0:
        return turned, np.zeros((0, 4), np.float32)
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    corners = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)
    moved = corners @ matrix[:, :2].T + matrix[:, 2]
    return turned, np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1).astype(np.float32)


def _cut_image_crops(job: tuple[str, str, str, int, float, int, float]) -> list[tuple[str, int]]:
    """Worker: cut every face tile of one image into OUT/<class>/<name>_<k>.jpg (and <name>_<k>_t.jpg from a turned copy)."""
    image_path, out_dir, name, size, jitter, seed, turned_share = job
    image = cv2.imread(image_path, cv2.IMREAD_COLOR)
    if image is None:
        return []
    height, width = image.shape[:2]
    rng = random.Random(seed)
    truth = read_truth(Path(image_path), width, height)
    is_face = (truth.class_id != BACK_ID) & (truth.class_id >= 0) & (truth.class_id < len(CLASS_NAMES))
    classes, boxes = truth.class_id[is_face].tolist(), truth.xyxy[is_face]
    versions = [(image, boxes, "")]
    if turned_share > 0 and rng.random() < turned_share:
        degrees = rng.choice((-1, 1)) * rng.uniform(15, 50)
        versions.append((*turn_image(image, boxes, degrees), "_t"))
    written = []
    for picture, picture_boxes, suffix in versions:
        for k, (cls, box) in enumerate(zip(classes, picture_boxes, strict=False)):
            if jitter > 0:
                box = jitter_box(box, rng, jitter)
            crop = cut_tile(picture, box, size)
            target = Path(out_dir) / CLASS_NAMES[cls] / f"{name}_{k}{suffix}.jpg"
            cv2.imwrite(str(target), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
            written.append((str(target), cls))
    return written


def prepare_classifier_data(
    data_yaml: Path, work: Path, size: int, workers: int, seed: int, jitter: float = 0.05, turned_share: float = 0.0
) -> Path:
    """WORK/classifier_data/{train,val}/<face name>/*.jpg: one crop per labeled face-up tile.

    With `turned_share`, that share of the train images also gives crops from a copy turned 15-50 degrees.
    """
    folder = work / "classifier_data"
    fingerprint = _fingerprint(data_yaml, kind="classifier", size=size, jitter=jitter, seed=seed,
                               turned_share=turned_share, crops=crop_geometry())
    if _already_prepared(folder, fingerprint):
        print(f"classifier data ready in {folder}", flush=True)
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    splits = read_yolo_yaml(data_yaml)
    counts: dict[str, dict[str, int]] = {}
    for split, items in (("train", splits.train), ("val", splits.val)):
        out = folder / split
        for name in FACE_NAMES:
            (out / name).mkdir(parents=True)
        split_jitter, split_turned = (jitter, turned_share) if split == "train" else (0.0, 0.0)
        jobs = [
            (str(it.image), str(out), _unique_name(it, i), size, split_jitter, seed * 1_000_003 + i, split_turned)
            for i, it in enumerate(items)
        ]
        per_class = dict.fromkeys(FACE_NAMES, 0)
        started = time.monotonic()
        with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
            for done, written in enumerate(pool.map(_cut_image_crops, jobs, chunksize=8), start=1):
                for _, cls in written:
                    per_class[CLASS_NAMES[cls]] += 1
                if done % 500 == 0 or done == len(jobs):
                    print(f"  {split}: cut crops of {done}/{len(jobs)} images ({time.monotonic() - started:.0f} s)",
                          flush=True)
        counts[split] = per_class
    _fill_empty_val_classes(folder)
    missing = [name for name, n in counts["train"].items() if n == 0]
    if missing:
        raise TrainError(f"no training crops for classes {missing}: the classifier needs every face class")
    _mark_prepared(folder, fingerprint, train=sum(counts["train"].values()), val=sum(counts["val"].values()))
    print(f"classifier data: {sum(counts['train'].values())} train / {sum(counts['val'].values())} val crops "
          f"-> {folder}", flush=True)
    return folder


def _fill_empty_val_classes(folder: Path) -> None:
    """torchvision's ImageFolder refuses empty class folders: lend a class without val crops one train crop."""
    lent = []
    for name in FACE_NAMES:
        val_dir = folder / "val" / name
        if not any(val_dir.iterdir()):
            donors = sorted((folder / "train" / name).glob("*.jpg"))
            if donors:
                shutil.copy(donors[0], val_dir / f"lent_{donors[0].name}")
                lent.append(name)
    if lent:
        print(f"  note: no val tile of {' '.join(lent)}: one train crop each stands in (their val score means nothing)")


# ---------------------------------------------------------------- training


def _ultralytics_environment() -> None:
    """Offline, no settings written to $HOME, a font where ultralytics looks for one."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    config_dir = Path(os.environ.setdefault("YOLO_CONFIG_DIR", str(Path("/tmp") / "yolo_config")))
    font_dir = config_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    for font in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = font_dir / font
        if not target.exists():
            for candidate in (
                "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                *sorted(str(p) for p in Path("/usr/share/fonts").rglob("*.ttf"))[:1],
            ):
                if Path(candidate).is_file():
                    shutil.copy(candidate, target)
                    break


@contextlib.contextmanager
def ultralytics_on_stderr() -> Iterator[None]:
    """ultralytics' printing and logging go to stderr while inside: stdout carries a command's one JSON line."""
    import logging

    handlers = [h for h in logging.getLogger("ultralytics").handlers if isinstance(h, logging.StreamHandler)]
    streams = [h.setStream(sys.stderr) for h in handlers]
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        for handler, stream in zip(handlers, streams, strict=False):
            handler.setStream(stream)


@dataclass(frozen=True)
class TimeBoxedRun:
    epochs: int
    batches: int  # training steps run (a busy CPU ends the epoch running at the time box)


def train_time_boxed(model: Any, seconds: float, threads: int, **train_args: Any) -> TimeBoxedRun:
    """`model.train(**train_args)` (an ultralytics YOLO) on `threads` torch threads (ultralytics leaves one
    core of two idle), for its epochs, but none that would end past `seconds` from the start of training,
    and on a busy CPU not even the epoch running then (ultralytics stops between batches)."""
    import torch

    epochs_done: list[int] = []
    clock: list[float] = []
    batches_done: list[int] = []

    def use_threads(_: Any) -> None:
        torch.set_num_threads(threads)

    def time_box(trainer: Any) -> None:  # also called by the final validation: counts nothing
        spent = time.monotonic() - clock[0]
        if epochs_done and spent + spent / len(epochs_done) > seconds:
            trainer.stop = True

    def hard_stop(trainer: Any) -> None:
        batches_done.append(1)
        if time.monotonic() - clock[0] > seconds:
            trainer.stop = True

    model.add_callback("on_pretrain_routine_end", use_threads)
    model.add_callback("on_train_start", use_threads)
    model.add_callback("on_train_start", lambda _: clock.append(time.monotonic()))
    model.add_callback("on_train_epoch_end", lambda trainer: epochs_done.append(trainer.epoch + 1))
    model.add_callback("on_fit_epoch_end", time_box)
    model.add_callback("on_train_batch_end", hard_stop)
    model.train(**train_args)
    return TimeBoxedRun(len(epochs_done), len(batches_done))


def spread(items: list[Path], count: int) -> list[Path]:
    """At most `count` of `items`, evenly spread over them (every k-th from the first)."""
    return items[:: max(1, len(items) // max(1, count))][:count]


def _share_tensors_through_files_if_shm_is_small(min_free_bytes: int = 2 << 30) -> None:
    """Data-loader workers pass batches through /dev/shm; containers often give it 64 MB."""
    try:
        free = shutil.disk_usage("/dev/shm").free
    except OSError:
        return
    if free < min_free_bytes:
        import torch.multiprocessing

        torch.multiprocessing.set_sharing_strategy("file_system")
        print(f"/dev/shm has {free >> 20} MB free: data-loader workers share tensors through files", flush=True)


def _check_unfinished(checkpoint: Path) -> None:
    """ultralytics strips the optimizer from last.pt when a run ends; such a run has nothing to resume."""
    import torch

    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    if state.get("optimizer") is None or int(state.get("epoch", -1)) < 0:
        raise TrainError(f"{checkpoint} is from a finished run: nothing to resume (train again without --resume)")


def _fit_time_box_to_deadline(deadline: float, reserve_s: float) -> Callable[[Any], None]:
    """An ultralytics callback: once data scanning and caching are done, the time box is what is left.

    ultralytics counts its `time` box from the start of the first epoch, so a box fixed before
    set-up overruns by the set-up time (minutes for 100 k classifier crops).
    """

    def on_train_start(trainer: Any) -> None:
        hours = max(deadline - time.time() - reserve_s, 30) / 3600
        trainer.args.time = hours
        print(f"time box set to {hours * 3600:.0f} s to end {reserve_s:.0f} s before the deadline", flush=True)

    return on_train_start


def optimizer_for(device: str, optimizer: str) -> str:
    """ultralytics' `auto` picks MuSGD for long runs: its Newton-Schulz step is ~10x the model's own cost on a CPU."""
    if optimizer == "auto" and device == "cpu":
        return "SGD"
    return optimizer


def _amp_for(device: str, amp: str) -> bool | str:
    if device == "cpu" or amp == "off":
        return False
    return "bf16" if amp == "bf16" else True


def train_model(kind: str, data: Path, args: argparse.Namespace) -> Path:
    """Run ultralytics training; returns WORK/<kind>/weights/best.pt."""
    _ultralytics_environment()
    _share_tensors_through_files_if_shm_is_small()
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO

    # ultralytics keeps one core free for itself: on a 2-core CPU that trains on one thread, ~1.7x slower.
    torch_utils.NUM_THREADS = max(torch_utils.NUM_THREADS, os.cpu_count() or 1)

    run_dir = args.work / kind
    last = run_dir / "weights" / "last.pt"
    if args.resume:
        if not last.is_file():
            raise TrainError(f"--resume: no checkpoint at {last}")
        _check_unfinished(last)
        print(f"resuming {kind} from {last}", flush=True)
        try:  # data given again: ultralytics would otherwise put its default dataset in for classifiers
            YOLO(str(last)).train(resume=True, data=str(data))
        except AssertionError as error:  # ultralytics' way of saying the run already finished
            raise TrainError(f"cannot resume {last}: {str(error).splitlines()[0]}") from None
    else:
        if args.weights:  # fine-tune: same architecture, trained weights as the start
            print(f"{kind}: starting from {args.weights}", flush=True)
        model = YOLO(str(args.weights) if args.weights else CLASSIFIER_MODEL if kind == "classifier" else DETECTOR_MODEL)
        options = dict(
            data=str(data),
            epochs=args.epochs,
            imgsz=args.imgsz,
            batch=args.batch,
            device=args.device,
            workers=args.workers,
            seed=args.seed,
            deterministic=True,
            project=str(args.work.resolve()),
            name=kind,
            exist_ok=True,
            plots=False,
            amp=_amp_for(args.device, args.amp),
            optimizer=optimizer_for(args.device, args.optimizer),
            cache=args.cache if args.cache != "off" else False,
            patience=args.patience,
            verbose=True,
            **({"lr0": args.lr0} if args.lr0 else {}),
            **({"warmup_epochs": args.warmup_epochs} if args.warmup_epochs is not None else {}),
        )
        if args.hours:
            options["time"] = args.hours
        if args.deadline:
            options["time"] = max(args.deadline - time.time(), 60) / 3600  # refined once set-up is done
            model.add_callback("on_train_start", _fit_time_box_to_deadline(args.deadline, args.deadline_reserve))
        if kind == "classifier":
            # Tiles are not mirror-symmetric; random erasing could hide the one stroke that tells 2m from 3m.
            options.update(fliplr=0.0, erasing=0.1, scale=0.1)
        else:
            options.update(degrees=5.0, close_mosaic=max(1, min(10, args.epochs // 5)))
            if kind == "detector43":
                options["fliplr"] = 0.0  # a mirrored face is not a tile of its class
        model.train(**options)
    best = run_dir / "weights" / "best.pt"
    if not best.is_file():
        best = last
    if not best.is_file():
        raise TrainError(f"training finished without a checkpoint in {run_dir / 'weights'}")
    print(f"{kind} weights: {best}", flush=True)
    return best


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=["detector", "classifier", "detector43"],
                        help="tile finder (tile/back), face classifier, or a single 43-class detector")
    parser.add_argument("--data", type=Path, required=True, help="43-class YOLO dataset YAML (datasets.build)")
    parser.add_argument("--work", type=Path, default=Path("runs/vision"), help="work folder (derived data, runs)")
    parser.add_argument("--imgsz", type=int, help="input size (default: detector 512, classifier 64)")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--hours", type=float, default=None, help="time box in hours (overrides --epochs)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="unix time by which training must end (time box fitted after set-up)")
    parser.add_argument("--deadline-reserve", type=float, default=30.0,
                        help="seconds kept before --deadline for the last validation and saving")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--device", default="cpu", help="cpu, 0, or 0,1 (GPU ids)")
    parser.add_argument("--workers", type=int, default=2, help="data loader and crop-cutting processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--patience", type=int, default=100, help="stop after this many epochs without improvement")
    parser.add_argument("--cache", choices=["off", "ram", "disk"], default="off", help="ultralytics image cache")
    parser.add_argument("--amp", choices=["on", "bf16", "off"], default="on", help="mixed precision on GPUs")
    parser.add_argument("--weights", type=Path, default=None,
                        help="start from these trained weights (.pt) instead of from scratch (fine-tuning)")
    parser.add_argument("--optimizer", choices=["auto", "SGD", "AdamW", "MuSGD"], default="auto",
                        help="ultralytics optimizer; auto means SGD on a CPU (MuSGD is too slow there)")
    parser.add_argument("--lr0", type=float, default=None, help="initial learning rate (default: ultralytics')")
    parser.add_argument("--turned-share", type=float, default=0.3,
                        help="classifier: share of train images that also give crops from a copy turned 15-50 degrees")
    parser.add_argument("--warmup-epochs", type=float, default=None,
                        help="learning-rate warm-up (default: ultralytics' 3); 0 suits fine-tuning")
    parser.add_argument("--resume", action="store_true", help="continue from WORK/<model>/weights/last.pt")
    parser.add_argument("--prepare-only", action="store_true", help="derive the training data, do not train")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.imgsz is None:
        args.imgsz = 64 if args.model == "classifier" else 512
    random.seed(args.seed)
    try:
        args.work.mkdir(parents=True, exist_ok=True)
        # derived data is reused when already there (same source and options), so --resume finds it
        if args.model == "detector":
            data = prepare_detector_data(args.data, args.work)
        elif args.model == "detector43":
            read_yolo_yaml(args.data)  # checks the class table; ultralytics trains on the YAML as it is
            data = args.data
        else:
            data = prepare_classifier_data(args.data, args.work, args.imgsz, args.workers, args.seed,
                                           turned_share=args.turned_share)
        if args.prepare_only:
            return 0
        train_model(args.model, data, args)
    except (TrainError, ClassTableMismatch, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
