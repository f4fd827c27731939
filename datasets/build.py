"""Assemble a YOLO training set (43 canonical classes) from real photos and synthetic scenes.

    python -m datasets.build OUT --real REAL --synth SYNTH --val-fraction 0.15 --seed 0

REAL: a real dataset in the form of chinese-v4 (its manifest.csv, `images/` and `labels/` by split; the
source of `models/base/`, named in its README.md); SYNTH: the output of `python -m datasets.synth`.

Writes `OUT/images/{train,val}`, `OUT/labels/{train,val}` (copies: ultralytics
writes `.cache` files beside the labels, and nothing trains from the source folders),
`OUT/data.yaml` (absolute path, names from `tileset.classes`) and
`OUT/build.json` (the summary and which sessions went where).

Real photos are re-split so that no capture session spans train and val:
a *session* is the manifest `group` for dated sessions (`IMG_20231217`) and
named sets (`bamboo_family`), and the single source photo for groups that
gather unrelated photos (`fbid_n`, `hand_NNN`, `other`).  Roboflow's train
split holds augmented copies (flips, rotations, shear, loose boxes); val only
takes un-augmented photos (the original val/test splits), and augmented
copies of a val session are left out entirely.  `--split-by source` splits by
source photo only (weaker: sessions may then span both sides).

Synthetic folders (`python -m datasets.synth` output) go to train with
`--synth`, to val with `--synth-val`.

`--squeezed-copies F` adds, for a share F of the real train photos, one more
copy squeezed along one axis (to 30-75 %): labeling tools that "stretch to
640x640" leave photos like that, tiles five times taller than wide, and the
detector otherwise never sees them.  YOLO labels are relative, so the copy
keeps its label file unchanged.

`--label-fixes CSV` corrects real labels that are plainly wrong (a tile
labeled 3m whose face reads 二萬): rows `split,image,line,was,is,seen`, the
line 1-based in the image's label file.  A row whose image or `was` class does
not match the data stops the build: the fixes were made for another version.
`datasets/label_fixes/chinese-v4.csv` holds the ones found so far.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tileset.classes import CLASS_NAMES
from tileset.labelfiles import IMAGE_SUFFIXES

SPLITS = ("train", "val", "test")
AUGMENTED_SPLITS = frozenset({"train"})  # Roboflow augmented only its train split
MIXED_GROUPS = frozenset({"fbid_n", "hand_NNN", "other"})  # groups of unrelated photos: one session per photo
SPLIT_KEYED_GROUPS = frozenset({"hand_NNN"})  # the same hand_NNN name is a different photo in each split


class BuildError(ValueError):
    """Input the build cannot use; the message says what and where."""


@dataclass(frozen=True)
class RealImage:
    split: str  # the original Roboflow split
    image: str
    source_root: str
    group: str

    @property
    def augmented(self) -> bool:
        return self.split in AUGMENTED_SPLITS

    @property
    def photo(self) -> str:
        """The source photo: `source_root`, qualified by split where the names repeat across splits."""
        return f"{self.split}/{self.source_root}" if self.group in SPLIT_KEYED_GROUPS else self.source_root

    def session(self, split_by: str) -> str:
        if split_by == "source" or self.group in MIXED_GROUPS:
            return f"photo:{self.photo}"
        return f"group:{self.group}"


@dataclass
class Item:
    """One image to place: where it comes from and the name it gets."""

    image: Path
    label: Path | None
    name: str
    origin: str  # "real" or the synthetic folder
    session: str = ""
    fixes: dict[int, int] = field(default_factory=dict)  # label line (1-based) -> corrected class id


@dataclass
class SplitPlan:
    train: list[Item] = field(default_factory=list)
    val: list[Item] = field(default_factory=list)
    test: list[Item] = field(default_factory=list)
    dropped: list[Item] = field(default_factory=list)

    def parts(self) -> dict[str, list[Item]]:
        return {"train": self.train, "val": self.val, "test": self.test}


# --- reading ---------------------------------------------------------------------------------


def read_manifest(real: Path) -> list[RealImage]:
    path = real / "manifest.csv"
    if not path.is_file():
        raise BuildError(f"{real} has no manifest.csv (columns split,image,source_root,group)")
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = {"split", "image", "source_root", "group"} - set(reader.fieldnames or ())
        if missing:
            raise BuildError(f"{path} lacks column(s) {', '.join(sorted(missing))}")
        rows = [RealImage(r["split"], r["image"], r["source_root"], r["group"]) for r in reader]
    bad = [r for r in rows if r.split not in SPLITS]
    if bad:
        raise BuildError(f"{path}: unknown split {bad[0].split!r} for {bad[0].image}")
    return rows


@dataclass(frozen=True)
class LabelFix:
    split: str
    image: str
    line: int  # 1-based, in the image's label file
    was: str
    now: str
    seen: str  # what the face shows, for whoever checks the fix


def read_label_fixes(path: Path) -> list[LabelFix]:
    if not path.is_file():
        raise BuildError(f"label fixes file {path} does not exist")
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = {"split", "image", "line", "was", "is"} - set(reader.fieldnames or ())
        if missing:
            raise BuildError(f"{path} lacks column(s) {', '.join(sorted(missing))}")
        fixes = []
        for n, r in enumerate(reader, start=2):
            if r["was"] not in CLASS_NAMES or r["is"] not in CLASS_NAMES or not r["line"].isdigit() or int(r["line"]) < 1:
                raise BuildError(f"{path}:{n}: needs a label line number and two class names, not {r['line']!r} {r['was']!r} {r['is']!r}")
            fixes.append(LabelFix(r["split"], r["image"], int(r["line"]), r["was"], r["is"], r.get("seen") or ""))
    return fixes


def _label_class(label: Path | None, line: int) -> str | None:
    lines = label.read_text().splitlines() if label is not None else []
    if line > len(lines) or not lines[line - 1].split():
        return None
    try:
        return CLASS_NAMES[int(lines[line - 1].split()[0])]
    except (ValueError, IndexError):
        return None


def real_items(real: Path, rows: Sequence[RealImage], split_by: str,
               fixes: Sequence[LabelFix] = ()) -> list[tuple[RealImage, Item]]:
    items = {}
    for row in rows:
        image = real / "images" / row.split / row.image
        if not image.is_file():
            raise BuildError(f"manifest.csv lists {row.split}/{row.image} but {image} does not exist")
        label = real / "labels" / row.split / (Path(row.image).stem + ".txt")
        items[(row.split, row.image)] = (row, Item(image, label if label.is_file() else None,
                                                   f"real_{row.split}_{row.image}", "real", row.session(split_by)))
    for fix in fixes:
        if (fix.split, fix.image) not in items:
            raise BuildError(f"label fix for {fix.split}/{fix.image}: no such photo in {real}/manifest.csv")
        item = items[(fix.split, fix.image)][1]
        found = _label_class(item.label, fix.line)
        if found != fix.was:
            raise BuildError(f"label fix for {fix.split}/{fix.image} line {fix.line}: the label there is "
                             f"{found or 'missing'}, the fix expects {fix.was} (fixes for another version of the data?)")
        item.fixes[fix.line] = CLASS_NAMES.index(fix.now)
    return list(items.values())


def synth_items(folder: Path, tag: str) -> list[Item]:
    images = folder / "images"
    if not images.is_dir():
        raise BuildError(f"synthetic folder {folder} has no images/ (make it with python -m datasets.synth)")
    items = []
    for image in sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        label = folder / "labels" / (image.stem + ".txt")
        items.append(Item(image, label if label.is_file() else None, f"{tag}_{image.name}", str(folder), f"synth:{tag}"))
    if not items:
        raise BuildError(f"synthetic folder {folder} holds no images")
    return items


# --- splitting ----------------------------------------------------------------------------------


def split_real(
    pairs: Sequence[tuple[RealImage, Item]], val_fraction: float, seed: int, *, val_only: bool = False, test: bool = False,
) -> SplitPlan:
    """Whole sessions to train or val; val keeps only un-augmented photos.

    Sessions with an un-augmented photo are the val candidates; they are drawn in a
    seeded random order until val holds `val_fraction` of all source photos.
    `test=True` first moves every session holding an original test photo to test.
    `val_only=True` puts every candidate session in val and no real photo in train.
    """
    sessions: dict[str, list[tuple[RealImage, Item]]] = defaultdict(list)
    for row, item in pairs:
        sessions[item.session].append((row, item))
    plan = SplitPlan()
    names = sorted(sessions)
    if test:
        for name in [n for n in names if any(r.split == "test" for r, _ in sessions[n])]:
            _assign(plan.test, plan.dropped, sessions.pop(name))
        names = sorted(sessions)
    candidates = [n for n in names if any(not r.augmented for r, _ in sessions[n])]
    random.Random(seed).shuffle(candidates)
    photos = {r.photo for n in names for r, _ in sessions[n]}
    target = len(photos) if val_only else val_fraction * len(photos)
    chosen: set[str] = set()
    in_val = 0
    for name in candidates:
        if in_val >= target:
            break
        chosen.add(name)
        in_val += len({r.photo for r, _ in sessions[name] if not r.augmented})
    for name in names:
        if name in chosen:
            _assign(plan.val, plan.dropped, sessions[name])
        elif val_only:
            plan.dropped.extend(item for _, item in sessions[name])
        else:
            plan.train.extend(item for _, item in sessions[name])
    return plan


def _assign(keep: list[Item], dropped: list[Item], members: Iterable[tuple[RealImage, Item]]) -> None:
    for row, item in members:
        (dropped if row.augmented else keep).append(item)


# --- writing ---------------------------------------------------------------------------------------


def count_boxes(label: Path | None) -> int:
    """Boxes in a YOLO label file, checking every row (BuildError names the bad line)."""
    if label is None:
        return 0
    n = 0
    for i, line in enumerate(label.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(parts[0])
            values = [float(v) for v in parts[1:]]
        except ValueError:
            raise BuildError(f"{label}:{i}: not a YOLO row: {line!r}") from None
        if not 0 <= cls < len(CLASS_NAMES) or len(values) < 4:
            raise BuildError(f"{label}:{i}: class id {cls} or {len(values)} values is not a 43-class YOLO box")
        n += 1
    return n


def _place(src: Path, dst: Path, link: bool) -> None:
    if link:
        try:
            os.link(src, dst)
            return
        except OSError:
            pass  # another filesystem: copy
    shutil.copyfile(src, dst)


def _copy_label(item: Item, dst: Path) -> int:
    """`item`'s label file, checked and with its fixes, at `dst` (an empty one for an image without labels);
    returns its box count."""
    boxes = count_boxes(item.label)
    if item.label is None:
        dst.write_text("")
    elif item.fixes:
        lines = item.label.read_text().splitlines()
        for line, cls in item.fixes.items():
            lines[line - 1] = " ".join([str(cls), *lines[line - 1].split()[1:]])
        dst.write_text("\n".join(lines) + "\n")
    else:
        shutil.copyfile(item.label, dst)
    return boxes


def write_split(out: Path, split: str, items: Sequence[Item], link: bool) -> int:
    images, labels = out / "images" / split, out / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    boxes = 0
    for item in items:
        boxes += _copy_label(item, labels / (Path(item.name).stem + ".txt"))
        _place(item.image, images / item.name, link)
    return boxes


SQUEEZE_RANGE = (0.30, 0.75)


def squeeze_image(image: np.ndarray, factor: float, axis: int) -> np.ndarray:
    """`image` shrunk to `factor` of its size along `axis` (1: width, 0: height)."""
    height, width = image.shape[:2]
    size = (max(1, round(width * factor)), height) if axis == 1 else (width, max(1, round(height * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def write_squeezed_copies(out: Path, items: Sequence[Item], fraction: float, seed: int) -> tuple[int, int]:
    """One squeezed copy (OUT/images/train/squeezed_<name>) for a seeded share of the real train photos.

    Returns (copies, boxes)."""
    rng = random.Random(seed)
    chosen = [item for item in items if item.origin == "real" and rng.random() < fraction]
    written = boxes = 0
    for item in chosen:
        image = cv2.imread(str(item.image), cv2.IMREAD_COLOR)
        if image is None:
            raise BuildError(f"{item.image}: not a readable image")
        squeezed = squeeze_image(image, rng.uniform(*SQUEEZE_RANGE), axis=1 if rng.random() < 0.75 else 0)
        name = f"squeezed_{Path(item.name).stem}"
        cv2.imwrite(str(out / "images" / "train" / f"{name}.jpg"), squeezed, [cv2.IMWRITE_JPEG_QUALITY, 92])
        boxes += _copy_label(item, out / "labels" / "train" / f"{name}.txt")
        written += 1
    return written, boxes


def data_yaml(out: Path, splits: Iterable[str]) -> str:
    lines = [
        "# made by python -m datasets.build; class names from tileset.classes",
        f"path: {out.resolve()}",
        *(f"{s}: images/{s}" for s in splits),
        f"nc: {len(CLASS_NAMES)}",
        "names:",
        *(f"  {i}: {json.dumps(n)}" for i, n in enumerate(CLASS_NAMES)),
    ]
    return "\n".join(lines) + "\n"


def _check_out(out: Path, overwrite: bool) -> None:
    parts = [out / "images", out / "labels", out / "data.yaml", out / "build.json"]
    if any(p.exists() for p in parts):
        if not overwrite:
            raise BuildError(f"{out} already holds a dataset; pass --overwrite to replace it")
        for p in parts:
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m datasets.build",
        description="Assemble a YOLO train/val dataset (43 classes) from real photos re-split by session and synthetic scenes.",
    )
    p.add_argument("out", type=Path, help="output folder")
    p.add_argument("--real", type=Path, help="real dataset with manifest.csv (REAL: in the form of chinese-v4, see the module doc)")
    p.add_argument("--synth", type=Path, action="append", default=[], metavar="DIR", help="synthetic folder for train (repeatable)")
    p.add_argument("--synth-val", type=Path, action="append", default=[], metavar="DIR", help="synthetic folder for val (repeatable)")
    p.add_argument("--val-fraction", type=float, default=0.15, help="share of real source photos for val (default 0.15)")
    p.add_argument("--seed", type=int, default=0, help="seed of the session draw (default 0)")
    p.add_argument("--split-by", choices=("session", "source"), default="session",
                   help="unit kept whole: capture session (default) or source photo")
    p.add_argument("--real-val-only", action="store_true", help="real photos only in val (every un-augmented one), none in train")
    p.add_argument("--real-test", action="store_true",
                   help="also write images/test: every session with an original test photo (un-augmented only), kept out of train and val")
    p.add_argument("--squeezed-copies", type=float, default=0.0, metavar="F",
                   help="share of real train photos that also get a copy squeezed along one axis (default 0)")
    p.add_argument("--label-fixes", type=Path, default=None, metavar="CSV",
                   help="corrections of real labels (split,image,line,was,is,seen), e.g. datasets/label_fixes/chinese-v4.csv")
    p.add_argument("--link", action="store_true", help="hard-link images instead of copying where possible (labels are always copied)")
    p.add_argument("--overwrite", action="store_true", help="replace a dataset already in OUT")
    return p


def build(args: argparse.Namespace) -> dict[str, object]:
    if not 0 <= args.squeezed_copies <= 1:
        raise BuildError(f"--squeezed-copies must be in [0, 1], not {args.squeezed_copies}")
    if not 0 <= args.val_fraction < 1:
        raise BuildError(f"--val-fraction must be in [0, 1), not {args.val_fraction}")
    if args.real is None and not args.synth:
        raise BuildError("nothing to build: give --real and/or --synth")
    plan = SplitPlan()
    if args.real is not None:
        if not args.real.is_dir():
            raise BuildError(f"real dataset folder {args.real} does not exist")
        fixes = read_label_fixes(args.label_fixes) if args.label_fixes else []
        pairs = real_items(args.real, read_manifest(args.real), args.split_by, fixes)
        plan = split_real(pairs, args.val_fraction, args.seed, val_only=args.real_val_only, test=args.real_test)
    for i, folder in enumerate(args.synth):
        plan.train.extend(synth_items(folder, f"synth{i}"))
    for i, folder in enumerate(args.synth_val):
        plan.val.extend(synth_items(folder, f"synthval{i}"))
    if not plan.train:
        raise BuildError("the train split would be empty")
    if not plan.val:
        raise BuildError("the val split would be empty: give --real or --synth-val")

    _check_out(args.out, args.overwrite)
    summary: dict[str, object] = {}
    splits = [s for s, items in plan.parts().items() if items]
    for split in splits:
        items = plan.parts()[split]
        boxes = write_split(args.out, split, items, args.link)
        part: dict[str, object] = {
            "images": len(items),
            "boxes": boxes,
            "real_images": sum(i.origin == "real" for i in items),
            "synthetic_images": sum(i.origin != "real" for i in items),
            "real_sessions": len({i.session for i in items if i.origin == "real"}),
            "labels_fixed": sum(len(i.fixes) for i in items),
        }
        if split == "train" and args.squeezed_copies > 0:
            copies, copied_boxes = write_squeezed_copies(args.out, items, args.squeezed_copies, args.seed)
            part.update(squeezed_copies=copies, images=len(items) + copies, boxes=boxes + copied_boxes)
        summary[split] = part
    summary["dropped_augmented_copies"] = len(plan.dropped)
    summary["val_sessions"] = sorted({i.session for i in plan.val if i.origin == "real"})
    summary["args"] = {k: (str(v) if isinstance(v, Path) else [str(x) for x in v] if isinstance(v, list) else v)
                       for k, v in vars(args).items()}
    (args.out / "data.yaml").write_text(data_yaml(args.out, splits))
    (args.out / "build.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        summary = build(args)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for split in SPLITS:
        s = summary.get(split)
        if isinstance(s, dict):
            squeezed = f", {s['squeezed_copies']} squeezed copies" if s.get("squeezed_copies") else ""
            print(f"{split:5}: {s['images']} images ({s['real_images']} real from {s['real_sessions']} sessions, "
                  f"{s['synthetic_images']} synthetic{squeezed}), {s['boxes']} boxes")
    print(f"left out: {summary['dropped_augmented_copies']} augmented copies of val/test sessions")
    print(f"data.yaml: {args.out.resolve() / 'data.yaml'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
