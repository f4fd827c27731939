"""Read accuracy of the tile models on a labeled YOLO dataset.

    python -m vision.evaluate DATASET [--split val] [--models DIR] [--json] [--set FIELD=VALUE ...]

DATASET is a data YAML, a folder holding `data.yaml`, or a folder with
`images/` (+ `labels/` beside it, ultralytics layout).  Per image, labeled
tiles and detections are paired one to one by IoU (best pairs first, IoU >= 0.5).

* read accuracy: labeled tiles paired with a detection of the right class / all labeled tiles
* recall: labeled tiles paired with any detection / all labeled tiles
* precision: detections paired with a labeled tile of their class / all detections
* images read exactly: every tile paired with the right class and no extra detection
* per-class accuracy and the most frequent confusions (true -> read)
* the same figures without the photos its labeling tool stretched beyond
  recognition (labeled tiles, by their median, more than `STRETCHED_BEYOND`
  times wider than tall or taller than wide: Roboflow's "stretch to 640x640"
  of a one-row screenshot leaves tile faces a few pixels tall)
* with `--groups MANIFEST` (chinese-v4's manifest.csv: image, group), the
  read accuracy, recall and false boxes of each capture group

Datasets without any `back` label (the real photos: visible backs were never
labeled) would count every back found as a false detection; there backs found
are set aside and reported as `backs_ignored` (`--keep-backs` counts them).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tileset.classes import BACK_ID, CLASS_NAMES
from tileset.labelfiles import IMAGE_SUFFIXES, LabelFileError, read_labels
from vision.boxes import box_iou, match_boxes
from vision.detections import Detections

MATCH_IOU = 0.5
STRETCHED_BEYOND = 4.0  # a real tile, upright (0.75) or on its side (1.33), seen from any usable angle is well inside


class DatasetError(ValueError):
    """A dataset path that holds no labeled images."""


@dataclass(frozen=True)
class LabeledTiles:
    xyxy: np.ndarray  # (N, 4) pixels
    class_id: np.ndarray  # (N,)


@dataclass(frozen=True)
class ImageMatch:
    """Pairs of (label index, detection index) and what was left unpaired."""

    pairs: tuple[tuple[int, int], ...]
    truth_classes: np.ndarray
    predicted_classes: np.ndarray

    @property
    def correct(self) -> int:
        return sum(1 for t, p in self.pairs if self.truth_classes[t] == self.predicted_classes[p])

    @property
    def exact(self) -> bool:
        n_truth, n_pred = len(self.truth_classes), len(self.predicted_classes)
        return self.correct == n_truth == n_pred


def match_tiles(truth: LabeledTiles, predicted: Detections, iou_threshold: float = MATCH_IOU) -> ImageMatch:
    """One-to-one pairing by IoU, highest IoU first (class-agnostic: a wrong class still counts as found)."""
    pairs = match_boxes(truth.xyxy, predicted.xyxy, iou_threshold)
    return ImageMatch(tuple(pairs), np.asarray(truth.class_id), np.asarray(predicted.class_id))


def restrict_to_classes(
    truth: LabeledTiles, predicted: Detections, classes: set[int]
) -> tuple[LabeledTiles, Detections]:
    """Keep only labeled tiles of `classes`; drop detections outside them or on a dropped tile.

    For comparing with a model that knows fewer classes: a tile it cannot name
    counts neither for nor against it.
    """
    keep_truth = np.isin(truth.class_id, list(classes))
    dropped = truth.xyxy[~keep_truth]
    keep_pred = np.isin(predicted.class_id, list(classes))
    if len(dropped) and len(predicted):
        on_dropped = box_iou(predicted.xyxy, dropped).max(axis=1) >= MATCH_IOU
        keep_pred &= ~on_dropped
    return LabeledTiles(truth.xyxy[keep_truth], truth.class_id[keep_truth]), predicted[keep_pred]


@dataclass
class Evaluation:
    """Accumulates matches over images; `summary()` gives the figures."""

    labeled: int = 0
    found: int = 0
    correct: int = 0
    predictions: int = 0
    images: int = 0
    exact_images: int = 0
    backs_ignored: int = 0
    false_boxes_by_image: Counter = field(default_factory=Counter)  # detections paired with no labeled tile
    empty_images: int = 0  # photos without any labeled tile (a bare table)
    empty_images_with_box: int = 0
    failed_images: list[str] = field(default_factory=list)
    per_class_total: Counter = field(default_factory=Counter)
    per_class_correct: Counter = field(default_factory=Counter)
    confusions: Counter = field(default_factory=Counter)
    missed_by_image: Counter = field(default_factory=Counter)  # labeled tiles no detection was paired with
    seconds: float = 0.0
    stretched_images: list[str] = field(default_factory=list)
    natural_shape: Evaluation | None = None  # the photos not in stretched_images
    by_group: dict[str, Evaluation] = field(default_factory=dict)  # the photos of each capture group

    def add(self, match: ImageMatch, image: str = "") -> None:
        self.images += 1
        missed = len(match.truth_classes) - len(match.pairs)
        if missed:
            self.missed_by_image[image or f"image {self.images}"] += missed
        self.labeled += len(match.truth_classes)
        self.predictions += len(match.predicted_classes)
        self.found += len(match.pairs)
        self.correct += match.correct
        self.exact_images += int(match.exact)
        self.empty_images += int(not len(match.truth_classes))
        self.empty_images_with_box += int(not len(match.truth_classes) and len(match.predicted_classes) > 0)
        false_boxes = len(match.predicted_classes) - len(match.pairs)
        if false_boxes:
            self.false_boxes_by_image[image or f"image {self.images}"] += false_boxes
        for cls in match.truth_classes:
            self.per_class_total[int(cls)] += 1
        for t, p in match.pairs:
            true_cls, read_cls = int(match.truth_classes[t]), int(match.predicted_classes[p])
            if true_cls == read_cls:
                self.per_class_correct[true_cls] += 1
            else:
                self.confusions[(true_cls, read_cls)] += 1

    def add_photo(self, match: ImageMatch, image: str, stretched: bool, group: str | None = None) -> None:
        """`add`, also keeping the photos of natural shape apart from those stretched by a labeling tool,
        and each capture `group`'s photos apart."""
        self.add(match, image)
        if group is not None:
            self.by_group.setdefault(group, Evaluation()).add(match, image)
        if stretched:
            self.stretched_images.append(image)
        else:
            if self.natural_shape is None:
                self.natural_shape = Evaluation()
            self.natural_shape.add(match, image)

    def summary(self, top_confusions: int = 15, top_missed: int = 5) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        without_stretched = None
        if self.natural_shape is not None and self.stretched_images:
            rest = self.natural_shape.summary()
            without_stretched = {k: rest[k] for k in ("images", "labeled_tiles", "read_accuracy", "recall", "precision")}
        return {
            "images": self.images,
            "labeled_tiles": self.labeled,
            "detections": self.predictions,
            "read_accuracy": ratio(self.correct, self.labeled),
            "recall": ratio(self.found, self.labeled),
            "precision": ratio(self.correct, self.predictions),
            "images_read_exactly": ratio(self.exact_images, self.images),
            "box_precision": ratio(self.found, self.predictions),
            "false_boxes": sum(self.false_boxes_by_image.values()),
            "images_with_false_boxes_over_1": sum(1 for n in self.false_boxes_by_image.values() if n > 1),
            "most_false_boxes": max(self.false_boxes_by_image.values(), default=0),
            "empty_images": self.empty_images,
            "empty_images_with_a_box": self.empty_images_with_box,
            "per_class_accuracy": {
                CLASS_NAMES[c]: ratio(self.per_class_correct[c], n) for c, n in sorted(self.per_class_total.items())
            },
            "top_confusions": [
                {"true": CLASS_NAMES[t], "read": CLASS_NAMES[p], "count": n}
                for (t, p), n in self.confusions.most_common(top_confusions)
            ],
            "most_tiles_missed": [
                {"image": name, "missed": n} for name, n in self.missed_by_image.most_common(top_missed)
            ],
            "backs_ignored": self.backs_ignored,
            "failed_images": self.failed_images,
            "stretched_images": self.stretched_images,
            "without_stretched_images": without_stretched,
            "ms_per_image": round(1000 * self.seconds / self.images, 1) if self.images else None,
            **({"by_group": {name: {key: part[key] for key in GROUP_FIGURES} for name, part in
                             ((name, self.by_group[name].summary()) for name in sorted(self.by_group))}}
               if self.by_group else {}),
        }


GROUP_FIGURES = ("images", "labeled_tiles", "read_accuracy", "recall", "false_boxes", "images_read_exactly")
NOT_IN_MANIFEST = "(not in the manifest)"


def capture_groups(manifest: Path) -> Callable[[str], str]:
    """The capture group of a photo, by its file name, from a manifest.csv in chinese-v4's form (columns image,
    group). A photo `datasets.build` copied (`real_val_NAME`) is found by its source name; one the manifest does
    not name is in NOT_IN_MANIFEST."""
    try:
        with manifest.open(newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as error:
        raise DatasetError(f"cannot read the manifest {manifest}: {error.strerror or error}") from error
    if not rows or not {"image", "group"} <= set(rows[0]):
        raise DatasetError(f"{manifest} is not a manifest: it needs the columns image and group")
    group_of = {row["image"]: row["group"] for row in rows}

    def group(image: str) -> str:
        return group_of.get(image) or group_of.get(re.sub(r"^real_(train|val|test)_", "", image)) or NOT_IN_MANIFEST

    return group


# ---------------------------------------------------------------- datasets


def label_path_for(image: Path) -> Path:
    """ultralytics' rule: the last `images` folder of the path becomes `labels`, suffix `.txt`."""
    parts = list(image.parts)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            break
    return Path(*parts).with_suffix(".txt")


def dataset_images(dataset: Path, split: str) -> list[Path]:
    """The images of `split` in a data YAML, a folder with data.yaml, or a plain images/ folder."""
    if dataset.is_dir() and (dataset / "data.yaml").is_file():
        dataset = dataset / "data.yaml"
    if dataset.is_file() and dataset.suffix in {".yaml", ".yml"}:
        config = yaml.safe_load(dataset.read_text())
        root = Path(config.get("path") or ".")
        root = root if root.is_absolute() else (dataset.parent / root)
        entries = config.get(split)
        if not entries:
            raise DatasetError(f"{dataset} has no '{split}' split")
        folders = [root / e for e in (entries if isinstance(entries, list) else [entries])]
    elif dataset.is_dir():
        folders = [dataset / "images" / split] if (dataset / "images" / split).is_dir() else [dataset / "images"]
    else:
        raise DatasetError(f"not a dataset YAML or folder: {dataset}")
    images: list[Path] = []
    for folder in folders:
        if folder.is_file() and folder.suffix == ".txt":
            images += [(folder.parent / line.strip()) for line in folder.read_text().splitlines() if line.strip()]
        elif folder.is_dir():
            images += sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise DatasetError(f"no images found for split '{split}' in {dataset}")
    return images


def read_truth(image: Path, width: int, height: int) -> LabeledTiles:
    """YOLO labels of `image` in pixels (an image without a label file has no tiles), read by
    `tileset.labelfiles.read_labels`; DatasetError naming the file and line of a broken one."""
    try:
        boxes = read_labels(label_path_for(image))
    except LabelFileError as error:
        raise DatasetError(str(error)) from None
    xyxy = np.asarray([b.xyxy(width, height) for b in boxes], np.float32).reshape(-1, 4)
    return LabeledTiles(xyxy, np.asarray([b.class_id for b in boxes], np.int64))


def is_stretched(truth: LabeledTiles, beyond: float = STRETCHED_BEYOND) -> bool:
    """Whether the labeled tiles, by their median width / height, are beyond any real tile's shape."""
    if len(truth.xyxy) == 0:
        return False
    width, height = truth.xyxy[:, 2] - truth.xyxy[:, 0], truth.xyxy[:, 3] - truth.xyxy[:, 1]
    aspect = float(np.median(width / np.maximum(height, 1e-6)))
    return not 1 / beyond <= aspect <= beyond


def has_back_labels(images: Iterable[Path]) -> bool:
    return any((read_truth(image, 1, 1).class_id == BACK_ID).any() for image in images)


def evaluate(
    detector: Any, images: list[Path], keep_backs: bool | None = None, classes: set[int] | None = None,
    progress: bool = False, group_of: Callable[[str], str] | None = None,
) -> Evaluation:
    """Run `detector` (a TileDetector) on every image and match against the labels (`group_of`: each photo's
    figures also counted in its capture group, `capture_groups`)."""
    ignore_backs = not has_back_labels(images) if keep_backs is None else not keep_backs
    result = Evaluation()
    for index, image in enumerate(images, start=1):
        started = time.perf_counter()
        try:
            dets, (width, height) = detector.detect_file(image)
        except ValueError as error:  # ImageError
            result.failed_images.append(f"{image}: {error}")
            continue
        result.seconds += time.perf_counter() - started
        truth = read_truth(image, width, height)
        stretched = is_stretched(truth)
        if ignore_backs:
            is_back = dets.class_id == BACK_ID
            result.backs_ignored += int(is_back.sum())
            dets = dets[~is_back]
        if classes is not None:
            truth, dets = restrict_to_classes(truth, dets, classes)
        result.add_photo(match_tiles(truth, dets), image.name, stretched, group_of(image.name) if group_of else None)
        if progress and (index % 50 == 0 or index == len(images)):
            print(f"  evaluated {index}/{len(images)} images", file=sys.stderr, flush=True)
    return result


def format_summary(summary: dict[str, Any]) -> str:
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.2f}%"

    lines = [
        f"images {summary['images']}, labeled tiles {summary['labeled_tiles']}, detections {summary['detections']}",
        f"read accuracy {pct(summary['read_accuracy'])}  recall {pct(summary['recall'])}  "
        f"precision {pct(summary['precision'])}  images read exactly {pct(summary['images_read_exactly'])}",
        f"speed {summary['ms_per_image']} ms/image; backs set aside (unlabeled in this dataset): "
        f"{summary['backs_ignored']}",
        "per class: " + "  ".join(f"{k} {pct(v)}" for k, v in summary["per_class_accuracy"].items()),
        "top confusions (true -> read): "
        + (", ".join(f"{c['true']}->{c['read']} x{c['count']}" for c in summary["top_confusions"]) or "none"),
    ]
    lines.append(f"false boxes {summary['false_boxes']} (box precision {pct(summary['box_precision'])}); photos with "
                 f">1 false box {summary['images_with_false_boxes_over_1']}, most in one photo "
                 f"{summary['most_false_boxes']}; empty photos {summary['empty_images']}, with any box "
                 f"{summary['empty_images_with_a_box']}")
    if summary["most_tiles_missed"]:
        lines.append("most tiles not found: "
                     + ", ".join(f"{m['image']} x{m['missed']}" for m in summary["most_tiles_missed"]))
    rest = summary.get("without_stretched_images")
    if rest:
        lines.append(f"without the {len(summary['stretched_images'])} photo(s) stretched beyond {STRETCHED_BEYOND:g}:1 by "
                     f"their labeling tool ({rest['images']} images, {rest['labeled_tiles']} tiles): read accuracy "
                     f"{pct(rest['read_accuracy'])}  recall {pct(rest['recall'])}  precision {pct(rest['precision'])}")
    if summary["failed_images"]:
        lines.append("unreadable: " + "; ".join(summary["failed_images"]))
    for name, part in summary.get("by_group", {}).items():
        lines.append(f"  {name}: {part['images']} photos, {part['labeled_tiles']} tiles: read accuracy "
                     f"{pct(part['read_accuracy'])}  recall {pct(part['recall'])}  false boxes {part['false_boxes']}  "
                     f"images read exactly {pct(part['images_read_exactly'])}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path, help="data YAML, folder with data.yaml, or folder with images/")
    parser.add_argument("--split", default="val", help="split of a YAML dataset (default val)")
    parser.add_argument("--models", type=Path, default=None, help="models folder: its version in use is read (default: the repository's models/)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--keep-backs", action="store_true", help="count backs found even without back labels")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads (default from settings)")
    parser.add_argument("--limit", type=int, default=None, help="evaluate only the first N images")
    parser.add_argument("--conf", type=float, default=None, help="tile-finder confidence threshold (default from settings)")
    parser.add_argument("--nms-iou", type=float, default=None, help="NMS IoU threshold (default from settings)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="overrides",
                        help="change one detector setting, e.g. mirror.sure_conf=0.8 (repeatable)")
    parser.add_argument("--groups", type=Path, default=None, metavar="MANIFEST",
                        help="also the figures of each capture group named by this manifest.csv (columns image, group)")
    return parser


def main(argv: list[str] | None = None) -> int:
    from dataclasses import replace

    from tileset.classes import ClassTableMismatch
    from vision.detector import TileDetector
    from vision.models import ModelLoadError
    from vision.settings import DetectorSettings, with_overrides

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = with_overrides(DetectorSettings(), args.overrides)
    except ValueError as error:
        parser.error(str(error))
    if args.threads:
        settings = replace(settings, intra_op_threads=args.threads)
    if args.conf is not None:
        settings = replace(settings, conf_threshold=args.conf)
    if args.nms_iou is not None:
        settings = replace(settings, nms_iou=args.nms_iou)
    try:
        images = dataset_images(args.dataset, args.split)[: args.limit]
        group_of = capture_groups(args.groups) if args.groups else None
        from vision.registry import active_dir

        # the version in use of DIR (its ACTIVE pointer), as every --models DIR command reads it
        detector = TileDetector.load(active_dir(args.models), settings)
    except (DatasetError, ModelLoadError, ClassTableMismatch, ValueError) as error:  # ValueError: rules_off names no rule
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        result = evaluate(detector, images, keep_backs=True if args.keep_backs else None, progress=True,
                          group_of=group_of)
    except DatasetError as error:  # a broken label file
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = {"dataset": str(args.dataset), "split": args.split, **result.summary(),
               "models": detector.model_info.to_json()}
    print(json.dumps(summary, ensure_ascii=False) if args.json else format_summary(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
