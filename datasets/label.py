"""Labeling workflow: pre-label photos with the current models, Label Studio round trip.

    python -m datasets.label prelabel PHOTOS_DIR [--model DIR]
    python -m datasets.label order PHOTOS_DIR
    python -m datasets.label export-ls PHOTOS_DIR OUT.json [--url-prefix P]
    python -m datasets.label import-ls EXPORT PHOTOS_DIR [--by-name]
    python -m datasets.label config

Labels go to `PHOTOS_DIR/labels/NAME.txt` (YOLO, canonical class ids), confidences to
`labels/NAME.meta.json`; see `tileset.labelfiles` for the layout and the atomic writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tileset.atomic_files import atomic_write_text
from tileset.labelfiles import (
    LabelBox,
    LabelFileError,
    LabelMeta,
    Photo,
    PhotoLabels,
    list_photos,
    review_order,
)
from vision.detections import Detections, Detector


@dataclass(frozen=True)
class PrelabelReport:
    labeled: int
    skipped_reviewed: int
    failed: tuple[str, ...]
    boxes: int


def detections_to_labels(detections: Detections, width: int, height: int, model: str) -> PhotoLabels:
    """Detections in pixels -> normalized YOLO boxes clipped to the image, confidences alongside."""
    boxes, confidences = [], []
    for xyxy, conf, class_id in zip(detections.xyxy, detections.confidence, detections.class_id, strict=False):
        x1, y1, x2, y2 = (float(v) for v in xyxy)
        x1, x2 = max(0.0, x1), min(float(width), x2)
        y1, y2 = max(0.0, y1), min(float(height), y2)
        if x2 <= x1 or y2 <= y1:
            continue
        boxes.append(LabelBox.from_xyxy(int(class_id), (x1, y1, x2, y2), width, height))
        confidences.append(float(conf))
    return PhotoLabels(tuple(boxes), LabelMeta("prelabel", False, model, tuple(confidences)))


def prelabel_folder(folder: Path, detector: Detector, model: str, *, overwrite_reviewed: bool = False,
                    progress: Callable[[str], None] = lambda line: None,
                    read_image: Callable[[Path], np.ndarray] | None = None) -> PrelabelReport:
    """Label every photo with the detector; labels a person made, edited, imported or reviewed
    are kept unless asked (so are label files that cannot be read, or whose metadata is missing).

    Each save keeps the previous label file in `labels/.history/`, so even an overwrite of a
    reviewed photo can be undone.
    """
    if read_image is None:
        from vision.images import load_image

        read_image = load_image
    unreadable = image_errors()
    photos = list_photos(folder)
    labeled = skipped = boxes = 0
    failed = []
    for number, photo in enumerate(photos, start=1):
        if not overwrite_reviewed and (why := _kept_because(photo)):
            skipped += 1
            progress(f"[{number}/{len(photos)}] {photo.image.name}: {why}, kept")
            continue
        try:
            image = read_image(photo.image)
        except unreadable as error:
            failed.append(f"{photo.image.name}: {error}")
            progress(f"[{number}/{len(photos)}] {photo.image.name}: {error}")
            continue
        height, width = image.shape[:2]
        labels = detections_to_labels(detector.detect(image), width, height, model)
        photo.save(labels)
        labeled += 1
        boxes += len(labels.boxes)
        progress(f"[{number}/{len(photos)}] {photo.image.name}: {len(labels.boxes)} boxes, "
                 f"least sure {labels.meta.least_confidence:.2f}")
    return PrelabelReport(labeled, skipped, tuple(failed), boxes)


def _kept_because(photo: Photo) -> str:
    """Why pre-labeling must leave this photo's labels alone ("" when it may replace them)."""
    if not photo.label_path.exists():
        return ""
    try:
        labels = photo.load()
    except LabelFileError as error:
        return f"label file unreadable ({error})"
    if labels.meta.reviewed:
        return "reviewed by a person"
    return "labels made or edited by a person" if labels.made_by_person else ""


def image_errors() -> tuple[type[BaseException], ...]:
    """What an unreadable photo raises: the detector's ImageError, or OS/value errors."""
    try:
        from vision.images import ImageError
    except ImportError:
        return (OSError, ValueError)
    return (ImageError, OSError, ValueError)


def load_detector(model_dir: Path | None) -> tuple[Detector, str]:
    """The detector of `model_dir`, or of the model version in use, and a name for the label metadata."""
    from vision.detector import TileDetector
    from vision.registry import Registry

    if model_dir is None:
        registry = Registry()
        model_dir, name = registry.active_dir(), registry.active_name()
    else:
        name = Path(model_dir).resolve().name
    return TileDetector.load(Path(model_dir)), name


def command_prelabel(args: argparse.Namespace) -> int:
    detector, model = load_detector(args.model)
    report = prelabel_folder(args.photos, detector, model, overwrite_reviewed=args.overwrite_reviewed,
                             progress=lambda line: print(line, file=sys.stderr))
    print(json.dumps({"labeled": report.labeled, "kept_reviewed": report.skipped_reviewed,
                      "boxes": report.boxes, "failed": list(report.failed)}))
    return 1 if report.failed and not report.labeled else 0


def command_order(args: argparse.Namespace) -> int:
    """One line per photo, least sure first; a photo with broken label files says so on stderr."""
    for photo in review_order(list_photos(args.photos)):
        try:
            labels, problems = photo.load_checked()
        except LabelFileError as error:
            print(f"warning: {error}", file=sys.stderr)
            print(f"-\tunreadable\t{photo.image.name}")
            continue
        for problem in problems:
            print(f"warning: {problem}", file=sys.stderr)
        meta = labels.meta
        state = "reviewed" if meta.reviewed else meta.origin if photo.label_path.exists() else "unlabeled"
        print(f"{labels.least_confidence:.3f}\t{state}\t{photo.image.name}")
    return 0


def command_export(args: argparse.Namespace) -> int:
    from datasets.labelstudio import default_url_prefix, export_tasks, labeling_config

    prefix = args.url_prefix if args.url_prefix is not None else default_url_prefix(args.photos)
    tasks = export_tasks(args.photos, prefix)
    atomic_write_text(args.out, json.dumps(tasks, indent=1) + "\n")
    config_path = args.config or args.out.with_suffix(".config.xml")
    atomic_write_text(config_path, labeling_config())
    print(f"{len(tasks)} tasks -> {args.out}; labeling config (class ids pinned) -> {config_path}")
    return 0


def command_import(args: argparse.Namespace) -> int:
    from datasets.labelstudio import import_export

    report = import_export(args.export, args.photos, by_name=args.by_name)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for name in report.unmatched:
        print(f"warning: no photo in {args.photos} for {name!r}", file=sys.stderr)
    for why in report.refused:
        print(f"warning: {why}", file=sys.stderr)
    if report.by_name_only:
        print(f"warning: matched by file name alone, imported but not marked reviewed (look at them on the Label "
              f"page): {', '.join(report.by_name_only)}", file=sys.stderr)
    print(f"{report.photos} photos, {report.boxes} boxes imported into {args.photos}/labels"
          + (f"; {len(report.refused)} not imported (see the warnings)" if report.refused else ""))
    if not report.photos:
        print(f"nothing imported: {report.why_nothing()}", file=sys.stderr)
    return 0 if report.photos else 1


def command_config(args: argparse.Namespace) -> int:
    from datasets.labelstudio import labeling_config

    print(labeling_config(), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m datasets.label", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    prelabel = sub.add_parser("prelabel", help="write YOLO labels and confidences from the current models")
    prelabel.add_argument("photos", type=Path, metavar="PHOTOS_DIR")
    prelabel.add_argument("--model", type=Path, help="models folder (default: the version in use)")
    prelabel.add_argument("--overwrite-reviewed", action="store_true",
                          help="also re-label photos a person reviewed, edited or imported "
                               "(their labels stay in labels/.history/)")
    prelabel.set_defaults(run=command_prelabel)

    order = sub.add_parser("order", help="list photos in review order: least sure first")
    order.add_argument("photos", type=Path, metavar="PHOTOS_DIR")
    order.set_defaults(run=command_order)

    export = sub.add_parser("export-ls", help="Label Studio tasks with the labels as predictions, plus its config")
    export.add_argument("photos", type=Path, metavar="PHOTOS_DIR")
    export.add_argument("out", type=Path, metavar="OUT.json")
    export.add_argument("--url-prefix", help="prefix of each task's image URL (default: Label Studio local files, "
                        "/data/local-files/?d=<folder name>/)")
    export.add_argument("--config", type=Path, help="where to write the labeling config (default: OUT.config.xml)")
    export.set_defaults(run=command_export)

    imp = sub.add_parser("import-ls", help="read a Label Studio JSON export (file) or YOLO export (folder)")
    imp.add_argument("export", type=Path, metavar="EXPORT")
    imp.add_argument("photos", type=Path, metavar="PHOTOS_DIR")
    imp.add_argument("--by-name", action="store_true",
                     help="let a task matched by file name alone (no content hash, no folder in its path) replace "
                          "labels a person made; such photos are still not marked reviewed")
    imp.set_defaults(run=command_import)

    config = sub.add_parser("config", help="print the Label Studio labeling config (43 classes, ids pinned)")
    config.set_defaults(run=command_config)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (LabelFileError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # model files missing or unreadable: say so without a traceback
        if type(error).__name__ in ("ModelLoadError", "ClassTableMismatch", "ImageError", "RegistryError"):
            print(f"error: {error}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
