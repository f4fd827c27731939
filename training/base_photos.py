"""The base photos shipped in `models/base/`: a small labeled set of real photos of another club's tiles that
calibration and teaching check a new version on (and mix into its training), so that both work in a clone
of this repository with nothing beside it.

    python -m training.base_photos SOURCE [--out models/base] [--val 30] [--train 80] [--min-photos-per-face 5]

SOURCE is a labeled YOLO dataset with train and val splits in the form of chinese-v4 ("Chinese Mahjong
Detection" v4, CC BY 4.0: a `data.yaml`, `images/{train,val}`, `labels/{train,val}`, its `LICENSE.md` and
`README.md`). Picked, with no randomness:

* val: the first `--val` photos of its val split in name order, the photos the promotion check reads
  (`CalibrateSettings.base_check_images`);
* train: `--train` photos spread evenly over its train split (`training.train.spread`, as the threshold
  photos are picked from a full base set: `CalibrateSettings.base_crops_images`), then, for any face class
  on fewer than `--min-photos-per-face` of them, further train photos holding it (in name order) until it is
  on that many or the split has no more. A face class the source has no labeled tile of is named and left
  out: `training.adapt` renders that face from drawn artwork instead (`training.adapt.drawn_faces_for`).

Photos are copied byte for byte (a photo whose longer side exceeds `--long-side` is shrunk to it and saved as
JPEG; the labels are normalised, so they hold), with their labels, a `data.yaml`, a `manifest.csv` naming
each photo's split, the source's `LICENSE.md` and a `README.md` with its attribution. Prints one JSON line:
the photos, tiles and bytes written and the face classes on fewer photos than asked.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2

from tileset.classes import CLASS_NAMES, FACE_NAMES
from tileset.labelfiles import LabelFileError, read_labels
from training.evaluate import DatasetError, dataset_images, label_path_for
from training.train import spread
from vision.settings import BASE_PHOTOS_DIR, CalibrateSettings

DEFAULT = CalibrateSettings()
MIN_PHOTOS_PER_FACE = 5
DEFAULT_LONG_SIDE = 1024
ATTRIBUTION_FILES = ("LICENSE.md", "README.md")


class BasePhotosError(RuntimeError):
    """A source that cannot make the base photos, said plainly."""


def faces_on(image: Path) -> set[str]:
    """The face classes labeled on a photo (backs are not faces)."""
    label = label_path_for(image)
    if not label.is_file():
        return set()
    return {CLASS_NAMES[box.class_id] for box in read_labels(label) if CLASS_NAMES[box.class_id] in FACE_NAMES}


def pick_train(train: Sequence[Path], count: int, min_per_face: int) -> tuple[list[Path], dict[str, int]]:
    """`count` photos spread over `train`, topped up so that each face class is on at least `min_per_face` of
    them where the split has that many; and each face class's photo count among those picked."""
    picked = list(spread(list(train), count))
    faces = {image: faces_on(image) for image in train}
    on = Counter(face for image in picked for face in faces[image])
    for face in FACE_NAMES:
        for image in train:
            if on[face] >= min_per_face:
                break
            if image not in picked and face in faces[image]:
                picked.append(image)
                on.update(faces[image])
    return sorted(picked), {face: on[face] for face in FACE_NAMES}


def _copy_photo(image: Path, out_images: Path, out_labels: Path, long_side: int) -> int:
    """The photo (shrunk to `long_side` when larger) and its label file copied; the bytes written."""
    out_images.mkdir(parents=True, exist_ok=True)
    out_labels.mkdir(parents=True, exist_ok=True)
    target = out_images / image.name
    picture = cv2.imread(str(image))
    if picture is None:
        raise BasePhotosError(f"{image}: not a readable photo")
    height, width = picture.shape[:2]
    if max(height, width) > long_side:
        scale = long_side / max(height, width)
        picture = cv2.resize(picture, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
        target = target.with_suffix(".jpg")
        cv2.imwrite(str(target), picture, [cv2.IMWRITE_JPEG_QUALITY, 90])
    else:
        shutil.copy2(image, target)
    label = label_path_for(image)
    label_target = out_labels / (target.stem + ".txt")
    label_target.write_text(label.read_text(encoding="utf-8") if label.is_file() else "", encoding="utf-8")
    return target.stat().st_size + label_target.stat().st_size


def _readme(source: Path, val: int, train: int, per_face: dict[str, int], command: str) -> str:
    attribution = ""
    readme = source / "README.md"
    if readme.is_file():  # the source's own attribution block, quoted lines ("> ...") kept as they are
        quoted = [line for line in readme.read_text(encoding="utf-8").splitlines() if line.startswith(">")]
        attribution = "\n".join(quoted)
    fewest = sorted(per_face.items(), key=lambda item: (item[1], item[0]))[:8]
    return "\n".join([
        "# Base photos: real photos of another set, shipped for calibration and teaching",
        "",
        "A small labeled set that `python -m vision calibrate` and `python -m vision.adapt` read by default",
        "(`vision.settings.BASE_PHOTOS_DIR`): a new version must read the val photos no worse than the version",
        "in use; the crops the version in use cuts from the train photos set the few-shot head's thresholds, and",
        "the train photos' tiles are mixed into a fine-tune so that faces a club's photos lack are kept.",
        "",
        f"- val: {val} photos (the first of the source's val split, the ones the promotion check reads)",
        f"- train: {train} photos spread over the source's train split; the fewest photos any face class is on: "
        + ", ".join(f"{face} {n}" for face, n in fewest),
        "",
        "Made with (SOURCE: the chinese-v4 folder, a copy of the export named below):",
        "",
        f"    {command}",
        "",
        "## Licence and attribution",
        "",
        "The photos and labels are a selection of the source below, unchanged (see `LICENSE.md`):",
        "",
        attribution or "(the source gave no attribution block; see LICENSE.md)",
        "> Selected for this repository: a few val and train photos, copied with their labels.",
        "",
    ])


def build(source: Path, out: Path, *, val_count: int = DEFAULT.base_check_images,
          train_count: int = DEFAULT.base_crops_images, min_per_face: int = MIN_PHOTOS_PER_FACE,
          long_side: int = DEFAULT_LONG_SIDE, command: str = "") -> dict[str, object]:
    """Write the base photos of `source` to `out` (replacing what is there); the summary `main` prints."""
    try:
        val = dataset_images(source, "val")[:val_count]
        train_all = dataset_images(source, "train")
    except DatasetError as error:
        raise BasePhotosError(f"{source}: {error}") from None
    if not val or not train_all:
        raise BasePhotosError(f"{source}: the base photos need a val and a train split")
    try:
        train, per_face = pick_train(train_all, train_count, min_per_face)
    except LabelFileError as error:
        raise BasePhotosError(str(error)) from None
    if out.exists():
        shutil.rmtree(out)
    written = 0
    rows = ["split,image,source"]
    for split, images in (("val", val), ("train", train)):
        for image in images:
            written += _copy_photo(image, out / "images" / split, out / "labels" / split, long_side)
            rows.append(f"{split},{image.name},{image.relative_to(source) if image.is_relative_to(source) else image.name}")
    names = "\n".join(f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(f"# the base photos (README.md); paths relative to this file\npath: .\n"
                                   f"train: images/train\nval: images/val\nnc: {len(CLASS_NAMES)}\nnames:\n{names}\n",
                                   encoding="utf-8")
    (out / "manifest.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    license_file = source / "LICENSE.md"
    if license_file.is_file():
        shutil.copy2(license_file, out / "LICENSE.md")
    (out / "README.md").write_text(_readme(source, len(val), len(train), per_face, command), encoding="utf-8")
    tiles = sum(len(read_labels(p)) for p in (out / "labels").rglob("*.txt"))
    short = {face: n for face, n in per_face.items() if n < min_per_face}
    return {"out": str(out), "val": len(val), "train": len(train), "tiles": tiles,
            "bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
            "faces_on_fewer_photos": short, "faces_missing": sorted(f for f, n in per_face.items() if n == 0)}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.base_photos", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, metavar="SOURCE",
                        help="a labeled dataset in the form of chinese-v4 (data.yaml, images/ and labels/ with "
                             "train and val splits, LICENSE.md, README.md)")
    parser.add_argument("--out", type=Path, default=BASE_PHOTOS_DIR, help="where to write (default: %(default)s)")
    parser.add_argument("--val", type=int, default=DEFAULT.base_check_images, help="val photos (default: %(default)s)")
    parser.add_argument("--train", type=int, default=DEFAULT.base_crops_images,
                        help="train photos spread over the split (default: %(default)s)")
    parser.add_argument("--min-photos-per-face", type=int, default=MIN_PHOTOS_PER_FACE,
                        help="train photos added until each face class is on this many (default: %(default)s)")
    parser.add_argument("--long-side", type=int, default=DEFAULT_LONG_SIDE,
                        help="larger photos are shrunk to this (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.val < 1 or args.train < 1:
        print("error: --val and --train must be at least 1", file=sys.stderr)
        return 2
    if not args.source.is_dir():
        print(f"error: {args.source} is not a folder", file=sys.stderr)
        return 2
    given = sys.argv[1:] if argv is None else argv
    # the source is named by its form, not by where it lay on the machine that made the photos
    command = "python -m training.base_photos " + " ".join("SOURCE" if a == str(args.source) else a for a in given)
    try:
        summary = build(args.source, args.out, val_count=args.val, train_count=args.train,
                        min_per_face=args.min_photos_per_face, long_side=args.long_side, command=command)
    except BasePhotosError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
