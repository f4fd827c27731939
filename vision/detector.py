"""Image -> Detections with onnxruntime: find tiles, then read each face from a crop.

Two ONNX models from `models/` (names fixed, see `DetectorSettings`):

* `detector.onnx`: a YOLO tile finder with classes `tile` (face up) and `back`,
  run on a letterboxed copy of the whole photo at its small input size;
* `classifier.onnx`: a YOLO classifier for the 42 faces, run on crops cut
  (`vision.crops`) from the full-resolution photo.

A single 43-class YOLO detector named like `tileset.classes.CLASS_NAMES` is
accepted as well, with no classifier.  Class names, input sizes and versions
come from the ONNX metadata that ultralytics writes; names are checked against
the canonical table on load (`ClassTableMismatch` when they differ).

Runtime dependencies only: onnxruntime, OpenCV, Pillow, numpy.
"""

from __future__ import annotations

import ast
import io
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from tileset.classes import BACK_ID, CLASS_ID, CLASS_NAMES, FACE_NAMES, FLOWER_NAMES, ClassTableMismatch, check_names
from scoring.tiles import SUITS, TILE_NAMES, Tile
from vision.crops import cut_tiles, cut_upright, margin_share
from vision.detections import Detections
from vision.flowers import (
    LEFT,
    RIGHT,
    CaptionReader,
    CaptionReaderUnavailable,
    CaptionReading,
    numeral_corner,
    own_numerals,
    rank_from_texts,
)
from vision.settings import DetectorSettings

DEFAULT = DetectorSettings()
TILE_FINDER_NAMES: tuple[str, ...] = ("tile", "back")
EXIF_ORIENTATION = 0x0112
_SWAPS_AXES = {5, 6, 7, 8}  # EXIF orientations that turn the picture by 90 degrees


class ImageError(ValueError):
    """An image that cannot be read; the message says why, for the user."""


class ModelLoadError(RuntimeError):
    """A models folder without usable ONNX files."""


# ---------------------------------------------------------------- images


@dataclass(frozen=True)
class DecodedImage:
    """Pixels (BGR, EXIF-oriented) and how they relate to the original photo."""

    bgr: np.ndarray
    original_wh: tuple[int, int]  # after EXIF orientation

    @property
    def scale_xy(self) -> tuple[float, float]:
        """Original pixels per decoded pixel, along x and y."""
        h, w = self.bgr.shape[:2]
        return self.original_wh[0] / w, self.original_wh[1] / h


def _open(source: "str | Path | bytes", settings: DetectorSettings) -> tuple[Image.Image, bytes]:
    """The image header parsed (no pixels decoded yet) and the file's bytes; size limits checked."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        path = Path(source)
        if not path.exists():
            raise ImageError(f"no such file: {path}")
        if not path.is_file():
            raise ImageError(f"not a file: {path}")
        size = path.stat().st_size
        if size > settings.max_file_bytes:
            raise ImageError(f"file too large: {size} bytes (limit {settings.max_file_bytes})")
        data = path.read_bytes()
    if not data:
        raise ImageError("empty file")
    try:
        with warnings.catch_warnings():  # our own limit below says it more plainly
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, ImportError):  # ImportError: ultralytics, once imported, retries via pi_heif
        raise ImageError("not an image, or a format that cannot be read") from None
    except Image.DecompressionBombError as error:
        raise ImageError(f"image too large: {error}") from None
    except (OSError, ValueError) as error:
        raise ImageError(f"unreadable image: {error}") from None
    width, height = image.size
    if width <= 0 or height <= 0:
        raise ImageError(f"image has no pixels ({width}x{height})")
    if width * height > settings.max_pixels:
        raise ImageError(
            f"image too large: {width}x{height} = {width * height / 1e6:.0f} megapixels "
            f"(limit {settings.max_pixels / 1e6:.0f})"
        )
    return image, data


def _reduction_for(long_side: int, wanted_long_side: int) -> int:
    """The largest JPEG DCT reduction (1, 2, 4, 8) that keeps the long side >= wanted."""
    factor = 1
    while factor < 8 and long_side / (factor * 2) >= wanted_long_side:
        factor *= 2
    return factor


_CV2_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


def apply_exif_orientation(pixels: np.ndarray, orientation: int) -> np.ndarray:
    """Turn/flip decoded pixels as EXIF orientation 1..8 says (what `ImageOps.exif_transpose` does)."""
    if orientation == 2:
        pixels = pixels[:, ::-1]
    elif orientation == 3:
        pixels = pixels[::-1, ::-1]
    elif orientation == 4:
        pixels = pixels[::-1]
    elif orientation == 5:
        pixels = pixels.swapaxes(0, 1)
    elif orientation == 6:
        pixels = cv2.rotate(pixels, cv2.ROTATE_90_CLOCKWISE)
    elif orientation == 7:
        pixels = pixels[::-1, ::-1].swapaxes(0, 1)
    elif orientation == 8:
        pixels = cv2.rotate(pixels, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return np.ascontiguousarray(pixels)


def _decode_jpeg_reduced(data: bytes, factor: int, orientation: int) -> "np.ndarray | None":
    """libjpeg-turbo DCT-scaled decode through OpenCV (BGR, no colour conversion), or None.

    OpenCV returns whatever it could decode of a truncated file; such files
    (no end-of-image marker) are left to Pillow, which reports them.
    """
    if not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        return None
    flags = _CV2_REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    return None if pixels is None else apply_exif_orientation(pixels, orientation)


def decode_image(
    source: "str | Path | bytes", settings: DetectorSettings = DEFAULT, reduce_to: "int | None" = None
) -> DecodedImage:
    """Read an image file or bytes into BGR pixels, EXIF-oriented.

    With `reduce_to`, a JPEG larger than that (long side) is decoded at 1/2, 1/4
    or 1/8 scale directly by the JPEG decoder, which is many times faster than
    decoding it whole; `original_wh` still gives the full size.
    """
    image, data = _open(source, settings)
    width, height = image.size
    try:
        orientation = int(image.getexif().get(EXIF_ORIENTATION, 1))
    except Exception:  # a broken EXIF block is no reason to refuse the picture
        orientation = 1
    original_wh = (height, width) if orientation in _SWAPS_AXES else (width, height)
    factor = _reduction_for(max(width, height), reduce_to) if reduce_to and image.format == "JPEG" else 1
    if factor > 1 and image.mode in {"RGB", "L", "YCbCr"}:
        pixels = _decode_jpeg_reduced(data, factor, orientation)
        if pixels is not None:
            return DecodedImage(pixels, original_wh)
    try:
        if factor > 1:
            image.draft("RGB", (math.ceil(width / factor), math.ceil(height / factor)))
        image.load()
        if orientation != 1:
            image = ImageOps.exif_transpose(image)
        rgb = np.asarray(image.convert("RGB"))
    except (OSError, ValueError, SyntaxError) as error:
        raise ImageError(f"unreadable image data: {error}") from None
    return DecodedImage(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), original_wh)


def load_image(source: "str | Path | bytes", settings: DetectorSettings = DEFAULT) -> np.ndarray:
    """Full-resolution BGR pixels, EXIF-oriented; `ImageError` with a clear message when unreadable."""
    return decode_image(source, settings).bgr


# ---------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into a square network input: scale then padding."""

    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        """Boxes in network-input pixels -> boxes in the pixels of the letterboxed image."""
        out = np.asarray(xyxy, np.float32).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        return out


def letterbox(image_bgr: np.ndarray, size: int, pad_value: int = 114) -> tuple[np.ndarray, Letterbox]:
    """ultralytics-style letterbox: scale to fit `size` x `size` keeping aspect, centre on grey."""
    h, w = image_bgr.shape[:2]
    scale = min(size / h, size / w)
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=interpolation)
    pad_x, pad_y = (size - new_w) / 2, (size - new_h) / 2
    top, left = int(round(pad_y - 0.1)), int(round(pad_x - 0.1))
    canvas = np.full((size, size, 3), pad_value, np.uint8)
    canvas[top : top + new_h, left : left + new_w] = resized
    return canvas, Letterbox(scale, float(left), float(top))


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix (len(a), len(b)) of xyxy boxes."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = (x2 - x1).clip(0) * (y2 - y1).clip(0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def nms(xyxy: np.ndarray, scores: np.ndarray, iou_threshold: float, max_keep: int) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression, best score first."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    keep: list[int] = []
    while order.size and len(keep) < max_keep:
        best = int(order[0])
        keep.append(best)
        if order.size == 1:
            break
        overlaps = box_iou(xyxy[best : best + 1], xyxy[order[1:]])[0]
        order = order[1:][overlaps <= iou_threshold]
    return np.asarray(keep, np.int64)


def decode_yolo_output(
    output: np.ndarray, conf_threshold: float, iou_threshold: float, max_keep: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw YOLO head (1, 4 + nc, anchors) -> (xyxy, conf, class) after class-agnostic NMS, input pixels."""
    rows = np.asarray(output)[0].T  # (anchors, 4 + nc)
    class_scores = rows[:, 4:]
    classes = class_scores.argmax(axis=1)
    conf = class_scores[np.arange(len(rows)), classes]
    mask = conf >= conf_threshold
    rows, classes, conf = rows[mask], classes[mask], conf[mask]
    cx, cy, w, h = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    keep = nms(xyxy, conf, iou_threshold, max_keep)
    return xyxy[keep], conf[keep].astype(np.float32), classes[keep].astype(np.int64)


def to_network_input(images_bgr: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR -> (N, 3, H, W) float32 RGB in [0, 1], as ultralytics feeds its models."""
    batch = np.ascontiguousarray(images_bgr[..., ::-1].transpose(0, 3, 1, 2))
    return batch.astype(np.float32) / 255.0


# ---------------------------------------------------------------- models


def read_metadata(session: Any) -> dict[str, Any]:
    """ultralytics' ONNX metadata (names, imgsz, task, version, date...) with Python values parsed."""
    raw = session.get_modelmeta().custom_metadata_map
    parsed: dict[str, Any] = {}
    for key, value in raw.items():
        try:
            parsed[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed[key] = value
    return parsed


def _names_of(metadata: dict[str, Any], what: str) -> tuple[str, ...]:
    names = metadata.get("names")
    if isinstance(names, dict):
        return tuple(str(names[i]) for i in sorted(names))
    if isinstance(names, (list, tuple)):
        return tuple(str(n) for n in names)
    raise ClassTableMismatch(f"{what}: no class names in the model metadata")


def _imgsz_of(metadata: dict[str, Any], session: Any, what: str) -> int:
    imgsz = metadata.get("imgsz")
    if isinstance(imgsz, (list, tuple)) and imgsz:
        return int(imgsz[0])
    if isinstance(imgsz, int):
        return imgsz
    shape = session.get_inputs()[0].shape
    if isinstance(shape[-1], int):
        return int(shape[-1])
    raise ModelLoadError(f"{what}: input size unknown (no imgsz in metadata, dynamic input)")


def _session(path: Path, settings: DetectorSettings) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = settings.intra_op_threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if not settings.intra_op_spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for broken files
        raise ModelLoadError(f"cannot load {path}: {error}") from None


@dataclass(frozen=True)
class ModelInfo:
    """What the app and the reports show about the loaded models."""

    detector_path: str
    detector_imgsz: int
    detector_names: tuple[str, ...]
    classifier_path: "str | None"
    classifier_imgsz: "int | None"
    versions: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            "detector": {"path": self.detector_path, "imgsz": self.detector_imgsz, "names": list(self.detector_names)},
            "classifier": None
            if self.classifier_path is None
            else {"path": self.classifier_path, "imgsz": self.classifier_imgsz},
            "versions": self.versions,
        }


def median_face_aspect(xyxy: np.ndarray, is_face: np.ndarray, min_tiles: int) -> float | None:
    """Median width / height of the boxes `is_face` marks; None with fewer than `min_tiles` of them."""
    wh = (xyxy[:, 2:] - xyxy[:, :2])[is_face]
    if len(wh) < max(1, min_tiles):
        return None
    return float(np.median(wh[:, 0] / np.maximum(wh[:, 1], 1e-3)))


def touching_ranks(boxes_xyxy: np.ndarray, class_ids: np.ndarray, index: int, reach: float = 0.3) -> dict[str, int]:
    """The ranks of the suited tiles touching upright tile `index` on its left and right in the same
    row (`flowers.LEFT`/`RIGHT`): a box whose centre lies within half the tile's height of its
    centre and whose near edge is within `reach` of its width (overlapping by up to half of it)."""
    x0, y0, x1, y1 = boxes_xyxy[index]
    width, centre_y = x1 - x0, (y0 + y1) / 2
    found: dict[str, tuple[float, int]] = {}
    for other, (ox0, oy0, ox1, oy1) in enumerate(boxes_xyxy):
        name = CLASS_NAMES[class_ids[other]]
        if other == index or abs((oy0 + oy1) / 2 - centre_y) > (y1 - y0) / 2 or name not in TILE_NAMES:
            continue
        tile = Tile.parse(name)
        left = (ox0 + ox1) < (x0 + x1)
        gap = x0 - ox1 if left else ox0 - x1
        side = LEFT if left else RIGHT
        if tile.is_suited and -width / 2 < gap < reach * width and (side not in found or gap < found[side][0]):
            found[side] = (gap, tile.rank)
    return {side: rank for side, (_, rank) in found.items()}


class TileDetector:
    """Finds the tiles of a photo and names each one (43 canonical classes)."""

    def __init__(
        self,
        finder: Any,
        classifier: "Any | None",
        settings: DetectorSettings = DEFAULT,
        paths: "tuple[str, str | None]" = ("<memory>", None),
    ) -> None:
        self.settings = settings
        self._reader: "CaptionReader | bool | None" = None  # made on first use; False: none to be had
        self._finder = finder
        self._classifier = classifier
        finder_meta = read_metadata(finder)
        names = _names_of(finder_meta, f"detector {paths[0]}")
        self._finder_imgsz = _imgsz_of(finder_meta, finder, f"detector {paths[0]}")
        self._finder_input = finder.get_inputs()[0].name
        if names == TILE_FINDER_NAMES:
            if classifier is None:
                raise ModelLoadError(f"detector {paths[0]} only finds tiles; a classifier model is needed too")
            self._finder_to_canonical = None
        else:
            check_names(names, CLASS_NAMES, f"detector {paths[0]}")
            self._finder_to_canonical = np.arange(len(CLASS_NAMES))
        versions = {"detector": f"{finder_meta.get('version', '?')} {finder_meta.get('date', '')}".strip()}
        self._classifier_imgsz: "int | None" = None
        if classifier is not None and self._finder_to_canonical is None:
            cls_meta = read_metadata(classifier)
            cls_names = _names_of(cls_meta, f"classifier {paths[1]}")
            if sorted(cls_names) != sorted(FACE_NAMES) or len(cls_names) != len(FACE_NAMES):
                check_names(cls_names, FACE_NAMES, f"classifier {paths[1]}")  # raises, listing the differences
            self._classifier_to_canonical = np.array([CLASS_ID[n] for n in cls_names], np.int64)
            self._classifier_flowers = np.array([n in FLOWER_NAMES for n in cls_names])
            # classifier columns of 1..9 of each suit: the ranks an index numeral can pick between
            self._classifier_ranks = {suit: np.array([cls_names.index(Tile.suited(r, suit).name) for r in range(1, 10)])
                                      for suit in SUITS}
            self._classifier_imgsz = _imgsz_of(cls_meta, classifier, f"classifier {paths[1]}")
            self._classifier_input = classifier.get_inputs()[0].name
            self._classifier_fixed_batch = isinstance(classifier.get_inputs()[0].shape[0], int)
            versions["classifier"] = f"{cls_meta.get('version', '?')} {cls_meta.get('date', '')}".strip()
        self.model_info = ModelInfo(
            detector_path=paths[0],
            detector_imgsz=self._finder_imgsz,
            detector_names=names,
            classifier_path=paths[1] if self._classifier_imgsz else None,
            classifier_imgsz=self._classifier_imgsz,
            versions=versions,
        )

    @classmethod
    def load(cls, models_dir: "str | Path | None" = None, settings: DetectorSettings = DEFAULT) -> "TileDetector":
        """Load `detector.onnx` (and `classifier.onnx` when the detector only finds tiles) from a folder.

        No folder: the model version in use (`vision.registry`: the shipped models unless an adapted
        version was promoted or chosen).
        """
        if models_dir is None:
            from vision.registry import active_dir

            models_dir = active_dir()
        folder = Path(models_dir)
        finder_path = folder / settings.detector_file
        if not finder_path.is_file():
            raise ModelLoadError(f"no detector model at {finder_path}")
        classifier_path = folder / settings.classifier_file
        finder = _session(finder_path, settings)
        classifier = _session(classifier_path, settings) if classifier_path.is_file() else None
        return cls(finder, classifier, settings, (str(finder_path), str(classifier_path) if classifier else None))

    # ------------------------------------------------------------ inference

    def find_tiles(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tile-finder boxes (image pixels), confidences and finder class ids."""
        s = self.settings
        canvas, fit = letterbox(image_bgr, self._finder_imgsz)
        (output,) = self._finder.run(None, {self._finder_input: to_network_input(canvas[None])})[:1]
        xyxy, conf, classes = decode_yolo_output(output, s.conf_threshold, s.nms_iou, s.max_detections)
        xyxy = fit.to_image(xyxy)
        h, w = image_bgr.shape[:2]
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
        return xyxy, conf, classes

    def classify_faces(
        self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Canonical class id and probability of each face-up tile box, and its second reading.

        The second reading is the second most likely class; for a face read as a flower or
        season, the most likely class that is not one: which flower it is never changes a
        score, and a "flower" inside a row of the hand is another face misread.
        """
        assert self._classifier is not None and self._classifier_imgsz is not None
        crops = cut_tiles(image_bgr, boxes_xyxy, self._classifier_imgsz, self.settings)
        if len(crops) == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64)
        batch = to_network_input(crops)
        if self._classifier_fixed_batch:
            probs = np.concatenate([self._classifier.run(None, {self._classifier_input: b[None]})[0] for b in batch])
        else:
            probs = self._classifier.run(None, {self._classifier_input: batch})[0]
        best, second = np.argsort(-probs, axis=1, kind="stable")[:, :2].T
        best_not_flower = np.where(self._classifier_flowers[None, :], -1.0, probs).argmax(axis=1)
        second = np.where(self._classifier_flowers[best], best_not_flower, second)
        ids, seconds = self._classifier_to_canonical[best], self._classifier_to_canonical[second]
        confidence = probs[np.arange(len(best)), best].astype(np.float32)
        flowers = self.settings.flowers
        flower_share = probs[:, self._classifier_flowers].sum(axis=1)
        for index in np.flatnonzero(flower_share >= flowers.min_flower_share) if flowers.enabled else ():
            reading = self._read_caption(image_bgr, boxes_xyxy[index], CLASS_NAMES[ids[index]])
            if reading is None:
                continue
            if not self._classifier_flowers[best[index]]:
                seconds[index] = ids[index]  # the suited or honour tile it was read as, should the caption be wrong
            ids[index] = CLASS_ID[reading.name]
            confidence[index] = max(float(confidence[index]), reading.score)
        self._read_index_numerals(image_bgr, boxes_xyxy, probs, ids, confidence, seconds)
        return ids, confidence, seconds

    def _read_index_numerals(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, probs: np.ndarray,
                             ids: np.ndarray, confidence: np.ndarray, seconds: np.ndarray) -> None:
        """Suited faces read unsurely take the rank their index numeral prints, in the suit the
        classifier gives that rank the most chance (`RankSettings.any_suit`; in place). A tile lying
        sideways is read both ways up: turned upright, which way up it lies is unknown, and a 6
        upside down reads as a 9, so the two must agree.
        All are read before any is decided: the corner the set prints in (`numeral_corner`) tells
        a neighbour's numeral from the tile's own (`own_numerals`)."""
        ranks = self.settings.ranks
        if not ranks.enabled:
            return
        wh = boxes_xyxy[:, 2:] - boxes_xyxy[:, :2]
        sideways = wh[:, 0] > wh[:, 1] * self.settings.sideways_ratio
        margin = margin_share(self.settings)
        unsure = []  # (index, the tile as read, upright reads, beside, turned-over reads or None when upright)
        for index in np.flatnonzero(confidence < ranks.max_confidence):
            name = CLASS_NAMES[ids[index]]
            read_as = Tile.parse(name) if name in TILE_NAMES else None
            if read_as is None or not read_as.is_suited:
                continue
            reader = self._caption_reader()
            if reader is None:
                return
            tile = cut_upright(image_bgr, boxes_xyxy[index], self.settings)
            if tile is None:
                continue
            reads = reader.index_reads(tile, ranks, margin)
            if sideways[index]:
                turned = reader.index_reads(np.ascontiguousarray(tile[::-1, ::-1]), ranks, margin)
                unsure.append((index, read_as, reads, {}, turned))
            else:
                unsure.append((index, read_as, reads, touching_ranks(boxes_xyxy, ids, index), None))
        corner = None
        if ranks.leave_out_neighbours:
            corner = numeral_corner([(reads, beside) for _, _, reads, beside, turned in unsure if turned is None],
                                    ranks.min_digit_score)
        for index, read_as, reads, beside, turned in unsure:
            texts = own_numerals(reads, beside, corner) + [text for _, text in turned or []]
            suits = SUITS if ranks.any_suit else read_as.suit
            by_suit = {suit: probs[index, self._classifier_ranks[suit]] for suit in suits}
            reading = rank_from_texts(texts, np.max(list(by_suit.values()), axis=0), ranks)
            if reading is None:
                continue
            rank = int(reading.name)
            suit = max(by_suit, key=lambda s: float(by_suit[s][rank - 1]))
            if (rank, suit) == (read_as.rank, read_as.suit):
                continue
            seconds[index] = ids[index]
            ids[index] = CLASS_ID[Tile.suited(rank, suit).name]
            confidence[index] = max(float(confidence[index]), reading.score)

    def _caption_reader(self) -> "CaptionReader | None":
        if self._reader is None:
            try:
                self._reader = CaptionReader(self.settings.flowers, self.settings.intra_op_threads)
            except CaptionReaderUnavailable as error:
                warnings.warn(f"flowers and ranks are read by the classifier alone: {error}", stacklevel=2)
                self._reader = False
        return self._reader or None

    def _read_caption(self, image_bgr: np.ndarray, xyxy: np.ndarray, classifier_guess: str) -> "CaptionReading | None":
        """The flower its caption names (`vision.flowers`); None when there is no reader or no caption."""
        reader = self._caption_reader()
        tile = None if reader is None else cut_upright(image_bgr, xyxy, self.settings)
        return None if tile is None else reader.read(tile, classifier_guess)

    def detect(self, image_bgr: np.ndarray) -> Detections:
        """All tiles of a BGR image, 43 canonical classes, boxes in the image's pixels.

        A photo whose tiles come out far thinner (or wider) than any tile is was stretched
        on its way here (`DetectorSettings.stretched_aspect`): it is resized back until its
        tiles have about their natural shape (`unstretched_within`), and its faces are read
        in that copy. The tiles themselves are taken from the copy whose finder found the
        most of them (a long thin copy shrinks in the finder's square input). The boxes are
        still in this image's pixels.
        """
        s = self.settings

        def tile_shaped(aspect: float | None) -> bool:
            return aspect is not None and s.stretched_aspect <= aspect <= 1 / s.stretched_aspect

        def natural(aspect: float | None) -> bool:
            ratio = s.natural_tile_aspect / aspect if aspect else math.inf
            return 1 / s.unstretched_within <= ratio <= s.unstretched_within

        def face_aspect(found: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float | None:
            xyxy, _, classes = found
            return median_face_aspect(xyxy, self._is_face(classes), s.unstretch_min_tiles)

        h, w = image_bgr.shape[:2]
        found = self.find_tiles(image_bgr)
        aspect = face_aspect(found)
        # each copy read: the image, its finder boxes (its own pixels), the median face aspect
        copies = [(image_bgr, found, aspect)]
        stretch = 1.0  # how much the photo's x axis is widened against its y axis
        for _ in range(s.unstretch_passes):
            if aspect is None or (tile_shaped(aspect) if len(copies) == 1 else natural(aspect)):
                break
            stretch = float(np.clip(stretch * s.natural_tile_aspect / aspect, 1 / s.max_unstretch, s.max_unstretch))
            k = math.sqrt(stretch)  # keep the pixel count: widen one axis, narrow the other
            new_w, new_h = max(1, round(w * k)), max(1, round(h / k))
            resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
            found = self.find_tiles(resized)
            aspect = face_aspect(found)
            copies.append((resized, found, aspect))
        if len(copies) == 1:
            return self._named(image_bgr, *found)

        def faces_found(copy: tuple) -> int:
            return int(self._is_face(copy[1][2]).sum())

        shaped = [copy for copy in copies if tile_shaped(copy[2])]
        if not shaped:  # never came out tile-shaped: the copy with the most faces, as it is
            image, found, _ = max(reversed(copies), key=faces_found)
            return self._named(image, *found).scaled(w / image.shape[1], h / image.shape[0])
        boxes_from = max(reversed(shaped), key=faces_found)  # ties: the later, more natural copy
        read_in = shaped[-1][0]
        (bh, bw), (rh, rw) = boxes_from[0].shape[:2], read_in.shape[:2]
        xyxy, conf, classes = boxes_from[1]
        xyxy = xyxy * np.float32([rw / bw, rh / bh, rw / bw, rh / bh])
        return self._named(read_in, xyxy, conf, classes).scaled(w / rw, h / rh)

    def _is_face(self, finder_classes: np.ndarray) -> np.ndarray:
        """Which finder boxes are face-up tiles (not backs)."""
        if self._finder_to_canonical is not None:
            return self._finder_to_canonical[finder_classes] != BACK_ID
        return finder_classes == TILE_FINDER_NAMES.index("tile")

    def _named(self, image_bgr: np.ndarray, xyxy: np.ndarray, conf: np.ndarray, classes: np.ndarray) -> Detections:
        """Finder boxes (pixels of `image_bgr`) as Detections: faces named by the classifier."""
        if self._finder_to_canonical is not None:
            return Detections(xyxy, conf, self._finder_to_canonical[classes])
        canonical = np.full(len(xyxy), BACK_ID, np.int64)
        runner_up = np.full(len(xyxy), -1, np.int64)
        faces = self._is_face(classes)
        if faces.any():
            face_ids, face_probs, second_ids = self.classify_faces(image_bgr, xyxy[faces])
            canonical[faces] = face_ids
            runner_up[faces] = second_ids
            conf = conf.copy()
            conf[faces] = conf[faces] * face_probs
        return Detections(xyxy, conf, canonical, runner_up)

    def detect_decoded(self, decoded: DecodedImage) -> Detections:
        """Detect on a (possibly reduced) decoded image; boxes in the original photo's pixels."""
        dets = self.detect(decoded.bgr)
        sx, sy = decoded.scale_xy
        return dets if (sx, sy) == (1.0, 1.0) else dets.scaled(sx, sy)

    def detect_file(self, source: "str | Path | bytes") -> tuple[Detections, tuple[int, int]]:
        """Read and detect a photo (big JPEGs decoded reduced); boxes and size in original pixels."""
        decoded = decode_image(source, self.settings, reduce_to=self.settings.decode_long_side)
        return self.detect_decoded(decoded), decoded.original_wh
