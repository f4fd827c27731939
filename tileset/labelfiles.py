"""YOLO label files of a photo folder: read, write atomically with history, review state.

A labeled folder is either flat (`DIR/NAME.jpg`, labels in `DIR/labels/`) or in the
ultralytics layout (`DIR/images/NAME.jpg`, labels in `DIR/labels/`).  Per photo:

- `labels/NAME.txt`        YOLO boxes, canonical class ids (`tileset.classes`), normalized cx cy w h.
- `labels/NAME.meta.json`  what made the labels (`origin`: prelabel | human | import), the model,
                           one confidence per box (review order: least sure first), `reviewed`
                           (a person said "looks right"), `labels_sha1` (the label file it describes).
- `labels/.history/NAME.<n>.txt`  every previous version of the label file, oldest first.
- `labels/.locks/NAME.lock`  held while a save runs, so two programs saving one photo take turns.

Every write goes to a temporary file in the same folder, is fsynced, then `os.replace`d over the
target, so a crash at any point leaves either the old or the new file, never a torn one.  The label
file is written before its metadata; metadata whose `labels_sha1` does not match the label file
(a save cut short in between, or an edit outside the app) is read as a person's unreviewed labels
with unknown confidences, so `prelabel` never replaces them.  A label file without metadata was
made outside these tools (ours write the metadata first for a new photo): it counts as a person's,
checked.  Temporary files of a killed writer are removed by the next save or folder listing.

Every load carries the photo's revision (a hash of its label file and metadata as read): an edit
made from what a page showed passes that revision, and a save finding another revision on disk
(another tab or program saved in between) is refused with `StaleLabels`, which names what changed.

Two photos whose names differ only in the extension (`hand.jpg`, `hand.png`) would share one label
file (ultralytics too maps `images/NAME.*` to `labels/NAME.txt`): a folder holding them is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Self

from tileset.atomic_files import atomic_write_bytes, atomic_write_text, remove_stale_temp_files
from tileset.classes import CLASS_NAMES

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
HISTORY_DIR = ".history"
LOCKS_DIR = ".locks"
ORIGINS = ("prelabel", "human", "import")
UNKNOWN_CONFIDENCE = 0.0  # a box whose confidence was lost is shown and ordered as the least sure
LOCK_TIMEOUT_S = 30.0  # another program saving the same photo for longer than this is an error


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
    labels_sha1: str = ""  # of the label file this metadata was written with ("" in older files)
    ids: tuple[int, ...] = ()  # the number a person sees for each box, kept across edits ("" = reading order)

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise LabelFileError(f"origin {self.origin!r} is not one of {ORIGINS}")

    @property
    def least_confidence(self) -> float:
        """The review key: a photo's least sure box (1.0 for none)."""
        return min(self.confidences, default=1.0)

    def to_json(self) -> dict[str, Any]:
        data = {"origin": self.origin, "reviewed": self.reviewed, "model": self.model,
                "confidences": [round(c, 6) for c in self.confidences]}
        if self.labels_sha1:
            data["labels_sha1"] = self.labels_sha1
        if self.ids:
            data["ids"] = list(self.ids)
        return data

    @staticmethod
    def from_json(data: Any) -> LabelMeta:
        """Strict: every field of the type it must have, or a LabelFileError saying which is wrong."""
        if not isinstance(data, dict):
            raise LabelFileError(f"expected a JSON object, not {_shown(data)}")
        origin = data.get("origin", "human")
        if origin not in ORIGINS:
            raise LabelFileError(f'"origin" must be one of {", ".join(ORIGINS)}, not {_shown(origin)}')
        reviewed = data.get("reviewed", False)
        if not isinstance(reviewed, bool):
            raise LabelFileError(f'"reviewed" must be true or false, not {_shown(reviewed)}')
        model = data.get("model", "")
        if not isinstance(model, str):
            raise LabelFileError(f'"model" must be text, not {_shown(model)}')
        sha1 = data.get("labels_sha1", "")
        if not isinstance(sha1, str):
            raise LabelFileError(f'"labels_sha1" must be text, not {_shown(sha1)}')
        ids = data.get("ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) and i > 0 for i in ids) \
                or len(set(ids)) != len(ids):
            raise LabelFileError(f'"ids" must be a list of distinct whole numbers from 1, not {_shown(ids)}')
        return LabelMeta(origin, reviewed, model, _confidences(data.get("confidences", [])), sha1, tuple(ids))


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, (str, int, float, bool, type(None))) \
        else f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _confidences(value: Any) -> tuple[float, ...]:
    if not isinstance(value, list):
        raise LabelFileError(f'"confidences" must be a list of numbers 0 to 1, not {_shown(value)}')
    for number, item in enumerate(value, start=1):
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not 0 <= item <= 1:
            raise LabelFileError(f'"confidences" item {number} must be a number 0 to 1, not {_shown(item)}')
    return tuple(float(c) for c in value)


@dataclass(frozen=True)
class PhotoLabels:
    """A photo's boxes and their metadata, the unit the review page edits."""

    boxes: tuple[LabelBox, ...] = ()
    meta: LabelMeta = field(default_factory=LabelMeta)
    revision: str = field(default="", compare=False)  # of the files these were loaded from; "" when made in memory

    def confidences(self) -> tuple[float, ...]:
        """One confidence per box: as kept; 1.0 for a person's boxes kept without any; else unknown (0.0)."""
        kept = self.meta.confidences
        if len(kept) == len(self.boxes):
            return kept
        sure = not kept and self.meta.origin != "prelabel"
        return (1.0 if sure else UNKNOWN_CONFIDENCE,) * len(self.boxes)

    @property
    def least_confidence(self) -> float:
        """The review key: the least sure box (1.0 for none)."""
        return min(self.confidences(), default=1.0)

    def ids(self) -> tuple[int, ...]:
        """The number shown for each box: as kept, else 1, 2, ... in reading order (rows, then left to right)."""
        kept = self.meta.ids
        if len(kept) == len(self.boxes):
            return kept
        numbers = {index: number for number, index in enumerate(reading_order(self.boxes), start=1)}
        return tuple(numbers[i] for i in range(len(self.boxes)))

    def indices_of(self, numbers: Iterable[int]) -> tuple[int, ...]:
        """Box indices of the numbers a person sees (`ids`); LabelFileError naming a number no box has."""
        numbers = list(numbers)
        index_of = {number: index for index, number in enumerate(self.ids())}
        missing = [n for n in numbers if n not in index_of]
        if missing:
            raise LabelFileError(f"no box numbered {', '.join(map(str, missing))} on this photo")
        return tuple(index_of[n] for n in numbers)

    def _edited(self, boxes: tuple[LabelBox, ...], confidences: tuple[float, ...],
                ids: tuple[int, ...]) -> PhotoLabels:
        """A person's edit: edited boxes count as sure (1.0); the photo waits for "looks right" again."""
        return PhotoLabels(boxes, replace(self.meta, origin="human", reviewed=False, confidences=confidences, ids=ids))

    def with_class(self, index: int, class_id: int) -> PhotoLabels:
        return self.with_classes((index,), class_id)

    def with_classes(self, indices: Iterable[int], class_id: int) -> PhotoLabels:
        """Every box of `indices` given one face (e.g. a row of flowers)."""
        boxes, confidences = list(self.boxes), list(self.confidences())
        for index in set(indices):
            boxes[index] = boxes[index].with_class(class_id)
            confidences[index] = 1.0
        return self._edited(tuple(boxes), tuple(confidences), self.ids())

    def without(self, index: int) -> PhotoLabels:
        return self.without_all((index,))

    def without_all(self, indices: Iterable[int]) -> PhotoLabels:
        drop = set(indices)
        keep = [i for i in range(len(self.boxes)) if i not in drop]
        confidences = self.confidences()
        ids = self.ids()
        return self._edited(tuple(self.boxes[i] for i in keep), tuple(confidences[i] for i in keep),
                            tuple(ids[i] for i in keep))

    def below(self, threshold: float) -> tuple[int, ...]:
        """Indices of the boxes less sure than `threshold`."""
        return tuple(i for i, c in enumerate(self.confidences()) if c < threshold)

    def with_box(self, index: int, box: LabelBox) -> PhotoLabels:
        """Box `index` redrawn (its number kept); a person drew it, so it counts as sure."""
        boxes, confidences = list(self.boxes), list(self.confidences())
        boxes[index], confidences[index] = box, 1.0
        return self._edited(tuple(boxes), tuple(confidences), self.ids())

    def with_added(self, box: LabelBox) -> PhotoLabels:
        ids = self.ids()
        return self._edited((*self.boxes, box), (*self.confidences(), 1.0), (*ids, max(ids, default=0) + 1))

    def marked_reviewed(self) -> PhotoLabels:
        """The explicit "looks right": the only way a photo becomes reviewed."""
        meta = replace(self.meta, reviewed=True, confidences=self.confidences(), ids=self.ids())
        return PhotoLabels(self.boxes, meta)

    @property
    def made_by_person(self) -> bool:
        """Boxes a person made, edited, imported or checked: pre-labeling must not replace them."""
        return self.meta.reviewed or self.meta.origin != "prelabel"


def reading_order(boxes: Sequence[LabelBox]) -> list[int]:
    """Box indices in reading order: rows top to bottom (a row: centres within half the median box height),
    left to right in each row."""
    if not boxes:
        return []
    heights = sorted(b.h for b in boxes)
    tolerance = heights[len(heights) // 2] / 2
    rows: list[list[int]] = []
    for i in sorted(range(len(boxes)), key=lambda j: boxes[j].cy):
        if rows and abs(boxes[i].cy - boxes[rows[-1][0]].cy) <= tolerance:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda j: boxes[j].cx)]


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


def history_paths(label_path: Path) -> list[Path]:
    """Previous versions of a label file, oldest first."""
    folder = Path(label_path).parent / HISTORY_DIR
    stem = Path(label_path).stem
    found = []
    try:
        names = [p.name for p in folder.iterdir()]
    except OSError:
        return []
    for name in names:  # not glob: a photo name may hold glob characters ('[1]')
        if name.startswith(stem + ".") and name.endswith(".txt"):
            number = name[len(stem) + 1 : -len(".txt")]
            if number.isdigit():
                found.append((int(number), folder / name))
    return [p for _, p in sorted(found)]


def write_labels(label_path: Path, boxes: Iterable[LabelBox], keep_history: bool = True) -> None:
    """Atomically replace a label file, first keeping its current version in `.history/`."""
    label_path = Path(label_path)
    text = format_label_text(boxes)
    if keep_history and label_path.exists():
        previous = label_path.read_bytes().decode("utf-8", "replace")
        if previous == text:
            return
        existing = history_paths(label_path)
        next_number = int(existing[-1].name[len(label_path.stem) + 1 : -4]) + 1 if existing else 1
        atomic_write_text(label_path.parent / HISTORY_DIR / f"{label_path.stem}.{next_number}.txt", previous)
    atomic_write_text(label_path, text)


def text_sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


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

    @property
    def lock_path(self) -> Path:
        return self.labels_dir / LOCKS_DIR / f"{self.name}.lock"

    def load(self) -> PhotoLabels:
        """The boxes and their metadata; bad metadata is read as unreviewed, confidences unknown.

        A label file that cannot be read raises LabelFileError; `load_checked` also says what
        was wrong with the metadata.
        """
        return self.load_checked()[0]

    def load_checked(self) -> tuple[PhotoLabels, tuple[str, ...]]:
        """The labels as `load` gives them (with the revision of the files read), and one line per problem
        found in the metadata."""
        try:
            data = self.label_path.read_bytes()
            text: str | None = data.decode("utf-8")
        except FileNotFoundError:
            data, text = None, None
        except (OSError, UnicodeDecodeError) as error:
            raise LabelFileError(f"cannot read {self.label_path}: {error}") from None
        meta_data: bytes | None = None
        meta_error: LabelFileError | None = None
        try:
            meta_data = self.meta_path.read_bytes()
        except FileNotFoundError:
            pass
        except OSError as error:
            meta_error = LabelFileError(f"cannot read {self.meta_path}: {str(error)[:200]}")
        labels, problems = self._labels_of(text, meta_data, meta_error)
        return replace(labels, revision=revision_of(data, meta_data)), problems

    def _labels_of(self, text: str | None, meta_data: bytes | None,
                   meta_error: LabelFileError | None) -> tuple[PhotoLabels, tuple[str, ...]]:
        boxes = parse_label_text(text, str(self.label_path)) if text is not None else ()
        unknown = (UNKNOWN_CONFIDENCE,) * len(boxes)
        if text is not None and meta_data is None and meta_error is None:
            return PhotoLabels(boxes, LabelMeta("human", True)), ()  # labels made elsewhere: a person's, checked
        try:
            if meta_error is not None:
                raise meta_error
            meta = parse_meta(meta_data, self.meta_path) if meta_data is not None else LabelMeta()
        except LabelFileError as error:
            problem = f"{error}; read as a person's labels, not reviewed, confidences unknown"
            return PhotoLabels(boxes, LabelMeta("human", False, "", unknown)), (problem,)
        if text is not None and meta.labels_sha1 and meta.labels_sha1 != text_sha1(text):
            problem = (f"{self.label_path.name} changed after {self.meta_path.name} was written (a save cut short, "
                       "or an edit outside this program): read as a person's labels, not reviewed")
            return PhotoLabels(boxes, LabelMeta("human", False, meta.model, unknown)), (problem,)
        if meta.confidences and len(meta.confidences) != len(boxes):
            problem = (f"{self.meta_path.name} has {len(meta.confidences)} confidences for {len(boxes)} boxes: "
                       "confidences unknown")
            return PhotoLabels(boxes, replace(meta, confidences=unknown)), (problem,)
        return PhotoLabels(boxes, meta), ()

    def changed_at(self) -> float | None:
        """When the label file (or its metadata) was last written, as a Unix time; None when neither exists."""
        times = []
        for path in (self.label_path, self.meta_path):
            with contextlib.suppress(OSError):
                times.append(path.stat().st_mtime)
        return max(times, default=None)

    def _check_revision(self, current: PhotoLabels, revision: str | None) -> None:
        if revision is not None and current.revision != revision:
            raise StaleLabels(self, current, self.changed_at())

    def lock(self) -> Any:
        """The lock every save of this photo holds (context manager); LabelFileError after LOCK_TIMEOUT_S."""
        from filelock import FileLock

        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        return _TimedLock(FileLock(self.lock_path, timeout=LOCK_TIMEOUT_S), self)

    def save(self, labels: PhotoLabels) -> None:
        """Boxes first, then metadata naming them (`labels_sha1`); another save of the photo waits its turn."""
        with self.lock():
            self._save_locked(labels)

    def update(self, change: Callable[[PhotoLabels], PhotoLabels], revision: str | None = None) -> PhotoLabels:
        """Load, change and save in one turn of the lock: a concurrent save is never overwritten unseen.

        With `revision` (what the caller's page showed), StaleLabels when the files hold another one:
        nothing is written, and the error carries the labels as they are now.
        """
        with self.lock():
            current = self.load()
            self._check_revision(current, revision)
            changed = change(current)
            self._save_locked(changed)
        return changed

    def _save_locked(self, labels: PhotoLabels) -> None:
        if labels.meta.confidences and len(labels.meta.confidences) != len(labels.boxes):
            raise LabelFileError(
                f"{self.name}: {len(labels.boxes)} boxes but {len(labels.meta.confidences)} confidences")
        if labels.meta.ids and len(labels.meta.ids) != len(labels.boxes):
            raise LabelFileError(f"{self.name}: {len(labels.boxes)} boxes but {len(labels.meta.ids)} ids")
        for folder in (self.labels_dir, self.labels_dir / HISTORY_DIR):
            remove_stale_temp_files(folder)
        text = format_label_text(labels.boxes)
        meta_text = json.dumps(replace(labels.meta, labels_sha1=text_sha1(text)).to_json(), indent=1) + "\n"
        self._keep_previous(text)
        if not self.meta_path.exists():  # our label files never stand without metadata, even after a crash
            atomic_write_text(self.meta_path, meta_text)
        atomic_write_text(self.label_path, text)
        atomic_write_text(self.meta_path, meta_text)

    def _keep_previous(self, text: str) -> None:
        """The label file about to be replaced (and its metadata) as the next `.history/NAME.<n>.*`."""
        try:
            previous = self.label_path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return
        if previous == text:
            return
        existing = history_paths(self.label_path)
        number = int(existing[-1].name[len(self.name) + 1 : -4]) + 1 if existing else 1
        folder = self.labels_dir / HISTORY_DIR
        if self.meta_path.exists():  # first, so a history label file always finds its metadata
            atomic_write_bytes(folder / f"{self.name}.{number}.meta.json", self.meta_path.read_bytes())
        atomic_write_text(folder / f"{self.name}.{number}.txt", previous)

    def undo(self, revision: str | None = None) -> PhotoLabels:
        """Put back the previous version from the history (LabelFileError when there is none).

        The version undone is not lost: it moves to `.history/NAME.undone.<n>.txt` (and `.meta.json`).
        The photo is not reviewed after an undo.  With `revision`, StaleLabels (nothing undone) when the
        files are no longer what the caller saw: an undo must not take back another tab's change unseen.
        """
        with self.lock():
            if revision is not None:
                self._check_revision(self.load(), revision)
            existing = history_paths(self.label_path)
            if not existing:
                raise LabelFileError(f"{self.image.name}: nothing to undo")
            last = existing[-1]
            last_meta = last.with_name(last.name[: -len(".txt")] + ".meta.json")
            boxes = parse_label_text(last.read_bytes().decode("utf-8", "replace"), str(last))
            try:
                meta = read_meta(last_meta) if last_meta.exists() else LabelMeta()
            except LabelFileError:
                meta = LabelMeta()
            if len(meta.confidences) != len(boxes):
                meta = replace(meta, origin="human", confidences=(UNKNOWN_CONFIDENCE,) * len(boxes))
            folder = self.labels_dir / HISTORY_DIR
            undone = sum(1 for p in folder.iterdir()
                         if p.name.startswith(f"{self.name}.undone.") and p.name.endswith(".txt")) + 1
            if self.label_path.exists():
                os.replace(self.label_path, folder / f"{self.name}.undone.{undone}.txt")
            if self.meta_path.exists():
                os.replace(self.meta_path, folder / f"{self.name}.undone.{undone}.meta.json")
            restored = PhotoLabels(boxes, replace(meta, reviewed=False))
            atomic_write_text(self.label_path, format_label_text(boxes))
            atomic_write_text(self.meta_path, json.dumps(replace(restored.meta, labels_sha1=text_sha1(
                format_label_text(boxes))).to_json(), indent=1) + "\n")
            last.unlink()
            last_meta.unlink(missing_ok=True)
        return restored


class StaleLabels(LabelFileError):
    """An edit made from labels that are no longer on disk: refused; `current` is what the files hold now."""

    def __init__(self, photo: Photo, current: PhotoLabels, changed_at: float | None) -> None:
        when = time.strftime(" at %H:%M:%S", time.localtime(changed_at)) if changed_at is not None else ""
        super().__init__(f"the labels of {photo.image.name} were changed by another tab or program{when}; "
                         "nothing was changed here: look at them again")
        self.photo, self.current, self.changed_at = photo, current, changed_at


def revision_of(label_data: bytes | None, meta_data: bytes | None) -> str:
    """A photo's revision: a hash of its label file and metadata as they are on disk (either may be missing)."""
    digest = hashlib.sha1()
    for data in (label_data, meta_data):
        digest.update(b"-" if data is None else b"+%d:" % len(data) + data)
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class LabelChange:
    """One difference between two versions of a photo's labels, by the box number a person sees."""

    kind: Literal["deleted", "added", "face", "redrawn", "reviewed", "unreviewed"]
    number: int = 0
    face_before: str = ""
    face_after: str = ""


def label_changes(before: PhotoLabels, after: PhotoLabels) -> tuple[LabelChange, ...]:
    """What changed from `before` to `after`: boxes deleted, added, given another face or redrawn (matched
    by their number), then the reviewed mark; in box number order."""
    old = dict(zip(before.ids(), before.boxes, strict=False))
    new = dict(zip(after.ids(), after.boxes, strict=False))
    changes = []
    for number in sorted(old.keys() | new.keys()):
        was, now = old.get(number), new.get(number)
        if now is None:
            assert was is not None
            changes.append(LabelChange("deleted", number, was.class_name))
        elif was is None:
            changes.append(LabelChange("added", number, "", now.class_name))
        elif was.class_id != now.class_id:
            changes.append(LabelChange("face", number, was.class_name, now.class_name))
        elif was != now:
            changes.append(LabelChange("redrawn", number, was.class_name, now.class_name))
    if before.meta.reviewed != after.meta.reviewed:
        changes.append(LabelChange("reviewed" if after.meta.reviewed else "unreviewed"))
    return tuple(changes)


class _TimedLock:
    """A FileLock whose timeout is a LabelFileError naming the photo."""

    def __init__(self, lock: Any, photo: Photo) -> None:
        self._lock, self._photo = lock, photo

    def __enter__(self) -> Self:
        from filelock import Timeout

        try:
            self._lock.acquire()
        except Timeout:
            raise LabelFileError(f"the labels of {self._photo.image.name} are being saved by another program "
                                 f"(lock {self._photo.lock_path} held for {LOCK_TIMEOUT_S:.0f} s); try again") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def read_meta(path: Path) -> LabelMeta:
    """A meta.json file, strictly; a missing file is LabelMeta(); anything wrong is a LabelFileError."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return LabelMeta()
    except OSError as error:
        raise LabelFileError(f"cannot read {path}: {str(error)[:200]}") from None
    return parse_meta(raw, path)


def parse_meta(raw: bytes, path: Path) -> LabelMeta:
    """The bytes of a meta.json file, strictly; anything wrong is a LabelFileError naming `path`."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise LabelFileError(f"cannot read {path}: {str(error)[:200]}") from None
    try:
        return LabelMeta.from_json(data)
    except LabelFileError as error:
        raise LabelFileError(f"{path}: {error}") from None


def images_dir(folder: Path) -> Path:
    """Where a labeled folder keeps its photos: `folder/images/` when present, else `folder`."""
    folder = Path(folder)
    return folder / "images" if (folder / "images").is_dir() else folder


def list_photos(folder: Path) -> list[Photo]:
    """The photos of a labeled folder, sorted by name; a clear error when there are none.

    Two photos with one name but different extensions are refused: they would share a label file.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelFileError(f"{folder} is not a folder")
    source = images_dir(folder)
    images = sorted(p for p in source.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise LabelFileError(f"no photos ({', '.join(IMAGE_SUFFIXES)}) in {source}")
    by_stem: dict[str, Path] = {}
    for image in images:
        if (other := by_stem.setdefault(image.stem, image)) is not image:
            raise LabelFileError(
                f"{other.name} and {image.name} in {source} would share one label file "
                f"(labels/{image.stem}.txt; training reads labels by name without the extension): "
                "rename one of them")
    labels_dir = folder / "labels"
    for leftovers in (labels_dir, labels_dir / HISTORY_DIR):
        remove_stale_temp_files(leftovers)
    return [Photo(image, labels_dir) for image in images]


def review_order(photos: Sequence[Photo]) -> list[Photo]:
    """Photos to look at first: not yet reviewed before reviewed, then least sure box first, then name.

    A photo whose label files cannot be read comes first of all, so its problem is seen.
    """

    def key(photo: Photo) -> tuple[bool, float, str]:
        try:
            labels = photo.load()
        except LabelFileError:
            return (False, -1.0, photo.name)
        return (labels.meta.reviewed, labels.least_confidence, photo.name)

    return sorted(photos, key=key)
