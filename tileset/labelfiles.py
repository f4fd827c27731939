"""YOLO label files of a photo folder: read, write atomically with history, review state.

A labeled folder is either flat (`DIR/NAME.jpg`, labels in `DIR/labels/`) or in the
ultralytics layout (`DIR/images/NAME.jpg`, labels in `DIR/labels/`).  Per photo:

- `labels/NAME.txt`        YOLO boxes, canonical class ids (`tileset.classes`), normalized cx cy w h.
- `labels/NAME.meta.json`  what made the labels (`origin`: prelabel | human | import), the model,
                           one confidence per box (review order: least sure first), `reviewed`.
- `labels/.history/NAME.<n>.txt`  every previous version of the label file, oldest first.

Every write goes to a temporary file in the same folder, is fsynced, then `os.replace`d over the
target, so a crash at any point leaves either the old or the new file, never a torn one.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tileset.classes import CLASS_NAMES

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
HISTORY_DIR = ".history"
ORIGINS = ("prelabel", "human", "import")


class LabelFileError(ValueError):
    """A label file or labeled folder that cannot be used, with a message a user can act on."""


@dataclass(frozen=True)
class LabelBox:
    """One YOLO box: canonical class id and normalized centre/size (0..1 of image width/height)."""

    class_id: int
    cx: float
    cy: float
    w: float
    h: float

    def __post_init__(self) -> None:
        if not 0 <= self.class_id < len(CLASS_NAMES):
            raise LabelFileError(f"class id {self.class_id} is outside 0..{len(CLASS_NAMES) - 1}")
        values = (self.cx, self.cy, self.w, self.h)
        if not all(math.isfinite(v) for v in values) or self.w <= 0 or self.h <= 0:
            raise LabelFileError(f"box {values} must have finite coordinates and positive size")

    @property
    def class_name(self) -> str:
        return CLASS_NAMES[self.class_id]

    def xyxy(self, width: int, height: int) -> tuple[float, float, float, float]:
        """Corners in pixels of an image of `width` x `height`."""
        return (
            (self.cx - self.w / 2) * width,
            (self.cy - self.h / 2) * height,
            (self.cx + self.w / 2) * width,
            (self.cy + self.h / 2) * height,
        )

    @staticmethod
    def from_xyxy(class_id: int, xyxy: Sequence[float], width: int, height: int) -> LabelBox:
        x1, y1, x2, y2 = (float(v) for v in xyxy)
        if x2 <= x1 or y2 <= y1:
            raise LabelFileError(f"box {list(xyxy)} needs x1 < x2 and y1 < y2")
        return LabelBox(class_id, (x1 + x2) / 2 / width, (y1 + y2) / 2 / height, (x2 - x1) / width, (y2 - y1) / height)

    def with_class(self, class_id: int) -> LabelBox:
        return replace(self, class_id=class_id)

    def to_line(self) -> str:
        # repr-exact floats: a save/load cycle never moves a box.
        return f"{self.class_id} {self.cx!r} {self.cy!r} {self.w!r} {self.h!r}"


@dataclass(frozen=True)
class LabelMeta:
    """What made a label file and how sure it was; `confidences` run parallel to the boxes."""

    origin: str = "human"
    reviewed: bool = False
    model: str = ""
    confidences: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise LabelFileError(f"origin {self.origin!r} is not one of {ORIGINS}")

    @property
    def least_confidence(self) -> float:
        """The review key: a photo's least sure box (1.0 for none)."""
        return min(self.confidences, default=1.0)

    def to_json(self) -> dict[str, Any]:
        return {"origin": self.origin, "reviewed": self.reviewed, "model": self.model,
                "confidences": [round(c, 6) for c in self.confidences]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> LabelMeta:
        return LabelMeta(
            origin=str(data.get("origin", "human")),
            reviewed=bool(data.get("reviewed", False)),
            model=str(data.get("model", "")),
            confidences=tuple(float(c) for c in data.get("confidences", ())),
        )


@dataclass(frozen=True)
class PhotoLabels:
    """A photo's boxes and their metadata, the unit the review page edits."""

    boxes: tuple[LabelBox, ...] = ()
    meta: LabelMeta = field(default_factory=LabelMeta)

    def confidences(self) -> tuple[float, ...]:
        """One confidence per box (1.0 where none was kept)."""
        kept = self.meta.confidences
        return kept if len(kept) == len(self.boxes) else (1.0,) * len(self.boxes)

    def _edited(self, boxes: tuple[LabelBox, ...], confidences: tuple[float, ...]) -> PhotoLabels:
        """A person's edit: the file becomes reviewed, edited boxes count as sure (1.0)."""
        return PhotoLabels(boxes, replace(self.meta, origin="human", reviewed=True, confidences=confidences))

    def with_class(self, index: int, class_id: int) -> PhotoLabels:
        boxes, confidences = list(self.boxes), list(self.confidences())
        boxes[index] = boxes[index].with_class(class_id)
        confidences[index] = 1.0
        return self._edited(tuple(boxes), tuple(confidences))

    def without(self, index: int) -> PhotoLabels:
        keep = [i for i in range(len(self.boxes)) if i != index]
        confidences = self.confidences()
        return self._edited(tuple(self.boxes[i] for i in keep), tuple(confidences[i] for i in keep))

    def with_added(self, box: LabelBox) -> PhotoLabels:
        return self._edited(self.boxes + (box,), self.confidences() + (1.0,))

    def marked_reviewed(self) -> PhotoLabels:
        return self._edited(self.boxes, self.confidences())


def parse_label_text(text: str, source: str = "label file") -> tuple[LabelBox, ...]:
    boxes = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 5:
            raise LabelFileError(f"{source} line {number}: expected 'class cx cy w h', got {line.strip()!r}")
        try:
            class_id = int(parts[0])
            cx, cy, w, h = (float(p) for p in parts[1:])
        except ValueError:
            raise LabelFileError(f"{source} line {number}: not numbers: {line.strip()!r}") from None
        try:
            boxes.append(LabelBox(class_id, cx, cy, w, h))
        except LabelFileError as error:
            raise LabelFileError(f"{source} line {number}: {error}") from None
    return tuple(boxes)


def format_label_text(boxes: Iterable[LabelBox]) -> str:
    return "".join(box.to_line() + "\n" for box in boxes)


def read_labels(path: Path) -> tuple[LabelBox, ...]:
    """Boxes of a YOLO label file; a missing file is a photo with no boxes yet."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError) as error:
        raise LabelFileError(f"cannot read {path}: {error}") from None
    return parse_label_text(text, str(path))


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old or the new content, never a mix."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old or the new content, never a mix."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not supported on every platform; the file itself is already synced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def history_paths(label_path: Path) -> list[Path]:
    """Previous versions of a label file, oldest first."""
    folder = label_path.parent / HISTORY_DIR
    stem = label_path.stem
    found = []
    for candidate in folder.glob(f"{stem}.*.txt"):
        number = candidate.name[len(stem) + 1 : -len(".txt")]
        if number.isdigit():
            found.append((int(number), candidate))
    return [p for _, p in sorted(found)]


def write_labels(label_path: Path, boxes: Iterable[LabelBox], keep_history: bool = True) -> None:
    """Atomically replace a label file, first keeping its current version in `.history/`."""
    label_path = Path(label_path)
    text = format_label_text(boxes)
    if keep_history and label_path.exists():
        previous = label_path.read_text(encoding="utf-8")
        if previous == text:
            return
        existing = history_paths(label_path)
        next_number = int(existing[-1].name[len(label_path.stem) + 1 : -4]) + 1 if existing else 1
        atomic_write_text(label_path.parent / HISTORY_DIR / f"{label_path.stem}.{next_number}.txt", previous)
    atomic_write_text(label_path, text)


@dataclass(frozen=True)
class Photo:
    """One photo of a labeled folder and where its label files live."""

    image: Path
    labels_dir: Path

    @property
    def name(self) -> str:
        return self.image.stem

    @property
    def label_path(self) -> Path:
        return self.labels_dir / f"{self.name}.txt"

    @property
    def meta_path(self) -> Path:
        return self.labels_dir / f"{self.name}.meta.json"

    def load(self) -> PhotoLabels:
        return PhotoLabels(read_labels(self.label_path), read_meta(self.meta_path))

    def save(self, labels: PhotoLabels) -> None:
        """Boxes first, then metadata: a crash in between leaves valid boxes with stale confidences."""
        if labels.meta.confidences and len(labels.meta.confidences) != len(labels.boxes):
            raise LabelFileError(f"{self.name}: {len(labels.boxes)} boxes but {len(labels.meta.confidences)} confidences")
        write_labels(self.label_path, labels.boxes)
        atomic_write_text(self.meta_path, json.dumps(labels.meta.to_json(), indent=1) + "\n")


def read_meta(path: Path) -> LabelMeta:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return LabelMeta()
    except (OSError, ValueError) as error:
        raise LabelFileError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict):
        raise LabelFileError(f"{path}: expected a JSON object")
    return LabelMeta.from_json(data)


def images_dir(folder: Path) -> Path:
    """Where a labeled folder keeps its photos: `folder/images/` when present, else `folder`."""
    folder = Path(folder)
    return folder / "images" if (folder / "images").is_dir() else folder


def list_photos(folder: Path) -> list[Photo]:
    """The photos of a labeled folder, sorted by name; a clear error when there are none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelFileError(f"{folder} is not a folder")
    source = images_dir(folder)
    images = sorted(p for p in source.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise LabelFileError(f"no photos ({', '.join(IMAGE_SUFFIXES)}) in {source}")
    return [Photo(image, folder / "labels") for image in images]


def review_order(photos: Sequence[Photo]) -> list[Photo]:
    """Photos to look at first: not yet reviewed before reviewed, then least sure box first, then name."""

    def key(photo: Photo) -> tuple[bool, float, str]:
        meta = read_meta(photo.meta_path)
        return (meta.reviewed, meta.least_confidence, photo.name)

    return sorted(photos, key=key)
