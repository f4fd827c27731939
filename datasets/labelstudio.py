"""Label Studio round trip: tasks with our pre-labels as predictions out, its exports back in.

Label Studio's YOLO export numbers classes alphabetically unless a `<Label>` carries a
`category` attribute; `labeling_config()` pins every class to its canonical id that way, so
its `classes.txt` keeps our order.  Imports still remap by class *name*, so an export made
with any other config is read correctly too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from tileset.classes import CLASS_ID, CLASS_NAMES, NAMES_ZH
from tileset.labelfiles import (
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
               for i, (box, conf) in enumerate(zip(labels.boxes, confidences))]
    relative = photo.image.relative_to(root).as_posix()
    task: dict[str, Any] = {"data": {"image": url_prefix + relative, "mcr_photo": photo.image.name}}
    if results:
        known = [c for c in labels.meta.confidences]
        task["predictions"] = [{
            "model_version": labels.meta.model or labels.meta.origin,
            "score": min(known) if known else 1.0,
            "result": results,
        }]
    return task


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
        if self.warnings and not reasons:
            reasons.append("every task was skipped (see the warnings)")
        return "; ".join(reasons) or "no task held any box"


def match_photo(name: str, photos: dict[str, Photo]) -> Photo | None:
    """A photo by file name or stem, tolerating Label Studio's upload prefix and URL paths."""
    base = name.rsplit("/", 1)[-1].split("?d=")[-1].rsplit("/", 1)[-1]
    for candidate in (base, UPLOAD_PREFIX.sub("", base)):
        stem = candidate.rsplit(".", 1)[0] if "." in candidate else candidate
        if stem in photos:
            return photos[stem]
    return None


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


def json_export_boxes(tasks: Iterable[Any], photos: dict[str, Photo], warnings: list[str],
                      unmatched: list[str]) -> tuple[dict[str, tuple[Photo, list[LabelBox]]], int]:
    """Boxes per photo, and how many tasks had no annotation to take them from."""
    found: dict[str, tuple[Photo, list[LabelBox]]] = {}
    without_annotations = 0
    for number, task in enumerate(tasks, start=1):
        if not isinstance(task, dict):
            warnings.append(f"task {number}: not a Label Studio task ({type(task).__name__}), skipped")
            continue
        given = task.get("data")
        data = given if isinstance(given, dict) else {}
        image_name = str(data.get("mcr_photo") or data.get("image") or task.get("image") or "")
        photo = match_photo(image_name, photos)
        if photo is None:
            unmatched.append(image_name or f"task {number} (no image)")
            continue
        results = task["label"] if "label" in task else chosen_annotation(task)  # JSON-MIN has "label"
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
        found[photo.name] = (photo, boxes)
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


def yolo_export_boxes(export: Path, photos: dict[str, Photo], warnings: list[str],
                      unmatched: list[str]) -> dict[str, tuple[Photo, list[LabelBox]]]:
    classes_file = export / "classes.txt"
    if not classes_file.is_file():
        raise LabelFileError(f"{export} has no classes.txt: not a Label Studio YOLO export")
    names = [line.strip() for line in _read_text(classes_file).splitlines() if line.strip()]
    unknown = [n for n in names if n not in CLASS_ID]
    if unknown:
        warnings.append(f"classes.txt names not in our class table are skipped: {unknown}")
    to_canonical = {i: CLASS_ID[n] for i, n in enumerate(names) if n in CLASS_ID}
    labels_dir = export / "labels" if (export / "labels").is_dir() else export
    found: dict[str, tuple[Photo, list[LabelBox]]] = {}
    for label_file in sorted(labels_dir.glob("*.txt")):
        if label_file.name == "classes.txt":
            continue
        photo = match_photo(label_file.name, photos)
        if photo is None:
            unmatched.append(label_file.name)
            continue
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
        found[photo.name] = (photo, boxes)
    return found


def import_export(export: Path, folder: Path) -> ImportReport:
    """Read a Label Studio JSON export (file) or YOLO export (folder) into the folder's label files."""
    export = Path(export)
    photos = {p.name: p for p in list_photos(folder)}
    warnings: list[str] = []
    unmatched: list[str] = []
    without_annotations = 0
    if export.is_dir():
        found = yolo_export_boxes(export, photos, warnings, unmatched)
        tasks_seen = len(found) + len(unmatched)
    elif export.is_file():
        try:
            tasks = json.loads(_read_text(export))
        except (ValueError, RecursionError) as error:
            raise LabelFileError(f"cannot read {export} as JSON: {str(error)[:200]}") from None
        if isinstance(tasks, dict):
            tasks = [tasks]
        if not isinstance(tasks, list):
            raise LabelFileError(f"{export}: expected a list of Label Studio tasks, not a {type(tasks).__name__}")
        found, without_annotations = json_export_boxes(tasks, photos, warnings, unmatched)
        tasks_seen = len(tasks)
    else:
        raise LabelFileError(f"{export} does not exist")
    for photo, boxes in found.values():
        photo.save(PhotoLabels(tuple(boxes), LabelMeta(origin="import", reviewed=True)))
    return ImportReport(len(found), sum(len(b) for _, b in found.values()), tuple(unmatched), tuple(warnings),
                        tasks_seen, without_annotations)
