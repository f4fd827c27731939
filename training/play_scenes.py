"""Scenes of a club's own tiles at play, composed from its calibration photo, for the finder to learn from.

The calibration photo shows each face once, lying in rows. At the table the same tiles stand in a row seen
from a seat or from a low webcam, lie in a hand seen from above, are turned, touch and overlap, and are
partly hidden. A finder fine-tuned on copies of the layout photo alone learns rows of lying tiles; these
scenes show it the club's faces (cut from the photo) on the club's table (the photo with its tiles painted
out) the ways a game shows them. Each scene comes with the box of every tile in it that is mostly in view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

KINDS = ("standing_row", "low_webcam", "hand_from_above", "scattered")
MIN_VISIBLE = 0.5  # a tile hidden more than this by others is not labeled (the finder is not asked to box it)


@dataclass(frozen=True)
class PlayScene:
    """A composed picture and the boxes (pixels, x1 y1 x2 y2) of its face-up tiles and backs in view."""

    picture: np.ndarray
    faces: np.ndarray  # (N, 4) float32
    backs: np.ndarray  # (M, 4) float32
    kind: str


def cut_tiles(picture: np.ndarray, boxes: np.ndarray) -> list[np.ndarray]:
    """Each box's pixels (clipped to the picture; empty boxes left out)."""
    h, w = picture.shape[:2]
    out = []
    for x1, y1, x2, y2 in np.asarray(boxes, np.float64).reshape(-1, 4):
        a, b = int(max(0, np.floor(x1))), int(max(0, np.floor(y1)))
        c, d = int(min(w, np.ceil(x2))), int(min(h, np.ceil(y2)))
        if c - a >= 4 and d - b >= 4:
            out.append(np.ascontiguousarray(picture[b:d, a:c]))
    return out


def table_of(picture: np.ndarray, boxes: np.ndarray, grow_wh: tuple[float, float] = (0.3, 0.8)) -> np.ndarray:
    """The photo with its tiles painted out, the club's table: each box grown by `grow_wh` of its width and
    height, so that a standing tile's top and sides, outside its face's box, go too."""
    mask = np.zeros(picture.shape[:2], np.uint8)
    for x1, y1, x2, y2 in np.asarray(boxes, np.float64).reshape(-1, 4):
        gx, gy = (x2 - x1) * grow_wh[0], (y2 - y1) * grow_wh[1]
        cv2.rectangle(mask, (int(x1 - gx), int(y1 - gy)), (int(x2 + gx), int(y2 + gy)), 255, -1)
    small = max(1, max(picture.shape[:2]) // 400)  # inpaint at a modest size: fast, and a table is smooth
    if small > 1:
        shrunk = cv2.inpaint(cv2.resize(picture, None, fx=1 / small, fy=1 / small, interpolation=cv2.INTER_AREA),
                             cv2.resize(mask, None, fx=1 / small, fy=1 / small, interpolation=cv2.INTER_NEAREST), 5,
                             cv2.INPAINT_TELEA)
        painted = cv2.resize(shrunk, (picture.shape[1], picture.shape[0]), interpolation=cv2.INTER_LINEAR)
        return np.where(mask[..., None] > 0, painted, picture)
    return cv2.inpaint(picture, mask, 5, cv2.INPAINT_TELEA)


def _backdrop(table: np.ndarray, size_wh: tuple[int, int], rng: random.Random) -> np.ndarray:
    """A piece of the table, flipped and scaled at random, filling `size_wh`."""
    w, h = size_wh
    th, tw = table.shape[:2]
    share = rng.uniform(0.4, 1.0)
    cw, ch = max(8, int(tw * share)), max(8, int(th * share))
    x, y = rng.randint(0, tw - cw), rng.randint(0, th - ch)
    piece = table[y:y + ch, x:x + cw]
    if rng.random() < 0.5:
        piece = piece[:, ::-1]
    if rng.random() < 0.5:
        piece = piece[::-1]
    return cv2.resize(np.ascontiguousarray(piece), (w, h), interpolation=cv2.INTER_LINEAR)


def _quad_of(cx: float, cy: float, w: float, h: float, angle_deg: float) -> np.ndarray:
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float32)
    a = np.deg2rad(angle_deg)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    return corners @ turn.T + np.array([cx, cy], np.float32)


def _paste(canvas: np.ndarray, coverage: np.ndarray, tile: np.ndarray, quad: np.ndarray, index: int) -> None:
    """Warp `tile` onto `quad` of `canvas`; `coverage` records which tile each pixel shows (-1: the table)."""
    th, tw = tile.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    h, w = canvas.shape[:2]
    warped = cv2.warpPerspective(tile, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    mask = cv2.warpPerspective(np.full((th, tw), 255, np.uint8), matrix, (w, h), flags=cv2.INTER_NEAREST)
    inside = mask > 127
    canvas[inside] = warped[inside]
    coverage[inside] = index


def _layout(kind: str, count: int, size_wh: tuple[int, int], aspect: float, rng: random.Random) -> list[np.ndarray]:
    """Where `count` tiles (height / width = `aspect` upright) lie in a scene of `kind`: one quad each."""
    w, h = size_wh
    quads: list[np.ndarray] = []
    if kind in ("standing_row", "low_webcam"):
        tile_w = w * rng.uniform(0.65, 0.92) / count
        tile_h = tile_w * aspect * (rng.uniform(0.7, 1.0) if kind == "low_webcam" else rng.uniform(0.9, 1.1))
        x0, y0 = rng.uniform(0.02, 0.98 - count * tile_w / w) * w, rng.uniform(0.2, 0.75) * h
        skew = rng.uniform(-0.12, 0.12) * tile_h  # a row seen a little from the side
        lean = rng.uniform(0.0, 0.25) if kind == "low_webcam" else 0.0  # tops narrower: seen from below their faces
        for k in range(count):
            x = x0 + k * tile_w + rng.uniform(-0.03, 0.03) * tile_w
            y = y0 + skew * k / max(1, count - 1) + rng.uniform(-0.02, 0.02) * tile_h
            inset = tile_w * lean / 2
            quads.append(np.array([[x + inset, y], [x + tile_w - inset, y], [x + tile_w, y + tile_h], [x, y + tile_h]], np.float32))
        return quads
    if kind == "hand_from_above":
        tile_w = w * rng.uniform(0.55, 0.85) / (count + 3)
        tile_h = tile_w * aspect
        angle = rng.uniform(-20, 20)
        cx0, cy = rng.uniform(0.15, 0.3) * w, rng.uniform(0.3, 0.7) * h
        x = 0.0
        for k in range(count):
            gap = tile_w * rng.uniform(0.25, 0.6) if k and rng.random() < 0.2 else tile_w * rng.uniform(0.0, 0.06)
            x += gap
            a = np.deg2rad(angle)
            quads.append(_quad_of(cx0 + x * np.cos(a), cy + x * np.sin(a), tile_w, tile_h, angle))
            x += tile_w
        return quads
    # scattered: turned every way, touching and overlapping
    tile_w = min(w, h) * rng.uniform(0.08, 0.16)
    tile_h = tile_w * aspect
    for _ in range(count):
        quads.append(_quad_of(rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h, tile_w, tile_h, rng.uniform(0, 360)))
    return quads


def _light(picture: np.ndarray, rng: random.Random) -> np.ndarray:
    """Other light, blur, noise and JPEG."""
    _h, w = picture.shape[:2]
    gain = np.float32(rng.uniform(0.55, 1.3)) * np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
    ramp = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(1.0, 1.3), w, dtype=np.float32)[None, :, None]
    out: np.ndarray = picture.astype(np.float32) * gain * ramp
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.6))
    if rng.random() < 0.5:
        out += np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(2, 8), out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(55, 95)])
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
    return out if decoded is None else decoded


def compose(faces: Sequence[np.ndarray], backs: Sequence[np.ndarray], table: np.ndarray, rng: random.Random,
            size_wh: tuple[int, int] = (640, 480), kind: str | None = None) -> PlayScene:
    """One scene of `kind` (any of KINDS when None): 5-14 of the tiles (faces drawn with repeats, now and then
    a back), on a piece of `table`, in other light, with the boxes of the tiles mostly in view."""
    kind = kind or rng.choice(KINDS)
    count = rng.randint(5, 14) if kind != "scattered" else rng.randint(6, 16)
    pool = [(tile, False) for tile in faces] + [(tile, True) for tile in backs]
    chosen = [pool[rng.randrange(len(pool))] if backs and rng.random() < 0.08 else (faces[rng.randrange(len(faces))], False)
              for _ in range(count)]
    aspects = [t.shape[0] / max(1, t.shape[1]) for t, _ in chosen]
    aspect = float(np.median(aspects)) if aspects else 1.35
    aspect = aspect if aspect >= 1.0 else 1.0 / aspect  # an upright tile is taller than wide
    canvas = _backdrop(table, size_wh, rng)
    coverage = np.full(canvas.shape[:2], -1, np.int32)
    quads = _layout(kind, count, size_wh, aspect, rng)
    order = list(range(count))
    if kind == "scattered":
        rng.shuffle(order)  # later tiles cover earlier ones
    for k in order:
        tile, _ = chosen[k]
        if tile.shape[0] < tile.shape[1]:
            tile = np.ascontiguousarray(np.rot90(tile))  # cut lying on its side: stood up
        _paste(canvas, coverage, tile, quads[k], k)
    if rng.random() < 0.25:  # a hand or a sleeve across part of the view
        centre = (int(rng.uniform(0, size_wh[0])), int(size_wh[1] * rng.uniform(0.8, 1.1)))
        axes = (int(size_wh[0] * rng.uniform(0.08, 0.2)), int(size_wh[1] * rng.uniform(0.15, 0.35)))
        sleeve = np.zeros(canvas.shape[:2], np.uint8)
        cv2.ellipse(sleeve, centre, axes, rng.uniform(-30, 30), 0, 360, 255, -1)
        canvas[sleeve > 0] = [rng.randint(60, 220) for _ in range(3)]
        coverage[sleeve > 0] = -2
    face_boxes: list[tuple[float, float, float, float]] = []
    back_boxes: list[tuple[float, float, float, float]] = []
    for k in range(count):
        quad = quads[k]
        x1, y1 = np.clip(quad.min(axis=0), 0, None)
        x2, y2 = np.minimum(quad.max(axis=0), np.array(size_wh, np.float32))
        if x2 - x1 < 3 or y2 - y1 < 3:
            continue
        area = cv2.contourArea(quad.astype(np.float32))
        if area <= 0 or (coverage == k).sum() < MIN_VISIBLE * area:
            continue
        (back_boxes if chosen[k][1] else face_boxes).append((x1, y1, x2, y2))
    return PlayScene(_light(canvas, rng), np.array(face_boxes, np.float32).reshape(-1, 4),
                     np.array(back_boxes, np.float32).reshape(-1, 4), kind)


def scenes_of(picture: np.ndarray, face_boxes: np.ndarray, back_boxes: np.ndarray, count: int, rng: random.Random,
              size_wh: tuple[int, int] = (640, 480)) -> list[PlayScene]:
    """`count` scenes of the tiles of one calibration photo, on its table, the kinds in turn."""
    faces, backs = cut_tiles(picture, face_boxes), cut_tiles(picture, back_boxes)
    if not faces:
        return []
    table = table_of(picture, np.concatenate([np.asarray(face_boxes, np.float32).reshape(-1, 4),
                                              np.asarray(back_boxes, np.float32).reshape(-1, 4)]))
    return [compose(faces, backs, table, rng, size_wh, KINDS[k % len(KINDS)]) for k in range(count)]
