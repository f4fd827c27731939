"""The crops a set is learned from: augmented copies of the calibration photos (smaller, turned, tilted,
sideways, other light, glare, blur, noise, JPEG), their tiles cut exactly as the runtime cuts them
(`vision.crops`), and labeled tiles of the base photos."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tileset.classes import BACK, CLASS_ID
from vision.calibration_layout import LayoutReading
from vision.settings import CalibrateSettings, DetectorSettings

DEFAULT = CalibrateSettings()


def _corners(boxes: np.ndarray) -> np.ndarray:
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    return np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)


def _warp_boxes(boxes: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Axis-aligned boxes of the boxes' corners moved by a 3x3 homography."""
    pts = _corners(boxes).reshape(-1, 2)
    moved = np.c_[pts, np.ones(len(pts))] @ matrix.T
    moved = (moved[:, :2] / moved[:, 2:3]).reshape(-1, 4, 2)
    return np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1).astype(np.float32)


def augmented_copy(image: np.ndarray, boxes: np.ndarray, rng: random.Random,
                   settings: CalibrateSettings = DEFAULT) -> tuple[np.ndarray, np.ndarray, bool]:
    """The photo seen otherwise (size, turn, tilt, sideways, light, glare, blur, noise, JPEG), where
    its tiles' boxes went, and whether its tiles' crops come out upside down (the photo turned
    clockwise: the runtime turns sideways crops clockwise once more)."""
    h, w = image.shape[:2]
    scale = rng.uniform(settings.min_scale, 1.0)
    out_w, out_h = max(32, round(w * scale)), max(32, round(h * scale))
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    tilt = rng.uniform(0, settings.max_tilt) * w
    jitter = [[rng.uniform(-0.03, 0.03) * w, rng.uniform(-0.03, 0.03) * h] for _ in range(4)]
    dst = np.array([[tilt, 0], [w - tilt, 0], [w, h], [0, h]], np.float32) + np.array(jitter, np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-settings.max_turn_deg, settings.max_turn_deg), 1.0)
    matrix = np.vstack([turn, [0, 0, 1]]) @ matrix
    matrix = np.diag([scale, scale, 1.0]) @ matrix
    picture = cv2.warpPerspective(image, matrix, (out_w, out_h), flags=cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    moved = _warp_boxes(boxes, matrix)
    upside_down = False
    if rng.random() < settings.sideways_share:  # the whole photo on its side: every tile lies sideways
        clockwise = upside_down = rng.random() < 0.5
        picture = np.ascontiguousarray(np.rot90(picture, -1 if clockwise else 1))
        x1, y1, x2, y2 = (moved[:, i].copy() for i in range(4))
        if clockwise:
            moved = np.stack([out_h - y2, x1, out_h - y1, x2], axis=1)
        else:
            moved = np.stack([y1, out_w - x2, y2, out_w - x1], axis=1)
    ph, pw = picture.shape[:2]
    light = np.float32(rng.uniform(0.55, 1.25)) * np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
    ramp = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(1.0, 1.25), pw if rng.random() < 0.5 else ph, dtype=np.float32)
    ramp = ramp[None, :, None] if len(ramp) == pw else ramp[:, None, None]
    picture = picture.astype(np.float32) * light * ramp
    if rng.random() < 0.35 and len(moved):  # glare on one tile
        x1, y1, x2, y2 = moved[rng.randrange(len(moved))]
        cx, cy = rng.uniform(x1, x2), rng.uniform(y1, y2)
        radius = max(4.0, (x2 - x1) * rng.uniform(0.5, 1.5))
        yy, xx = np.ogrid[:ph, :pw]
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius ** 2)).astype(np.float32)
        picture += spot[..., None] * rng.uniform(60, 200)
    picture = np.clip(picture, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        sigma = rng.uniform(0.4, 1.6)
        picture = cv2.GaussianBlur(picture, (0, 0), sigma)
    if rng.random() < 0.6:
        noise = np.random.default_rng(rng.getrandbits(32)).normal(0, rng.uniform(2, 9), picture.shape)
        picture = np.clip(picture + noise, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 95)])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    picture = picture if decoded is None else decoded
    return picture, moved.astype(np.float32), upside_down


def crops_of_copy(detector: Any, picture: np.ndarray, boxes: np.ndarray, rng: random.Random,
                  settings: CalibrateSettings = DEFAULT) -> np.ndarray:
    """Classifier crops of one copy, one per box, cut as the runtime cuts them: from the finder's box
    where it found the tile, else from the moved box with a little jitter."""
    from vision.boxes import box_iou
    from vision.crops import cut_tiles

    found, _, classes = detector.find_tiles(picture)
    if len(found):
        found = found[detector.finder.is_face(classes)]
    size = detector.model_info.classifier_imgsz
    use = boxes.copy()
    hit = np.zeros(len(boxes), bool)
    if len(found):
        iou = box_iou(boxes, found)
        best = iou.argmax(axis=1)
        hit = iou[np.arange(len(boxes)), best] >= settings.match_iou
        use[hit] = found[best[hit]]
    for k in range(len(use)):
        if not hit[k]:
            use[k] = jittered(use[k], rng)
    return cut_tiles(picture, use, size, detector.settings)


def jittered(box: np.ndarray, rng: random.Random, share: float = 0.04) -> np.ndarray:
    """`box` (x1, y1, x2, y2) with each side moved by up to `share` of the box's size, as a finder's
    boxes of a tile vary (in the box's own dtype)."""
    bw, bh = box[2] - box[0], box[3] - box[1]
    return box + np.array([rng.uniform(-share, share) * bw, rng.uniform(-share, share) * bh,
                           rng.uniform(-share, share) * bw, rng.uniform(-share, share) * bh])


def labeled_base_crops(images: Sequence[Path], size: int, settings: DetectorSettings,
                       seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(crops, canonical ids) of the labeled face tiles of base photos, cut as the runtime cuts them
    (boxes jittered a little): the other sets' faces the fine-tune must not forget."""
    from training.evaluate import read_truth
    from vision.crops import cut_tiles
    from vision.images import decode_image

    rng = random.Random(seed)
    crops, labels = [], []
    for image in images:
        try:
            picture = decode_image(image, settings, reduce_to=settings.decode_long_side).bgr
        except ValueError:
            continue
        truth = read_truth(image, picture.shape[1], picture.shape[0])
        faces = (truth.class_id != CLASS_ID[BACK]) & (truth.class_id >= 0)
        boxes = np.array([jittered(box, rng) for box in truth.xyxy[faces]], np.float32).reshape(-1, 4)
        if len(boxes):
            crops.append(cut_tiles(picture, boxes, size, settings))
            labels.append(truth.class_id[faces])
    if not crops:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64)
    return np.concatenate(crops), np.concatenate(labels).astype(np.int64)


@dataclass(frozen=True)
class LearningCrops:
    """Classifier crops (N, S, S, 3) uint8 BGR cut from the calibration photos and their copies."""

    train: np.ndarray  # the photos and their copies, each crop also turned over
    train_labels: np.ndarray  # canonical face ids
    train_ways: np.ndarray  # 1 where the crop is upside down
    check: np.ndarray  # held-out copies: the head's blend is chosen on them
    check_labels: np.ndarray


def learning_crops(detector: Any, pictures: Sequence[tuple[np.ndarray, LayoutReading]], settings: CalibrateSettings,
                   seed: int, step: Callable[[float, str], None]) -> LearningCrops:
    """The crops of every face tile of each photo and of `views` + `check_views` augmented copies of it;
    `step` is told every ten copies."""
    rng = random.Random(seed)
    train_crops, train_labels, train_ways, check_crops, check_labels = [], [], [], [], []

    total = len(pictures) * (settings.views + settings.check_views)
    done = 0
    for picture, reading in pictures:
        faces = [t for t in reading.tiles if t.expected != BACK]
        boxes = np.array([t.xyxy for t in faces], np.float32)
        labels = np.array([CLASS_ID[t.expected] for t in faces], np.int64)
        every_tile = np.array([t.xyxy for t in reading.tiles], np.float32)
        crops = crops_of_copy(detector, picture, boxes, rng, settings)  # the photo itself
        train_crops.append(crops)
        train_labels.append(labels)
        train_ways.append(np.zeros(len(labels), np.int64))
        for k in range(settings.views + settings.check_views):
            copy, moved, upside_down = augmented_copy(picture, every_tile, rng, settings)
            crops = crops_of_copy(detector, copy, moved[[t.expected != BACK for t in reading.tiles]], rng, settings)
            if k < settings.views:
                train_crops.append(crops)
                train_labels.append(labels)
                train_ways.append(np.full(len(labels), int(upside_down), np.int64))
            else:
                check_crops.append(crops)
                check_labels.append(labels)
            done += 1
            if done % 10 == 0:
                step(0.1 + 0.4 * done / total, f"  {done}/{total} augmented copies cut")
    train_x, train_y, train_w = np.concatenate(train_crops), np.concatenate(train_labels), np.concatenate(train_ways)
    # every crop turned over too: the other way up of a tile lying sideways
    train_x = np.concatenate([train_x, np.ascontiguousarray(train_x[:, ::-1, ::-1])])
    train_y, train_w = np.concatenate([train_y, train_y]), np.concatenate([train_w, 1 - train_w])
    return LearningCrops(train_x, train_y, train_w, np.concatenate(check_crops), np.concatenate(check_labels))
