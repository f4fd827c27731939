"""Label Studio round trip: tasks with our pre-labels as predictions out, its exports back in.

Label Studio's YOLO export numbers classes alphabetically unless a `<Label>` carries a
`category` attribute; `labeling_config()` pins every class to its canonical id that way, so
its `classes.txt` keeps our order.  Imports still remap by class *name*, so an export made
with any other config is read correctly too.

A task is matched to a photo by more than its file name: by the photo's content hash (our tasks
carry `mcr_sha1`; a YOLO export that holds its images is hashed), else by the folders of its
image path (`?d=twoA/images/hand.jpg` is not `twoB/hand.jpg`).  A task whose hash or folders
belong to another photo is not imported; two tasks for one photo are ambiguous and neither is
imported.  A match by file name alone (an uploaded image, a YOLO export without images) replaces
only labels no person made, and is never marked reviewed.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.sax.saxutils import quoteattr

from tileset.classes import CLASS_ID, CLASS_NAMES, NAMES_ZH
from tileset.labelfiles import (
    IMAGE_SUFFIXES,
    LabelBox,
    LabelFileError,
    LabelMeta,
    Photo,
    PhotoLabels,
    list_photos,
    parse_label_text,
)

FROM_NAME = "label"
TO_NAME = "image"
# Label Studio prefixes uploaded files with 8 hex digits and a dash: "3f2a9c1e-IMG_0001.jpg".
UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-")


def labeling_config() -> str:
    """The labeling interface XML: our 43 classes in canonical order, ids pinned by `category`."""
    labels = "\n".join(
        f'    <Label value={quoteattr(name)} category="{i}" hint={quoteattr(NAMES_ZH[name])}/>'
        for i, name in enumerate(CLASS_NAMES)
    )
    return (
        "<View>\n"
        f'  <Image name="{TO_NAME}" value="$image" zoom="true"/>\n'
        f'  <RectangleLabels name="{FROM_NAME}" toName="{TO_NAME}">\n'
        f"{labels}\n"
        "  </RectangleLabels>\n"
        "</View>\n"
    )


def image_size(path: Path) -> tuple[int, int]:
    """(width, height) as displayed, i.e. after EXIF orientation, without decoding the pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            width, height = image.size
            orientation = image.getexif().get(0x0112, 1)
    except (OSError, UnidentifiedImageError) as error:
        raise LabelFileError(f"cannot read image {path}: {error}") from None
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def box_to_result(box: LabelBox, index: int, photo_name: str, width: int, height: int,
                  score: float | None) -> dict[str, Any]:
    value = {
        "x": (box.cx - box.w / 2) * 100, "y": (box.cy - box.h / 2) * 100,
        "width": box.w * 100, "height": box.h * 100, "rotation": 0,
        "rectanglelabels": [box.class_name],
    }
    result: dict[str, Any] = {
        "id": f"{photo_name}-{index}", "type": "rectanglelabels", "from_name": FROM_NAME, "to_name": TO_NAME,
        "original_width": width, "original_height": height, "image_rotation": 0, "value": value,
    }
    if score is not None:
        result["score"] = score
    return result


def photo_task(photo: Photo, url_prefix: str, root: Path) -> dict[str, Any]:
    labels = photo.load()
    width, height = image_size(photo.image)
    confidences = labels.meta.confidences or (None,) * len(labels.boxes)
    results = [box_to_result(box, i, photo.name, width, height, conf)
               for i, (box, conf) in enumerate(zip(labels.boxes, confidences, strict=False))]
    relative = photo.image.relative_to(root).as_posix()
    task: dict[str, Any] = {"data": {"image": url_prefix + relative, "mcr_photo": photo.image.name,
                                     "mcr_path": f"{Path(root).resolve().name}/{relative}",
                                     "mcr_sha1": file_sha1(photo.image)}}
    if results:
        known = [c for c in labels.meta.confidences]
        task["predictions"] = [{
            "model_version": labels.meta.model or labels.meta.origin,
            "score": min(known) if known else 1.0,
            "result": results,
        }]
    return task


def file_sha1(path: Path) -> str:
    """The content hash a task carries to find its photo again, whatever the photo is called."""
    digest = hashlib.sha1()
    try:
        with open(path, "rb") as file:
            for chunk in iter(lambda: file.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as error:
        raise LabelFileError(f"cannot read {path}: {error}") from None
    return digest.hexdigest()


def export_tasks(folder: Path, url_prefix: str) -> list[dict[str, Any]]:
    """One Label Studio task per photo, current labels as the prediction (scored when pre-labeled)."""
    folder = Path(folder)
    return [photo_task(photo, url_prefix, folder) for photo in list_photos(folder)]


def default_url_prefix(folder: Path) -> str:
    """Local-files serving URL, for LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT set to the folder's parent."""
    return f"/data/local-files/?d={Path(folder).resolve().name}/"


@dataclass(frozen=True)
class ImportReport:
    photos: int
    boxes: int
    unmatched: tuple[str, ...]
    warnings: tuple[str, ...]
    tasks: int = 0  # tasks (JSON) or label files (YOLO) in the export
    without_annotations: int = 0  # tasks with predictions only, or every annotation cancelled
    refused: tuple[str, ...] = ()  # tasks not imported because their match was wrong or ambiguous, each with why
    by_name_only: tuple[str, ...] = ()  # photos imported on their file name alone: not marked reviewed

    def why_nothing(self) -> str:
        """Why an import brought no photo in, in words a user can act on ("" when some came in)."""
        if self.photos:
            return ""
        if not self.tasks:
            return "the export holds no tasks"
        reasons = []
        if self.without_annotations:
            reasons.append(f"{self.without_annotations} of {self.tasks} tasks have no submitted annotation "
                           "(predictions alone are not imported: open each task in Label Studio and press "
                           "Submit or Update, then export again)")
        if self.unmatched:
            reasons.append(f"{len(self.unmatched)} match no photo of the folder by file name")
        if self.refused:
            reasons.append(f"{len(self.refused)} were matched wrongly or ambiguously (see the warnings)")
        if self.warnings and not reasons:
            reasons.append("every task was skipped (see the warnings)")
        return "; ".join(reasons) or "no task held any box"


@dataclass(frozen=True)
class TaskImage:
    """What a task says of its photo: the image reference, its file name, the folders of its path (none for an
    upload), and the content hash and pixel size where the export has them."""

    reference: str
    name: str
    folders: tuple[str, ...] = ()
    sha1: str = ""
    size: tuple[int, int] | None = None

    @staticmethod
    def of(reference: str, sha1: str = "", size: tuple[int, int] | None = None, path: str = "") -> TaskImage:
        """From an image URL or path (`/data/local-files/?d=twoA/images/hand.jpg`, `/data/upload/3/1a2b3c4d-hand.jpg`,
        `s3://bucket/x/hand.jpg`); `path` (our `mcr_path`) gives the folders when present."""
        text = unquote(reference.split("?d=", 1)[1] if "?d=" in reference else reference)
        parts = [p for p in re.split(r"[/\\]", text.split("://", 1)[-1]) if p and p not in (".", "..")]
        name = parts[-1] if parts else ""
        folders: tuple[str, ...] = ()
        if path:
            folders = tuple(p for p in re.split(r"[/\\]", path) if p and p not in (".", ".."))[:-1]
        elif "?d=" in reference:  # Label Studio's local files: the path under its document root
            folders = tuple(parts[:-1])
        return TaskImage(reference, name, folders, sha1, size)


@dataclass(frozen=True)
class PhotoMatch:
    """A task's photo, or why there is none: `how` is "content", "folder", "name" (file name alone), or "" when
    `photo` is None; `problem` then says why ("" for a name no photo has)."""

    photo: Photo | None
    how: str = ""
    problem: str = ""


@dataclass
class PhotoIndex:
    """The folder's photos by name, and by content hash once a hash is asked for."""

    photos: dict[str, Photo]
    _hashes: dict[str, str] = field(default_factory=dict)

    def sha1(self, photo: Photo) -> str:
        if photo.name not in self._hashes:
            self._hashes[photo.name] = file_sha1(photo.image)
        return self._hashes[photo.name]

    def by_content(self, sha1: str) -> list[Photo]:
        return [photo for photo in self.photos.values() if self.sha1(photo) == sha1]

    def by_name(self, name: str) -> list[Photo]:
        """Photos of this file name or stem, Label Studio's upload prefix taken off or not."""
        found: dict[str, Photo] = {}
        for candidate in dict.fromkeys((name, UPLOAD_PREFIX.sub("", name))):
            stem = candidate.rsplit(".", 1)[0] if "." in candidate else candidate
            if stem in self.photos:
                found[stem] = self.photos[stem]
        return list(found.values())

    def match(self, task: TaskImage) -> PhotoMatch:
        named = self.by_name(task.name)
        if task.sha1:
            same = [p for p in named if self.sha1(p) == task.sha1] or self.by_content(task.sha1)
            if len(same) == 1:
                return PhotoMatch(same[0], "content")
            if same:
                return PhotoMatch(None, problem=f"{task.reference}: {len(same)} photos of the folder have its content "
                                                f"({', '.join(p.image.name for p in same)}): ambiguous, not imported")
            if named:
                return PhotoMatch(None, problem=f"{task.reference}: made from another photo than "
                                                f"{named[0].image.name} (the content differs), not imported")
            return PhotoMatch(None)
        if len(named) > 1:
            return PhotoMatch(None, problem=f"{task.reference}: {' and '.join(p.image.name for p in named)} both fit "
                                            "its name: ambiguous, not imported")
        if not named:
            return PhotoMatch(None)
        photo = named[0]
        if task.size is not None:
            try:
                own = image_size(photo.image)
            except LabelFileError:
                own = task.size
            if task.size not in (own, own[::-1]):  # either way round: a viewer may or may not turn it upright
                return PhotoMatch(None, problem=f"{task.reference}: its image is {task.size[0]}x{task.size[1]}, "
                                                f"{photo.image.name} is {own[0]}x{own[1]}: another photo, not imported")
        if task.folders:
            parents = photo.image.resolve().parent.parts
            if tuple(parents[-len(task.folders):]) != task.folders:
                return PhotoMatch(None, problem=f"{task.reference}: in folder {'/'.join(task.folders)}, not in "
                                                f"{photo.image.parent}: another photo of the same name, not imported")
            return PhotoMatch(photo, "folder")
        return PhotoMatch(photo, "name")


def _number(value: Any) -> float | None:
    """A finite number (Label Studio writes numbers; a hand-edited export may not)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def result_to_box(result: Any, warnings: list[str], where: str) -> LabelBox | None:
    if not isinstance(result, dict):
        warnings.append(f"{where}: skipped a result that is not an object ({type(result).__name__})")
        return None
    value = result.get("value", result)
    if result.get("type") not in ("rectanglelabels", None) or not isinstance(value, dict) \
            or "rectanglelabels" not in value:
        return None
    names = value["rectanglelabels"]
    if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str) or names[0] not in CLASS_ID:
        warnings.append(f"{where}: skipped a box labeled {str(names)[:60]!r} (not one of our class names)")
        return None
    corners = [c for k in ("x", "y", "width", "height") if (c := _number(value.get(k))) is not None]
    if len(corners) != 4:
        shown = {k: value.get(k) for k in ("x", "y", "width", "height")}
        warnings.append(f"{where}: skipped a {names[0]} box whose x, y, width, height are not all numbers: "
                        f"{str(shown)[:80]}")
        return None
    x, y, w, h = (c / 100 for c in corners)
    rotation = _number(value.get("rotation", 0) or 0)
    if rotation is None or abs(rotation) > 1e-9:
        warnings.append(f"{where}: a rotated box was read without its rotation")
    try:
        return LabelBox(CLASS_ID[names[0]], x + w / 2, y + h / 2, w, h)
    except LabelFileError as error:
        warnings.append(f"{where}: skipped a {names[0]} box: {error}")
        return None


def chosen_annotation(task: dict[str, Any]) -> list[Any] | None:
    """The newest annotation that was not cancelled (Label Studio lists them oldest first)."""
    listed = task.get("annotations", [])
    annotations = [a for a in listed if isinstance(a, dict) and not a.get("was_cancelled")] \
        if isinstance(listed, list) else []
    if not annotations:
        return None
    result = max(annotations, key=lambda a: str(a.get("updated_at") or a.get("created_at") or "")).get("result")
    return result if isinstance(result, list) else None


@dataclass(frozen=True)
class Found:
    """One task's boxes for the photo it matched, and how it was matched (`PhotoMatch.how`)."""

    photo: Photo
    boxes: tuple[LabelBox, ...]
    how: str
    reference: str


def _task_image(task: dict[str, Any], results: list[Any] | None) -> TaskImage:
    """The task's photo as its data says (JSON: under "data"; JSON-MIN: at the top), with the image size
    its boxes were drawn on."""
    given = task.get("data")
    data = given if isinstance(given, dict) else task
    text = {k: v if isinstance(v, str) else "" for k in ("image", "mcr_photo", "mcr_sha1", "mcr_path")
            for v in [data.get(k, task.get(k))]}
    size = None
    for result in results or []:
        if isinstance(result, dict):
            width, height = _number(result.get("original_width")), _number(result.get("original_height"))
            if width and height:
                size = (round(width), round(height))
                break
    sha1 = text["mcr_sha1"].lower() if re.fullmatch(r"[0-9a-fA-F]{40}", text["mcr_sha1"]) else ""
    image = TaskImage.of(text["image"] or text["mcr_photo"], sha1, size, text["mcr_path"])
    return TaskImage(image.reference, text["mcr_photo"] or image.name, image.folders, sha1, size)


def json_export_boxes(tasks: Iterable[Any], index: PhotoIndex, warnings: list[str], unmatched: list[str],
                      refused: list[str]) -> tuple[list[Found], int]:
    """Boxes of each task that matched a photo, and how many tasks had no annotation to take them from."""
    found: list[Found] = []
    without_annotations = 0
    for number, task in enumerate(tasks, start=1):
        if not isinstance(task, dict):
            warnings.append(f"task {number}: not a Label Studio task ({type(task).__name__}), skipped")
            continue
        results = task["label"] if "label" in task else chosen_annotation(task)  # JSON-MIN has "label"
        image = _task_image(task, results if isinstance(results, list) else None)
        match = index.match(image)
        if match.photo is None:
            (refused if match.problem else unmatched).append(match.problem or image.reference or
                                                              f"task {number} (no image)")
            continue
        photo = match.photo
        if not isinstance(results, list):
            without_annotations += 1
            continue
        boxes, skipped = [], 0
        for result in results:
            said = len(warnings)
            box = result_to_box(result, warnings, photo.name)
            if box is not None:
                boxes.append(box)
            elif len(warnings) > said:
                skipped += 1
        if skipped:
            warnings.append(_kept(photo.name, skipped))
            continue
        found.append(Found(photo, tuple(boxes), match.how, image.reference or photo.image.name))
    return found, without_annotations


def _kept(name: str, skipped: int) -> str:
    """A photo with boxes that could not be read keeps its labels: half an annotation would lose the rest."""
    return (f"{name}: not imported, its labels are kept: {skipped} box(es) of the export could not be read "
            "(fix them in Label Studio and export again)")


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LabelFileError(f"cannot read {path}: {error}") from None


def yolo_export_boxes(export: Path, index: PhotoIndex, warnings: list[str], unmatched: list[str],
                      refused: list[str]) -> list[Found]:
    """Boxes of each label file that matched a photo: by the content of the export's own copy of the image
    (`images/NAME.*`, as Label Studio exports it) when it is there, else by the file name alone."""
    classes_file = export / "classes.txt"
    if not classes_file.is_file():
        raise LabelFileError(f"{export} has no classes.txt: not a Label Studio YOLO export")
    names = [line.strip() for line in _read_text(classes_file).splitlines() if line.strip()]
    unknown = [n for n in names if n not in CLASS_ID]
    if unknown:
        warnings.append(f"classes.txt names not in our class table are skipped: {unknown}")
    to_canonical = {i: CLASS_ID[n] for i, n in enumerate(names) if n in CLASS_ID}
    labels_dir = export / "labels" if (export / "labels").is_dir() else export
    images = {p.stem: p for p in (export / "images").iterdir()
              if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES} if (export / "images").is_dir() else {}
    found: list[Found] = []
    for label_file in sorted(labels_dir.glob("*.txt")):
        if label_file.name == "classes.txt":
            continue
        copy = images.get(label_file.stem)
        image = TaskImage(label_file.name, label_file.name, sha1=file_sha1(copy) if copy else "")
        match = index.match(image)
        if match.photo is None:
            (refused if match.problem else unmatched).append(match.problem or label_file.name)
            continue
        photo = match.photo
        boxes, skipped = [], 0
        for line in _read_text(label_file).splitlines():
            parts = line.split()
            if not parts:
                continue
            try:
                export_id = int(parts[0])
            except ValueError:
                raise LabelFileError(f"{label_file}: bad line {line[:80]!r}") from None
            if export_id not in to_canonical:
                warnings.append(f"{label_file.name}: skipped class {export_id} (not in our table)")
                skipped += 1
                continue
            (box,) = parse_label_text(" ".join(["0", *parts[1:]]), str(label_file))
            boxes.append(box.with_class(to_canonical[export_id]))
        if skipped:
            warnings.append(_kept(photo.name, skipped))
            continue
        found.append(Found(photo, tuple(boxes), match.how, label_file.name))
    return found


def _made_by_person(photo: Photo) -> bool:
    """Labels a match by file name alone must not replace: a person's, or ones that cannot be read."""
    if not photo.label_path.exists():
        return False
    try:
        return photo.load().made_by_person
    except LabelFileError:
        return True


def import_export(export: Path, folder: Path, *, by_name: bool = False) -> ImportReport:
    """Read a Label Studio JSON export (file) or YOLO export (folder) into the folder's label files.

    Only tasks matched to one photo by its content or its folders are marked reviewed.  A photo two tasks
    match gets neither.  A match by file name alone replaces only labels no person made (any, with
    `by_name`), and leaves the photo not reviewed.
    """
    export = Path(export)
    index = PhotoIndex({p.name: p for p in list_photos(folder)})
    warnings: list[str] = []
    unmatched: list[str] = []
    refused: list[str] = []
    without_annotations = 0
    if export.is_dir():
        found = yolo_export_boxes(export, index, warnings, unmatched, refused)
        tasks_seen = len(found) + len(unmatched) + len(refused)
    elif export.is_file():
        try:
            tasks = json.loads(_read_text(export))
        except (ValueError, RecursionError) as error:
            raise LabelFileError(f"cannot read {export} as JSON: {str(error)[:200]}") from None
        if isinstance(tasks, dict):
            tasks = [tasks]
        if not isinstance(tasks, list):
            raise LabelFileError(f"{export}: expected a list of Label Studio tasks, not a {type(tasks).__name__}")
        found, without_annotations = json_export_boxes(tasks, index, warnings, unmatched, refused)
        tasks_seen = len(tasks)
    else:
        raise LabelFileError(f"{export} does not exist")
    by_photo: dict[str, list[Found]] = {}
    for entry in found:
        by_photo.setdefault(entry.photo.name, []).append(entry)
    imported: list[Found] = []
    name_only: list[str] = []
    for entries in by_photo.values():
        photo = entries[0].photo
        if len(entries) > 1:
            refused.append(f"{photo.image.name}: {len(entries)} tasks of the export match it "
                           f"({', '.join(e.reference for e in entries)}): ambiguous, not imported")
            continue
        (entry,) = entries
        if entry.how == "name" and not by_name and _made_by_person(photo):
            refused.append(f"{entry.reference}: matched to {photo.image.name} by file name alone, whose labels a "
                           "person made or checked: kept (tasks made by export-ls carry the photo's content; a YOLO "
                           "export should hold its images/; --by-name takes the name as enough)")
            continue
        photo.save(PhotoLabels(entry.boxes, LabelMeta(origin="import", reviewed=entry.how != "name")))
        imported.append(entry)
        if entry.how == "name":
            name_only.append(photo.image.name)
    return ImportReport(len(imported), sum(len(e.boxes) for e in imported), tuple(unmatched), tuple(warnings),
                        tasks_seen, without_annotations, tuple(refused), tuple(name_only))
