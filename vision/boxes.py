"""Box maths: fitting a photo into a network input, YOLO output -> boxes, overlap and matching.

Boxes are (N, 4) float arrays of xyxy pixel corners. `box_iou` and `match_boxes`
are the one overlap and the one one-to-one pairing the project uses (evaluation,
adaptation, calibration, benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into a network input: scale then padding."""

    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        """Boxes in network-input pixels -> boxes in the pixels of the letterboxed image."""
        out = np.asarray(xyxy, np.float32).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        return out


def letterbox(image_bgr: np.ndarray, size: int, stride: int | None = None, pad_value: int = 114
              ) -> tuple[np.ndarray, Letterbox]:
    """ultralytics-style letterbox: scale to fit `size` x `size` keeping aspect, centre on grey. With `stride`
    (a finder that takes any canvas size), the canvas is only as large as the scaled image, each side rounded
    up to a multiple of `stride`: a 4:3 photo runs on 512 x 384, a long strip on a thin canvas."""
    h, w = image_bgr.shape[:2]
    scale = min(size / h, size / w)
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=interpolation)
    width, height = (size, size) if stride is None else (-(-new_w // stride) * stride, -(-new_h // stride) * stride)
    pad_x, pad_y = (width - new_w) / 2, (height - new_h) / 2
    top, left = round(pad_y - 0.1), round(pad_x - 0.1)
    canvas = np.full((height, width, 3), pad_value, np.uint8)
    canvas[top : top + new_h, left : left + new_w] = resized
    return canvas, Letterbox(scale, float(left), float(top))


def _intersections(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intersection areas (len(a), len(b)) of xyxy boxes, and the areas of a and of b."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = (x2 - x1).clip(0) * (y2 - y1).clip(0)
    return inter, (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]), (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix (len(a), len(b)) of xyxy boxes."""
    inter, area_a, area_b = _intersections(a, b)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def share_on(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) the share of each box of `a` lying on each box of `b` (xyxy)."""
    inter, area_a, _ = _intersections(a, b)
    return inter / np.maximum(area_a, 1e-9)[:, None]


def match_boxes(a: np.ndarray, b: np.ndarray, min_iou: float) -> list[tuple[int, int]]:
    """One-to-one pairs (index in a, index in b) overlapping at least `min_iou`, highest IoU paired first,
    sorted by a's index. Class-agnostic: what each box was read as is for the caller to compare."""
    if len(a) == 0 or len(b) == 0:
        return []
    iou = box_iou(a, b)
    candidates = np.argwhere(iou >= min_iou)
    order = np.argsort(-iou[candidates[:, 0], candidates[:, 1]], kind="stable")
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for i, j in candidates[order]:
        if int(i) not in used_a and int(j) not in used_b:
            used_a.add(int(i))
            used_b.add(int(j))
            pairs.append((int(i), int(j)))
    return sorted(pairs)


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
    xyxy, conf, classes, _ = decode_yolo_scores(output, conf_threshold, iou_threshold, max_keep)
    return xyxy, conf, classes


def decode_yolo_scores(
    output: np.ndarray, conf_threshold: float, iou_threshold: float, max_keep: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`decode_yolo_output`, and every class's score of each box kept: (N, nc)."""
    rows = np.asarray(output)[0].T  # (anchors, 4 + nc)
    class_scores = rows[:, 4:]
    classes = class_scores.argmax(axis=1)
    conf = class_scores[np.arange(len(rows)), classes]
    mask = conf >= conf_threshold
    rows, classes, conf = rows[mask], classes[mask], conf[mask]
    cx, cy, w, h = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    keep = nms(xyxy, conf, iou_threshold, max_keep)
    return (xyxy[keep], conf[keep].astype(np.float32), classes[keep].astype(np.int64),
            rows[keep, 4:].astype(np.float32))


@dataclass(frozen=True)
class Found:
    """One run of the tile finder on an image: its boxes (xyxy, that image's pixels), their confidences and finder
    class ids, and each box's score for every finder class (N, classes; no columns where they are not known, as from
    a stand-in finder). The finder stages (the mirror check, unstretching, the unsure boxes) carry them together, so a
    box's scores are never looked up again by its position."""

    xyxy: np.ndarray
    conf: np.ndarray
    classes: np.ndarray
    scores: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.conf)
        scores = np.zeros((n, 0), np.float32) if self.scores is None else np.asarray(self.scores, np.float32)
        object.__setattr__(self, "scores", scores.reshape(n, -1) if n else scores.reshape(0, scores.shape[-1]))
        if self.xyxy.shape != (n, 4) or self.classes.shape != (n,):
            raise ValueError("Found arrays must be (N,4), (N,), (N,), (N, classes)")

    def __len__(self) -> int:
        return len(self.conf)

    def __getitem__(self, index: Any) -> Found:
        """Boolean mask or index array -> the boxes chosen, in that order."""
        return Found(self.xyxy[index], self.conf[index], self.classes[index], self.class_scores[index])

    @property
    def class_scores(self) -> np.ndarray:
        """`scores`, which `__post_init__` always sets."""
        assert self.scores is not None
        return self.scores

    def score_of(self, column: int) -> np.ndarray:
        """Each box's score for finder class `column`; 0 where the scores are not known."""
        if column >= self.class_scores.shape[1]:
            return np.zeros(len(self), np.float32)
        return self.class_scores[:, column]

    def joined(self, then: Found) -> Found:
        """These boxes, then `then`'s; class scores kept where both know the same classes."""
        same = self.class_scores.shape[1] == then.class_scores.shape[1]
        return Found(np.concatenate([self.xyxy, then.xyxy]), np.concatenate([self.conf, then.conf]),
                     np.concatenate([self.classes, then.classes]),
                     np.concatenate([self.class_scores, then.class_scores]) if same else None)

    def with_conf(self, conf: np.ndarray) -> Found:
        return replace(self, conf=np.asarray(conf, np.float32))

    def with_boxes(self, xyxy: np.ndarray) -> Found:
        return replace(self, xyxy=np.asarray(xyxy, np.float32))


def to_network_input(images_bgr: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR -> (N, 3, H, W) float32 RGB in [0, 1], as ultralytics feeds its models."""
    batch = np.ascontiguousarray(images_bgr[..., ::-1].transpose(0, 3, 1, 2))
    return batch.astype(np.float32) / 255.0


def face_aspects(xyxy: np.ndarray, is_face: np.ndarray) -> np.ndarray:
    """Width / height of each box `is_face` marks."""
    wh = (xyxy[:, 2:] - xyxy[:, :2])[is_face]
    return wh[:, 0] / np.maximum(wh[:, 1], 1e-3)


def median_face_aspect(xyxy: np.ndarray, is_face: np.ndarray, min_tiles: int) -> float | None:
    """Median width / height of the boxes `is_face` marks; None with fewer than `min_tiles` of them."""
    aspects = face_aspects(xyxy, is_face)
    if len(aspects) < max(1, min_tiles):
        return None
    return float(np.median(aspects))
