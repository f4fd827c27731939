"""Photo-like rendering of a planned scene: table, tile bodies, shadows, light, camera.

The layout is drawn flat on a canvas in table-plane units (faces, the visible
side strips of the tile bodies, soft shadows), then warped into the image by
the scene's homography (`datasets.scene`) and composited over a procedural
table surface.  Light gradients, glare, blur, noise and colour jitter follow.
Labels are the plan's face boxes, so they match the pixels exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.art import FACE_SIZE, ArtSet
from datasets.scene import PlacedTile, ScenePlan, TableTile, plan_layout
from scoring.hand import Hand
from tileset.classes import BACK

Colour = tuple[int, int, int]  # BGR

IVORY_FACES: tuple[Colour, ...] = ((214, 236, 244), (240, 244, 246), (200, 228, 240), (226, 238, 238), (188, 220, 232))
JADE_FACES: tuple[Colour, ...] = ((96, 150, 40), (110, 130, 30), (120, 160, 70), (80, 110, 20))
MAX_CANVAS_SIDE = 2600


@dataclass(frozen=True)
class TileStyle:
    """How the tiles of one scene look."""

    face: Colour  # face panel colour
    body_top: Colour  # the face-side layer of the body
    back: Colour  # the back layer (and the face of a face-down tile)
    back_art: np.ndarray | None  # RGBA back artwork, or None for a plain coloured back
    split: float  # share of the body height in the face-side layer
    corner_radius: float  # in tile widths
    variant: int  # which artwork variant to use where a class has several
    sideways_turn: int  # cv2.ROTATE_* for sideways faces


def _jitter(colour: Colour, rng: random.Random, amount: int) -> Colour:
    b, g, r = (int(np.clip(c + rng.randint(-amount, amount), 0, 255)) for c in colour)
    return b, g, r


def _hsv_colour(h: float, s: float, v: float) -> Colour:
    px = np.array([[[h / 2, s * 255, v * 255]]], dtype=np.uint8)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def random_back_colour(rng: random.Random) -> Colour:
    """Solid backs as on real sets: mostly green, blue, yellow, orange; sometimes anything."""
    hue = rng.choice([120, 135, 210, 220, 50, 30, 160, 190, 0, 280, rng.uniform(0, 360)])
    return _hsv_colour((hue + rng.uniform(-12, 12)) % 360, rng.uniform(0.45, 0.95), rng.uniform(0.35, 0.92))


def draw_style(art: ArtSet, rng: random.Random) -> TileStyle:
    if art.name == "kde-jade":
        face = _jitter(rng.choice(JADE_FACES), rng, 15)
    elif art.panel:
        face = panel_colour(art)
    else:
        face = _jitter(rng.choice(IVORY_FACES), rng, 10)
    back_art = None
    if art.backs and rng.random() < 0.5:
        back_art = rng.choice(art.backs)
    back = random_back_colour(rng)
    if back_art is not None and back_art[..., 3].mean() > 200:  # opaque back art sets the body colour
        blue, green, red = (int(v) for v in back_art[..., :3].reshape(-1, 3).mean(axis=0))
        back = (blue, green, red)
    split = rng.choice([rng.uniform(0.3, 0.7), 1.0]) if rng.random() < 0.85 else 0.0
    return TileStyle(
        face=face,
        body_top=_shade(face, rng.uniform(0.82, 0.95)),
        back=back,
        back_art=back_art,
        split=split,
        corner_radius=rng.uniform(0.04, 0.14),
        variant=rng.randrange(8),
        sideways_turn=rng.choice([cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE]),
    )


def panel_colour(art: ArtSet) -> Colour:
    """The face-panel colour of a set whose faces carry their own panel: the median of their corners."""
    corners = [img[8:20, 8:20, :3].reshape(-1, 3) for imgs in art.faces.values() for img in imgs[:1]]
    b, g, r = np.median(np.concatenate(corners), axis=0)
    return int(b), int(g), int(r)


def _shade(colour: Colour, factor: float) -> Colour:
    b, g, r = (int(min(255, c * factor)) for c in colour)
    return b, g, r


# --- faces ----------------------------------------------------------------------------


def _bevel(width: int, height: int, strength: float) -> np.ndarray:
    """A multiplicative shading map: faces darken a little towards their rims."""
    x = np.minimum(np.arange(width), np.arange(width)[::-1]) / max(1, width)
    y = np.minimum(np.arange(height), np.arange(height)[::-1]) / max(1, height)
    edge = np.minimum(x[None, :] * width, y[:, None] * height) / max(1.0, 0.12 * width)
    return (1.0 - strength * np.clip(1.0 - edge, 0, 1) ** 2).astype(np.float32)[..., None]


def face_pixels(art: ArtSet, cls: str, style: TileStyle, size: tuple[int, int], rng: random.Random) -> np.ndarray:
    """The face of one tile (BGR, `size` = (w, h) of an upright tile)."""
    w, h = size
    panel = np.empty((FACE_SIZE[1], FACE_SIZE[0], 3), np.float32)
    if cls == BACK:
        panel[:] = style.back
        art_image = style.back_art
    else:
        panel[:] = style.face
        variants = art.faces[cls]
        art_image = variants[style.variant % len(variants)]
    if art_image is not None:
        alpha = art_image[..., 3:4].astype(np.float32) / 255.0
        glyph = art_image[..., :3].astype(np.float32)
        if cls == BACK and art_image[..., 3].mean() <= 200:  # stripes: a darker shade of the back colour
            glyph = panel * 0.45
        panel = panel * (1 - alpha) + glyph * alpha
    panel *= _bevel(FACE_SIZE[0], FACE_SIZE[1], rng.uniform(0.05, 0.2))
    return cv2.resize(np.clip(panel, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_AREA)


# --- the flat canvas ------------------------------------------------------------------


@dataclass(frozen=True)
class Canvas:
    image: np.ndarray  # HxWx4 uint8 (BGRA; alpha carries shadows too)
    to_canvas: np.ndarray  # 3x3 table units -> canvas pixels


def _canvas_scale(plan: ScenePlan, bounds: np.ndarray) -> float:
    """Canvas pixels per tile width: about the largest size a tile width gets in the image."""
    h = plan.camera.homography
    pts = np.array([[x, y] for x in bounds[:, 0] for y in bounds[:, 1]], dtype=np.float64)

    def project(p: np.ndarray) -> np.ndarray:
        q = np.c_[p, np.ones(len(p))] @ h.T
        return q[:, :2] / q[:, 2:3]

    unit = np.linalg.norm(project(pts + np.array([1.0, 0.0])) - project(pts), axis=1).max()
    extent = float(max(bounds[1, 0] - bounds[0, 0], bounds[1, 1] - bounds[0, 1]))
    return float(min(unit * 1.15, MAX_CANVAS_SIDE / extent))


def _hull(*rects: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.concatenate(rects).astype(np.float32)).reshape(-1, 2)


def _fill(img: np.ndarray, poly: np.ndarray, colour: Sequence[int]) -> None:
    cv2.fillConvexPoly(img, np.round(poly * 16).astype(np.int32), tuple(int(c) for c in colour), cv2.LINE_AA, shift=4)


def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    r = max(0, min(radius, w // 2, h // 2))
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _paste(canvas: np.ndarray, pixels: np.ndarray, mask: np.ndarray, corners: np.ndarray) -> None:
    """Put a face (pixels + rounded mask) onto the canvas quad `corners` (TL, TR, BR, BL)."""
    h, w = canvas.shape[:2]
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    fh, fw = mask.shape
    src = np.array([[0, 0], [fw, 0], [fw, fh]], np.float32)
    dst = (corners[:3] - (x0, y0)).astype(np.float32)
    affine = cv2.getAffineTransform(src, dst)
    size = (int(x1 - x0), int(y1 - y0))
    face = cv2.warpAffine(pixels, affine, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(mask, affine, size, flags=cv2.INTER_LINEAR, borderValue=0)
    region = canvas[y0:y1, x0:x1]
    a = alpha[..., None].astype(np.float32) * (1 / 255)
    region[..., :3] = (face * a + region[..., :3] * (1 - a)).astype(np.uint8)
    region[..., 3] = np.maximum(region[..., 3], alpha)


def draw_canvas(plan: ScenePlan, art: ArtSet, style: TileStyle, rng: random.Random) -> Canvas:
    tiles = plan.table_tiles
    pad = plan.thickness * 2.5
    corners = np.concatenate([t.corners for t in tiles])
    bounds = np.array([corners.min(axis=0) - pad, corners.max(axis=0) + pad])
    ppu = _canvas_scale(plan, bounds)
    w = math.ceil((bounds[1, 0] - bounds[0, 0]) * ppu)
    h = math.ceil((bounds[1, 1] - bounds[0, 1]) * ppu)
    to_canvas = np.array([[ppu, 0, -bounds[0, 0] * ppu], [0, ppu, -bounds[0, 1] * ppu], [0, 0, 1]], dtype=np.float64)

    def px(t: TableTile) -> np.ndarray:
        return t.corners * ppu - bounds[0] * ppu

    nadir = np.array(plan.camera.nadir)
    body_offsets = {id(t): (nadir - (t.corners.mean(axis=0))) * plan.thickness / plan.camera.height for t in tiles}

    # shadows: the body footprints pushed away from the light, blurred (drawn at a quarter size: they are soft)
    light = np.array([rng.uniform(-1, 1), rng.uniform(-1, 0.6)]) * plan.thickness * rng.uniform(0.3, 1.0)
    q = 0.25
    shadow: np.ndarray = np.zeros((int(h * q) + 1, int(w * q) + 1), np.uint8)
    for t in tiles:
        base = px(t) + body_offsets[id(t)] * ppu
        _fill(shadow, _hull(base, base + light * ppu, px(t)) * q, (255,))
    k = int(ppu * q * rng.uniform(0.15, 0.45)) | 1
    shadow = cv2.resize(cv2.GaussianBlur(shadow, (k, k), 0), (w, h), interpolation=cv2.INTER_LINEAR)
    canvas = np.zeros((h, w, 4), np.uint8)
    canvas[..., 3] = cv2.convertScaleAbs(shadow, alpha=rng.uniform(0.25, 0.6))

    face_cache: dict[tuple[str, bool], np.ndarray] = {}
    mask_cache: dict[tuple[int, int], np.ndarray] = {}
    radius = int(style.corner_radius * ppu)
    order = sorted(tiles, key=lambda t: (round(t.y1, 1), -abs((t.x0 + t.x1) / 2 - nadir[0])))
    side_dark = rng.uniform(0.7, 0.9)
    upper, lower = _shade(style.body_top, side_dark), _shade(style.back, side_dark)
    for t in order:
        face = px(t)
        base = face + body_offsets[id(t)] * ppu
        top_layer, bottom_layer = (lower, upper) if t.cls == BACK else (upper, lower)
        _fill(canvas, _hull(face, base), (*bottom_layer, 255))
        if style.split > 0:
            _fill(canvas, _hull(face, face + (base - face) * style.split), (*top_layer, 255))
        fw = max(2, round((t.x1 - t.x0) * ppu))
        fh = max(2, round((t.y1 - t.y0) * ppu))
        key = (t.cls, t.sideways)
        if key not in face_cache:
            size = (fh, fw) if t.sideways else (fw, fh)
            pixels = face_pixels(art, t.cls, style, size, rng)
            face_cache[key] = cv2.rotate(pixels, style.sideways_turn) if t.sideways else pixels
        pixels = face_cache[key]
        if pixels.shape[:2] != (fh, fw):
            pixels = cv2.resize(pixels, (fw, fh))
        if (fw, fh) not in mask_cache:
            mask_cache[(fw, fh)] = _rounded_mask(fw, fh, radius)
        _paste(canvas, pixels, mask_cache[(fw, fh)], face)
    return Canvas(canvas, to_canvas)


# --- the table ----------------------------------------------------------------------


def _smooth_noise(rng: np.random.Generator, width: int, height: int, cells: int) -> np.ndarray:
    """Low-frequency noise in [-1, 1] at full size."""
    gw, gh = max(2, cells), max(2, int(cells * height / width) + 1)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    out = cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC)
    return out / (np.abs(out).max() + 1e-6)


def _felt(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> np.ndarray:
    hue = rng.choice([120, 130, 140, 200, 215, 230, 0, 30, 270, 180, rng.uniform(0, 360)])
    base = np.array(_hsv_colour(hue, rng.uniform(0.3, 0.9), rng.uniform(0.25, 0.7)), np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img *= 1 + 0.12 * _smooth_noise(nrng, w, h, rng.randint(3, 8))[..., None]
    return img


def _wood(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Wood: broad colour bands plus fine grain lines along one direction, sometimes planks."""
    base = np.array(_hsv_colour(rng.uniform(15, 40), rng.uniform(0.35, 0.8), rng.uniform(0.3, 0.85)), np.float32)
    dark = base * rng.uniform(0.55, 0.8)
    angle = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along = xx * math.cos(angle) + yy * math.sin(angle)
    across = -xx * math.sin(angle) + yy * math.cos(angle)
    warp = _smooth_noise(nrng, w, h, rng.randint(2, 5)) * rng.uniform(5, 25)
    broad = np.sin((across + warp) * rng.uniform(0.02, 0.06)) * 0.5 + 0.5
    fine = np.sin((across + warp * 1.7 + 0.01 * along) * rng.uniform(0.4, 1.2)) * 0.5 + 0.5
    t = np.clip(0.6 * broad ** 2 + 0.4 * fine ** 4, 0, 1)[..., None] * rng.uniform(0.4, 0.9)
    img = base * (1 - t) + dark * t
    if rng.random() < 0.5:  # planks
        period = rng.uniform(0.15, 0.4) * max(w, h)
        seam = (np.abs(across % period) < 1.0)[..., None]
        img = np.where(seam, img * 0.6, img)
    return img


def _cloth(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(0.05, 0.8), rng.uniform(0.3, 0.95)), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = rng.uniform(1.5, 4.0)
    weave = (np.sin(xx * math.pi / p) * np.sin(yy * math.pi / p))[..., None]
    img = base * (1 + 0.08 * weave)
    if rng.random() < 0.4:  # plaid stripes
        other = np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.9)), np.float32)
        period = rng.uniform(30, 160)
        stripes = ((xx % period < period * 0.25) | (yy % period < period * 0.25))[..., None]
        img = np.where(stripes, img * 0.5 + other * 0.5, img)
    img *= 1 + 0.1 * _smooth_noise(nrng, w, h, rng.randint(2, 6))[..., None]
    return img


def _paper(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(0.0, 0.25), rng.uniform(0.6, 0.97)), np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img *= 1 + 0.06 * _smooth_noise(nrng, w, h, rng.randint(20, 60))[..., None]
    img *= 1 + 0.08 * _smooth_noise(nrng, w, h, rng.randint(2, 5))[..., None]
    return img


def _stone(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(0.0, 0.3), rng.uniform(0.3, 0.9)), np.float32)
    veins = np.abs(_smooth_noise(nrng, w, h, rng.randint(4, 10)) + 0.4 * _smooth_noise(nrng, w, h, rng.randint(10, 30)))
    t = np.clip(1 - veins * rng.uniform(6, 14), 0, 1)[..., None]
    mottle = 1 + 0.06 * _smooth_noise(nrng, w, h, rng.randint(20, 50))[..., None]
    return base * (1 - rng.uniform(0.1, 0.3) * t) * mottle


TABLES: dict[str, Callable[[random.Random, np.random.Generator, int, int], np.ndarray]] = {
    "felt": _felt, "wood": _wood, "cloth": _cloth, "paper": _paper, "stone": _stone,
}
TABLE_WEIGHTS = {"felt": 0.4, "wood": 0.25, "cloth": 0.15, "paper": 0.1, "stone": 0.1}


TABLE_GRAIN = {"felt": 0.35, "wood": 0.15, "cloth": 0.2, "paper": 0.12, "stone": 0.2}  # fine texture strength
TABLE_SCALE = {"felt": 4, "wood": 3, "cloth": 2, "paper": 4, "stone": 4}  # drawn at 1/n size


def draw_table(rng: random.Random, nrng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A table surface (uint8 BGR), drawn small for speed and scaled up."""
    kind = rng.choices(list(TABLE_WEIGHTS), weights=list(TABLE_WEIGHTS.values()))[0]
    n = TABLE_SCALE[kind]
    small = np.clip(TABLES[kind](rng, nrng, width // n + 1, height // n + 1), 0, 255).astype(np.uint8)
    table = cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
    return _add_noise(rng, table, TABLE_GRAIN[kind] * rng.uniform(0.3, 1.0), grey=rng.random() < 0.7)


# --- things on the table that are not tiles -------------------------------------------------


def _metal(rng: random.Random) -> Colour:
    return rng.choice([(40, 160, 205), (190, 190, 195), (60, 110, 180), (30, 120, 150)])


def _coin(rng: random.Random, image: np.ndarray, centre: tuple[int, int], size: float) -> None:
    r = max(3, int(size * rng.uniform(0.35, 0.6)))
    colour = _metal(rng) if rng.random() < 0.6 else random_back_colour(rng)
    cv2.circle(image, (centre[0] + r // 5, centre[1] + r // 5), r, (20, 20, 20), -1, cv2.LINE_AA)  # shadow
    cv2.circle(image, centre, r, colour, -1, cv2.LINE_AA)
    cv2.circle(image, centre, int(r * rng.uniform(0.6, 0.85)), _shade(colour, 0.8), max(1, r // 8), cv2.LINE_AA)
    if rng.random() < 0.5:  # a chip's edge marks
        for k in range(6):
            a = k * math.pi / 3 + rng.uniform(0, 0.5)
            p = (int(centre[0] + r * 0.9 * math.cos(a)), int(centre[1] + r * 0.9 * math.sin(a)))
            cv2.circle(image, p, max(1, r // 6), (240, 240, 240), -1, cv2.LINE_AA)


def _card(rng: random.Random, image: np.ndarray, centre: tuple[int, int], size: float) -> None:
    w, h = size * rng.uniform(1.8, 3.0), size * rng.uniform(2.6, 4.2)
    box = cv2.boxPoints(((centre[0], centre[1]), (w, h), rng.uniform(0, 180))).astype(np.int32)
    colour = random_back_colour(rng) if rng.random() < 0.7 else (235, 235, 235)
    cv2.fillConvexPoly(image, box + int(size * 0.08), (25, 25, 25), cv2.LINE_AA)
    cv2.fillConvexPoly(image, box, colour, cv2.LINE_AA)
    inner = ((box - np.array(centre)) * 0.8 + np.array(centre)).astype(np.int32)
    cv2.polylines(image, [inner], True, _shade(colour, 0.6), max(1, int(size * 0.05)), cv2.LINE_AA)


def _stick(rng: random.Random, image: np.ndarray, centre: tuple[int, int], size: float) -> None:
    """Scoring sticks, pens: long thin bars."""
    length, width = size * rng.uniform(3, 7), max(2.0, size * rng.uniform(0.1, 0.25))
    box = cv2.boxPoints(((centre[0], centre[1]), (length, width), rng.uniform(0, 180))).astype(np.int32)
    colour = (235, 235, 235) if rng.random() < 0.5 else random_back_colour(rng)
    cv2.fillConvexPoly(image, box, colour, cv2.LINE_AA)
    if rng.random() < 0.5:
        cv2.circle(image, tuple(int(v) for v in box.mean(axis=0)), max(1, int(width * 0.4)), (40, 40, 200), -1, cv2.LINE_AA)


def _die(rng: random.Random, image: np.ndarray, centre: tuple[int, int], size: float) -> None:
    side = size * rng.uniform(0.5, 0.8)
    box = cv2.boxPoints(((centre[0], centre[1]), (side, side), rng.uniform(0, 90))).astype(np.int32)
    colour = (240, 240, 240) if rng.random() < 0.7 else random_back_colour(rng)
    cv2.fillConvexPoly(image, box + int(side * 0.12), (25, 25, 25), cv2.LINE_AA)
    cv2.fillConvexPoly(image, box, colour, cv2.LINE_AA)
    pip = (20, 20, 20) if colour[0] > 128 else (240, 240, 240)
    for _ in range(rng.randint(1, 6)):
        p = box.mean(axis=0) + np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)]) * side
        cv2.circle(image, (int(p[0]), int(p[1])), max(1, int(side * 0.08)), pip, -1, cv2.LINE_AA)


# pip places of a die's faces, as fractions of its side from the centre
PIPS = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


def _dice_cube(rng: random.Random, image: np.ndarray, centre: tuple[int, int], size: float) -> None:
    """A die seen from above: rounded, its top face's pips in their usual places (the one and the four red, as on
    Chinese dice), and a sliver of its sides towards the camera."""
    side = size * rng.uniform(0.45, 0.9)
    angle = rng.uniform(0, 90)
    body = cv2.boxPoints(((centre[0], centre[1] + side * 0.12), (side, side), angle)).astype(np.int32)
    top = cv2.boxPoints(((centre[0], centre[1]), (side, side), angle)).astype(np.int32)
    white = rng.random() < 0.8
    colour = _jitter((238, 240, 240), rng, 12) if white else random_back_colour(rng)
    cv2.fillConvexPoly(image, body + int(side * 0.1), (25, 25, 25), cv2.LINE_AA)  # shadow
    cv2.fillConvexPoly(image, body, _shade(colour, 0.7), cv2.LINE_AA)
    cv2.fillConvexPoly(image, top, colour, cv2.LINE_AA)
    value = rng.randint(1, 6)
    pip = (25, 25, 25) if white else (240, 240, 240)
    red = (40, 40, 200)
    rot = np.radians(angle)
    axes = np.array([[math.cos(rot), math.sin(rot)], [-math.sin(rot), math.cos(rot)]]) * side * 0.27
    for u, v in PIPS[value]:
        p = np.array(centre, dtype=float) + u * axes[0] + v * axes[1]
        radius = side * (0.17 if value == 1 else 0.085)
        cv2.circle(image, (int(p[0]), int(p[1])), max(1, int(radius)), red if value in (1, 4) else pip, -1, cv2.LINE_AA)


CLUTTER = (_coin, _card, _stick, _die)
BESIDE = (_die, _dice_cube, _dice_cube, _coin)  # what players leave beside a finished hand: mostly dice


def draw_clutter(rng: random.Random, image: np.ndarray, tile_size: float) -> None:
    """Coins, chips, cards, sticks and dice on the table (drawn under the tiles), in place."""
    if rng.random() > 0.35:
        return
    h, w = image.shape[:2]
    for _ in range(rng.randint(1, 5)):
        rng.choice(CLUTTER)(rng, image, (rng.randrange(w), rng.randrange(h)), tile_size * rng.uniform(0.8, 1.5))


def draw_beside(rng: random.Random, image: np.ndarray, tiles: Sequence[PlacedTile], tile_size: float) -> None:
    """1-3 dice (or a coin) lying close beside the tiles, in the gaps and just off the rows (drawn under the tiles),
    in place: there a die boxed as a tile joins a row or lies apart like a flower."""
    h, w = image.shape[:2]
    for _ in range(rng.randint(1, 3)):
        x0, y0, x1, y1 = rng.choice(tiles).xyxy
        angle = rng.uniform(0, 2 * math.pi)
        reach = rng.uniform(0.6, 2.2) * tile_size
        x = int(np.clip((x0 + x1) / 2 + reach * math.cos(angle), 0, w - 1))
        y = int(np.clip((y0 + y1) / 2 + reach * 1.3 * math.sin(angle), 0, h - 1))
        rng.choice(BESIDE)(rng, image, (x, y), tile_size * rng.uniform(0.8, 1.3))


# --- light and camera -------------------------------------------------------------------

_NOISE_BANK: np.ndarray | None = None
NOISE_BANK_SIDE = 1700


def _noise_bank() -> np.ndarray:
    """Sensor noise (uint8, 128 = none), made once per process from a fixed seed; scenes crop it."""
    global _NOISE_BANK
    if _NOISE_BANK is None:
        bank = np.random.default_rng(20261130).normal(128, 24, (NOISE_BANK_SIDE, NOISE_BANK_SIDE, 3))
        _NOISE_BANK = np.clip(bank, 0, 255).astype(np.uint8)
    return _NOISE_BANK


def _light(rng: random.Random, width: int, height: int) -> np.ndarray:
    """A smooth light field with a colour cast, as uint8 gains (128 = 1.0), full size."""
    yy, xx = np.mgrid[0:height:16, 0:width:16].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx * math.cos(angle) + yy * math.sin(angle)) / max(width, height)
    field = 1 + rng.uniform(-0.35, 0.35) * ramp
    cx, cy = rng.uniform(0, width), rng.uniform(0, height)
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (max(width, height) ** 2)
    field *= 1 + rng.uniform(0.0, 0.35) * np.exp(-r2 / rng.uniform(0.05, 0.4)) - rng.uniform(0, 0.25) * r2
    if rng.random() < 0.2:  # the shadow of the phone or the hand holding it: a large soft dark patch
        sx, sy = rng.uniform(0, width), rng.uniform(0, height)
        reach = rng.uniform(0.15, 0.4) * max(width, height)
        blob = np.exp(-(((xx - sx) ** 2 + ((yy - sy) * rng.uniform(0.5, 2.0)) ** 2) / (2 * reach**2)))
        field *= 1 - rng.uniform(0.2, 0.5) * blob
    field *= rng.uniform(0.7, 1.15)
    cast = np.array([rng.uniform(0.9, 1.1) for _ in range(3)], np.float32)
    gains = np.clip(field[..., None] * cast * 128, 0, 255).astype(np.uint8)
    return cv2.resize(gains, (width, height), interpolation=cv2.INTER_LINEAR)


def _glare(rng: random.Random, image: np.ndarray, tiles: Sequence[PlacedTile]) -> None:
    """Soft specular spots, mostly on tile faces (uint8 image, in place)."""
    h, w = image.shape[:2]
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        if tiles and rng.random() < 0.7:
            x0, y0, x1, y1 = rng.choice(list(tiles)).xyxy
            cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y1)
            size = (x1 - x0) * rng.uniform(0.3, 1.0)
        else:
            cx, cy, size = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.02, 0.08) * w
        stretch = rng.uniform(0.4, 1.0)
        x0, x1 = max(0, int(cx - 2 * size / stretch)), min(w, int(cx + 2 * size / stretch) + 1)
        y0, y1 = max(0, int(cy - 2 * size)), min(h, int(cy + 2 * size) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        spot = np.exp(-(((xx - cx) * stretch) ** 2 + (yy - cy) ** 2) / (2 * (size * 0.5) ** 2))
        add = (spot * rng.uniform(30, 110))[..., None]
        image[y0:y1, x0:x1] = np.clip(image[y0:y1, x0:x1] + add, 0, 255).astype(np.uint8)


def _tone_lut(rng: random.Random) -> np.ndarray:
    """Contrast, brightness, gamma and per-channel gain as one lookup table (1x256x3)."""
    x = np.arange(256, dtype=np.float32)
    contrast, brightness, gamma = rng.uniform(0.8, 1.2), rng.uniform(-20, 20), rng.uniform(0.8, 1.25)
    channels = []
    for _ in range(3):
        y = (x - 128) * contrast + 128 + brightness
        y = 255 * (np.clip(y, 0, 255) / 255) ** gamma * rng.uniform(0.92, 1.08)
        channels.append(np.clip(y, 0, 255))
    return np.stack(channels, axis=-1).astype(np.uint8)[None]


def camera_effects(rng: random.Random, image: np.ndarray) -> np.ndarray:
    """Resolution loss, blur or shake, tone and colour jitter, sensor noise (uint8 in and out)."""
    h, w = image.shape[:2]
    softened = rng.random() < 0.2
    if softened:  # a cheaper sensor: lose resolution
        f = rng.uniform(0.4, 0.8)
        image = cv2.resize(cv2.resize(image, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA), (w, h))
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 0.8 if softened else 1.3))
    elif rng.random() < 0.2:  # hand shake
        n = rng.randint(3, 9)
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
        image = cv2.filter2D(image, -1, cv2.warpAffine(kernel, rot, (n, n)))
    image = cv2.LUT(image, _tone_lut(rng))
    return _add_noise(rng, image, rng.uniform(0.0, 0.35), grey=rng.random() < 0.5)


def _add_noise(rng: random.Random, image: np.ndarray, strength: float, grey: bool) -> np.ndarray:
    """Add a random crop of the noise bank (sigma ~ 24 * strength); grey noise or per-channel."""
    if strength < 0.04:
        return image
    h, w = image.shape[:2]
    bank = _noise_bank()
    y, x = rng.randint(0, max(0, bank.shape[0] - h)), rng.randint(0, max(0, bank.shape[1] - w))
    noise = bank[y : y + h, x : x + w]
    if noise.shape[:2] != (h, w):
        noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_NEAREST)
    if grey:
        noise = cv2.cvtColor(noise[..., :1].copy(), cv2.COLOR_GRAY2BGR)
    return cv2.addWeighted(image, 1.0, noise, strength, -128 * strength)


def _warped_box(canvas: Canvas, to_image: np.ndarray, width: int, height: int) -> tuple[int, int, int, int]:
    """The image region the warped canvas covers."""
    ch, cw = canvas.image.shape[:2]
    corners = np.array([[0, 0, 1], [cw, 0, 1], [cw, ch, 1], [0, ch, 1]], dtype=np.float64) @ to_image.T
    pts = corners[:, :2] / corners[:, 2:3]
    x0, y0 = np.clip(np.floor(pts.min(axis=0)), 0, [width, height]).astype(int)
    x1, y1 = np.clip(np.ceil(pts.max(axis=0)) + 1, 0, [width, height]).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


TableSource = Callable[[random.Random, int, int, float], np.ndarray]  # (rng, width, height, tile width px) -> BGR


def compose(
    plan: ScenePlan, art: ArtSet, style: TileStyle, rng: random.Random, nrng: np.random.Generator, effects: bool = True,
    table_source: TableSource | None = None, dice: random.Random | None = None,
) -> np.ndarray:
    """The rendered photo (uint8 BGR) of one planned scene; `effects=False` leaves out light, glare and camera.

    `table_source` (e.g. `datasets.tables.table_source`) draws the table instead of `draw_table`;
    `dice`, a generator of its own (so that the rest of the photo is drawn as without it), adds dice close
    beside the tiles (`draw_beside`)."""
    w, h = plan.width, plan.height
    tile_width = float(np.median([t.xyxy[2] - t.xyxy[0] for t in plan.tiles]))
    table = draw_table(rng, nrng, w, h) if table_source is None else table_source(rng, w, h, tile_width)
    draw_clutter(rng, table, tile_width)
    if dice is not None:
        draw_beside(dice, table, plan.tiles, tile_width)
    canvas = draw_canvas(plan, art, style, rng)
    to_image = plan.camera.homography @ np.linalg.inv(canvas.to_canvas)
    x0, y0, x1, y1 = _warped_box(canvas, to_image, w, h)
    to_roi = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ to_image
    layer = cv2.warpPerspective(canvas.image, to_roi, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    image = table
    alpha = layer[..., 3:4].astype(np.float32) * (1 / 255)
    roi = image[y0:y1, x0:x1].astype(np.float32)
    image[y0:y1, x0:x1] = (roi + (layer[..., :3] - roi) * alpha).astype(np.uint8)
    if not effects:
        return image
    return photo_effects(rng, image, plan.tiles)


def photo_effects(rng: random.Random, image: np.ndarray, tiles: Sequence[PlacedTile]) -> np.ndarray:
    """Light falling across the table, glare (on `tiles`' faces among other places), then the camera."""
    height, width = image.shape[:2]
    image = cv2.multiply(image, _light(rng, width, height), scale=1 / 128)
    _glare(rng, image, tiles)
    return camera_effects(rng, image)


def render_plan(plan: ScenePlan, art: ArtSet, rng: random.Random, effects: bool = True,
                table_source: TableSource | None = None, dice: random.Random | None = None) -> np.ndarray:
    """The photo of a planned scene: a tile style drawn for it, then the scene composed."""
    style = draw_style(art, rng)
    nrng = np.random.default_rng(rng.getrandbits(63))
    return compose(plan, art, style, rng, nrng, effects, table_source, dice)


def render_scene(
    hand: Hand, art_set: ArtSet, rng: random.Random, width: int = 1280, height: int = 960, *,
    effects: bool = True, table_source: TableSource | None = None, dice: random.Random | None = None, **variation: Any,
) -> tuple[np.ndarray, list[PlacedTile]]:
    """Render `hand` laid out as in photo-layout.md: (BGR image, tiles with their face boxes).

    `variation` overrides `SceneVariation` fields (see `plan_layout`); `effects=False`
    renders without light, glare, blur and noise (for tests and debugging); `dice`: see `compose`.
    """
    plan = plan_layout(hand, rng, width, height, **variation)
    return render_plan(plan, art_set, rng, effects, table_source, dice), list(plan.tiles)
