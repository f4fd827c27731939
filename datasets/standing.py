"""Webcam views of standing tiles: a hand stood up on the table, seen from the front and low.

The live table camera sees the tiles as a player holds them: one row of 13-14 tiles standing on
the table, faces to the camera, sometimes a few laid flat in front (the melds), sometimes a
second row further back (another hand, often its backs), sometimes a tile or two turned with
its back to the camera.  Behind them: a table surface of `datasets.tables` running off towards
a wall with shelves, books, mugs, papers and pictures, a hand or two on the table.

Every tile is a 3-D block (face, top, sides; the body in two layers, the face-side colour and
the back colour, as `datasets.render` draws them) seen by a pinhole camera a few degrees above
the row; the blocks are drawn far to near, the face artwork warped onto each face.  An id buffer
drawn alongside says how much of each face stays visible.

Labels box what the tile finder should box, as the hand scenes do: the visible face of a tile
(the face of a standing tile, the top of a tile lying flat), never its body; a tile showing its
back to the camera is a `back` boxed the same way.  A face hidden by more than half by a nearer
tile gets no label; a partly hidden face is boxed around its visible pixels.

    python -m datasets.synth --view standing --art ART --out OUT --n 300 --seed 97000000
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from datasets.art import ArtSet
from datasets.render import TileStyle, _rounded_mask, _shade, draw_style, face_pixels, photo_effects
from datasets.room import draw_mug, draw_plant, draw_shelves, draw_wall
from datasets.scene import PlacedTile, Range
from datasets.tables import TRAIN_FAMILIES, draw_hand, table_source
from scoring.hand import Hand, MeldKind
from tileset.classes import BACK, CLASS_ID
from tileset.groups import HAND as GROUP_HAND
from tileset.groups import WIN as GROUP_WIN
from tileset.groups import meld_group

SECOND_ROW = "row2"  # the group of the tiles of the row further back
WEBCAM_SIZES: tuple[tuple[int, int], ...] = ((640, 480), (800, 600), (960, 540), (1024, 576), (1280, 720), (1280, 960))
BACKGROUND_BLUR_SHARE = 0.5  # photos whose wall and shelves are out of focus
MAX_TABLE_SIDE = 1400  # the table pattern is drawn at most this large, then warped into the photo

Vec = np.ndarray  # a 3-vector: x to the right, y up, z away from the camera (tile widths)


@dataclass(frozen=True)
class StandingVariation:
    """How much standing scenes vary; lengths in tile widths, angles in degrees."""

    aspect: Range = Range(1.25, 1.45)  # face height / face width
    thickness: Range = Range(0.6, 0.85)  # body depth / face width
    gap: Range = Range(0.0, 0.05)  # between neighbours of a row
    lean_deg: Range = Range(0.0, 12.0)  # standing tiles lean back by this much
    tile_yaw_deg: float = 2.0  # each standing tile turns by up to this much about the vertical
    row_yaw_deg: Range = Range(-25.0, 25.0)  # the row turned away from facing the camera
    elevation_deg: Range = Range(7.0, 35.0)  # the camera above the row centre, seen from the row
    hfov_deg: Range = Range(50.0, 80.0)  # a webcam's field of view across the image
    aim_height: Range = Range(0.0, 1.2)  # the camera aims this many face heights above the row's foot
    camera_yaw_deg: Range = Range(-8.0, 8.0)
    roll_deg: Range = Range(-4.0, 4.0)
    fill: Range = Range(0.45, 0.95)  # share of the image's limiting side the tiles span
    margin: float = 0.03  # share of the image kept free at every border
    sorted_prob: float = 0.6  # the player sorted the hand
    win_apart_prob: float = 0.3  # the winning tile stands a little apart
    win_gap: Range = Range(0.3, 1.0)
    melds_flat_prob: float = 0.6  # melds lie flat in front (else they stand in the row)
    melds_front: Range = Range(0.4, 2.0)  # free table between the standing row and the melds' far edge
    meld_gap: Range = Range(0.2, 0.8)
    turned_prob: float = 0.3  # some standing tiles show their back
    turned_count: tuple[int, int] = (1, 3)
    second_row_prob: float = 0.35
    second_row_backs_prob: float = 0.5  # the second row shows its backs (another player's hand)
    second_row_behind: Range = Range(2.0, 10.0)  # extra table between the rows, beyond what keeps it in view
    table_beyond: Range = Range(3.0, 25.0)  # table behind the last row up to its far edge
    visible_share: float = 0.5  # a face less visible than this gets no label
    loose_prob: float = 0.0  # a few tiles lie loose in front of the row, each turned its own way
    loose_count: tuple[int, int] = (1, 4)
    finger_prob: float = 0.0  # a player's fingers over the tiles
    spine_text_prob: float = 0.0  # book spines on the shelves carry printed titles (CJK or Latin glyphs)


DEFAULT_VARIATION = StandingVariation()
# What a webcam at a table sees while the game goes on: the row turned up to 70 degrees, tiles leaning and
# turned, loose tiles in front, fingers over them, a low camera, titled books on the shelves behind.
AT_PLAY: dict[str, Any] = {
    "row_yaw_deg": Range(-70.0, 70.0), "tile_yaw_deg": 12.0, "lean_deg": Range(0.0, 25.0),
    "elevation_deg": Range(3.0, 35.0), "fill": Range(0.3, 0.95), "gap": Range(0.0, 0.25),
    "loose_prob": 0.4, "finger_prob": 0.3, "spine_text_prob": 0.7,
}
LOOSE = "loose"  # the group of tiles lying loose in front of the row
MELD_HIDES = 0.1  # flat melds in front hide at most this share of a standing face's height
MELDS_WITHIN = 3.0  # flat melds lie at most this far in front of the standing row
MIN_FLAT_VIEW_DEG = 18.0  # flat melds only where the camera sees their faces from at least this high


@dataclass(frozen=True, eq=False)
class Block:
    """One tile as a box: the face spans `along` x `up` from `origin` (its bottom-left corner as the
    face is read), the body goes `into` from the face.  `turned`: the camera sees the tile's back."""

    cls: str  # what the camera sees on the face: a face class or `back`
    group: str
    origin: Vec
    along: Vec
    up: Vec
    into: Vec
    turned: bool = False

    @property
    def face(self) -> np.ndarray:
        """The face corners TL, TR, BR, BL as the face is read (4x3)."""
        o, a, u = self.origin, self.along, self.up
        return np.array([o + u, o + u + a, o + a, o])

    @property
    def centre(self) -> Vec:
        return self.origin + (self.along + self.up + self.into) / 2


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: image point = f * (right, down) / forward + principal point."""

    position: Vec
    rotation: np.ndarray  # rows: right, down, forward (world -> camera)
    focal: float = 1.0
    principal: tuple[float, float] = (0.0, 0.0)

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return (np.atleast_2d(points) - self.position) @ self.rotation.T

    def project(self, points: np.ndarray) -> np.ndarray:
        c = self.to_camera(points)
        depth = np.maximum(c[:, 2:3], 1e-6)
        return c[:, :2] / depth * self.focal + np.array(self.principal)

    def ray(self, x: float, y: float) -> Vec:
        """The world direction seen at image point (x, y)."""
        d = np.array([(x - self.principal[0]) / self.focal, (y - self.principal[1]) / self.focal, 1.0])
        return d @ self.rotation


@dataclass(frozen=True)
class StandingPlan:
    width: int
    height: int
    blocks: tuple[Block, ...]
    camera: Camera
    rows: tuple[tuple[str, ...], ...]  # the standing rows, near first, left to right as the camera sees them
    table_far: float  # distance of the table's far edge along the rows' normal
    row_normal: Vec  # horizontal, from the rows towards the camera
    row_direction: Vec  # horizontal, along the rows to the right
    row_foot: Vec  # the near row's foot at its middle
    variation: StandingVariation = DEFAULT_VARIATION


# --- geometry -------------------------------------------------------------------------------------


def _unit(v: Sequence[float] | np.ndarray) -> Vec:
    v = np.asarray(v, np.float64)
    return v / np.linalg.norm(v)


def _turn_about_y(v: Vec, degrees: float) -> Vec:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2]])


def look_at(position: Vec, target: Vec, roll_deg: float = 0.0) -> Camera:
    """A camera at `position` looking at `target`, level but for `roll_deg`."""
    forward = _unit(target - position)
    right = _unit(np.cross([0.0, 1.0, 0.0], forward))
    down = np.cross(right, forward)
    a = math.radians(roll_deg)
    right, down = right * math.cos(a) + down * math.sin(a), down * math.cos(a) - right * math.sin(a)
    return Camera(np.asarray(position, np.float64), np.array([right, down, forward]))


def standing_row(names: Sequence[str], group_of: Callable[[int], str], start: Vec, direction: Vec, toward: Vec,
                 aspect: float, thickness: float, rng: random.Random, var: StandingVariation,
                 turned: frozenset[int] = frozenset(), apart: dict[int, float] | None = None) -> tuple[list[Block], Vec]:
    """Tiles standing side by side from `start` along `direction`, faces towards `toward` (horizontal
    unit vectors); returns the blocks and the point after the last.  `apart[i]`: extra gap before tile i."""
    lean = math.radians(var.lean_deg.draw(rng))
    blocks = []
    x = np.asarray(start, np.float64)
    for i, name in enumerate(names):
        if i:
            x = x + direction * (max(0.0, var.gap.draw(rng)) + (apart or {}).get(i, 0.0))
        yaw = rng.uniform(-var.tile_yaw_deg, var.tile_yaw_deg)
        along, normal = _turn_about_y(direction, yaw), _turn_about_y(toward, yaw)
        up = np.array([0.0, math.cos(lean), 0.0]) - normal * math.sin(lean)
        is_turned = i in turned
        blocks.append(Block(BACK if is_turned else name, group_of(i), x.copy(), along, up * aspect,
                            -normal * thickness, is_turned))
        x = x + direction * 1.0
    return blocks, x


def flat_row(names: Sequence[str], group: str, start: Vec, direction: Vec, toward: Vec, aspect: float,
             thickness: float, rng: random.Random, var: StandingVariation) -> tuple[list[Block], Vec]:
    """Tiles lying face up side by side from `start` (their near edge), tops away from `toward`."""
    blocks = []
    x = np.asarray(start, np.float64)
    for i, name in enumerate(names):
        if i:
            x = x + direction * max(0.0, var.gap.draw(rng))
        origin = x + np.array([0.0, thickness, 0.0])
        blocks.append(Block(name, group, origin, direction.copy(), -toward * aspect, np.array([0.0, -thickness, 0.0])))
        x = x + direction * 1.0
    return blocks, x


def _meld_names(hand: Hand) -> list[list[str]]:
    groups = []
    for meld in hand.melds:
        names = [str(t) for t in meld.tiles]
        if meld.kind is MeldKind.KONG and meld.concealed:
            names = [BACK, names[1], names[2], BACK]
        groups.append(sorted(names, key=CLASS_ID.__getitem__) if meld.kind is MeldKind.CHOW else names)
    return groups


def _hand_order(names: list[str], rng: random.Random, var: StandingVariation) -> list[str]:
    if rng.random() < var.sorted_prob:
        return sorted(names, key=CLASS_ID.__getitem__)
    rng.shuffle(names)
    return names


def plan_standing(hand: Hand, rng: random.Random, width: int, height: int, other: Hand | None = None,
                  **variation: Any) -> StandingPlan:
    """Where every tile of `hand` (and of `other`, a second row further back) stands, and the camera.

    `variation` overrides `StandingVariation` fields; a number fixes a range (`row_yaw_deg=0`)."""
    if width < 64 or height < 64:
        raise ValueError(f"image size {width}x{height} is too small for a standing scene")
    var = _variation(variation)
    aspect, thickness = var.aspect.draw(rng), var.thickness.draw(rng)
    direction = _unit(_turn_about_y(np.array([1.0, 0.0, 0.0]), var.row_yaw_deg.draw(rng)))
    toward = np.array([direction[2], 0.0, -direction[0]])  # horizontal, towards the camera side
    focal = width / 2 / math.tan(math.radians(var.hfov_deg.draw(rng)) / 2)
    fill = var.fill.draw(rng)
    elevation = math.tan(math.radians(var.elevation_deg.draw(rng)))
    groups = _meld_names(hand)
    meld_span = sum(len(g) for g in groups) + var.meld_gap.high * max(0, len(groups) - 1)
    extent = max(len(hand.concealed) + 1.0, meld_span)

    # a first guess of the camera distance: the row spans `fill` of the image's width
    row_distance = extent * focal / (fill * width)
    camera_height = row_distance * elevation
    # melds lie flat in front only where the camera looks down enough for them to hide at most
    # `MELD_HIDES` of the standing faces from no further than `MELDS_WITHIN` in front of the row
    meld_far = row_distance * (camera_height - thickness) / max(camera_height - MELD_HIDES * aspect, 1e-6)
    flat_melds = (bool(hand.melds) and rng.random() < var.melds_flat_prob and camera_height > thickness * 1.5
                  and meld_far > row_distance - MELDS_WITHIN
                  and camera_height > (row_distance - MELDS_WITHIN) * math.tan(math.radians(MIN_FLAT_VIEW_DEG)))
    standing = [str(t) for t in hand.concealed]
    if not flat_melds:
        standing += [str(t) for meld in hand.melds for t in meld.tiles]
    standing = _hand_order(standing, rng, var)
    apart = {}
    if rng.random() < var.win_apart_prob:
        apart[len(standing)] = var.win_gap.draw(rng)
    standing.append(str(hand.win_tile))
    turned: frozenset[int] = frozenset()
    if rng.random() < var.turned_prob:
        turned = frozenset(rng.sample(range(len(standing)), min(len(standing), rng.randint(*var.turned_count))))
    length = len(standing) + sum(apart.values())
    foot = np.zeros(3)  # the near row's foot, middle
    win_index = len(standing) - 1
    blocks, _ = standing_row(standing, lambda i: GROUP_WIN if i == win_index and apart else GROUP_HAND,
                             foot - direction * length / 2, direction, toward, aspect, thickness, rng, var, turned, apart)
    rows = [tuple(b.cls for b in blocks)]

    if flat_melds:
        front = max(row_distance - meld_far, var.melds_front.draw(rng))  # from the row's foot to the melds' far edge
        x = foot + toward * (front + aspect) - direction * (meld_span / 2 + rng.uniform(-2.0, 2.0))
        rng.shuffle(groups)
        for i, names in enumerate(groups):
            placed, x = flat_row(names, meld_group(i), x, direction, toward, aspect, thickness, rng, var)
            blocks += placed
            x = x + direction * var.meld_gap.draw(rng)

    if var.loose_prob > 0 and rng.random() < var.loose_prob:
        faces = [str(t) for t in hand.concealed_with_win]
        for _ in range(rng.randint(*var.loose_count)):
            turn = _unit(_turn_about_y(direction, rng.uniform(-90.0, 90.0)))
            start = foot + direction * rng.uniform(-length / 2, length / 2) + toward * (aspect + rng.uniform(0.4, 2.5))
            loose, _ = flat_row([rng.choice(faces)], LOOSE, start, turn, np.array([turn[2], 0.0, -turn[0]]),
                                aspect, thickness, rng, var)
            blocks += loose

    last_row = thickness + aspect * 0.3  # how far behind the near row's foot the last tiles reach
    top = aspect + thickness * 0.3
    if other is not None and rng.random() < var.second_row_prob and camera_height > top * 1.25:
        behind_top = row_distance + thickness + aspect * 0.25
        clear = behind_top * camera_height / (camera_height - top)  # nearer than this, row 1 hides its foot
        gap = clear - row_distance + var.second_row_behind.draw(rng)
        names = _hand_order([str(t) for t in other.concealed_with_win][:13], rng, var)
        backs = rng.random() < var.second_row_backs_prob
        start = foot - toward * gap - direction * (len(names) / 2 + rng.uniform(-3.0, 3.0))
        far, _ = standing_row(names, lambda i: SECOND_ROW, start, direction, toward, aspect, thickness, rng, var,
                              frozenset(range(len(names))) if backs else frozenset())
        blocks += far
        rows.append(tuple(b.cls for b in far))
        last_row = gap + thickness + aspect * 0.3

    aim_height = var.aim_height.draw(rng) * aspect
    yaw, roll = var.camera_yaw_deg.draw(rng), var.roll_deg.draw(rng)
    camera = _fit(foot, toward * row_distance + np.array([0.0, camera_height, 0.0]), aim_height, yaw, roll, focal,
                  blocks, width, height, fill, var.margin, rng)
    table_far = float((camera.position - foot) @ toward) + last_row + var.table_beyond.draw(rng)
    return StandingPlan(width, height, tuple(blocks), camera, tuple(rows), table_far, toward, direction, foot, var)


def _variation(overrides: dict[str, Any]) -> StandingVariation:
    unknown = set(overrides) - set(StandingVariation.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown standing variation(s): {', '.join(sorted(unknown))}")
    fixed: dict[str, Any] = {k: Range(float(v), float(v)) if isinstance(v, (int, float)) and isinstance(getattr(DEFAULT_VARIATION, k), Range)
             else v for k, v in overrides.items()}
    return replace(DEFAULT_VARIATION, **fixed)


def _corners(block: Block) -> np.ndarray:
    face = block.face
    return np.concatenate([face, face + block.into])


def _aimed(foot: Vec, offset: Vec, aim_height: float, yaw_deg: float, roll_deg: float) -> Camera:
    """A camera at `foot + offset` aiming at `aim_height` above the foot, turned by `yaw_deg` and `roll_deg`."""
    position = foot + offset
    aim = foot + np.array([0.0, aim_height, 0.0])
    aim = position + _turn_about_y(aim - position, yaw_deg)
    return look_at(position, aim, roll_deg)


FIT_STEPS = 12


def _fit(foot: Vec, offset: Vec, aim_height: float, yaw_deg: float, roll_deg: float, focal: float,
         blocks: Sequence[Block], width: int, height: int, fill: float, margin: float, rng: random.Random) -> Camera:
    """The camera moved along `offset` (towards or away from the foot) until the blocks span `fill` of
    the image's limiting side at `focal`, then its principal point placed so that all of them show."""
    usable = np.array([width, height], np.float64) * (1 - 2 * margin)
    points = np.concatenate([_corners(b) for b in blocks])
    camera = _aimed(foot, offset, aim_height, yaw_deg, roll_deg)
    for _ in range(FIT_STEPS):
        camera = replace(_aimed(foot, offset, aim_height, yaw_deg, roll_deg), focal=focal)
        in_front = camera.to_camera(points)[:, 2] > 0.05
        projected = camera.project(points)
        scale = float(min(usable / (projected.max(axis=0) - projected.min(axis=0)))) * fill if in_front.all() else 0.7
        if abs(scale - 1) < 0.01:
            break
        offset = offset / min(max(scale, 0.25), 4.0) ** 0.9
    projected = camera.project(points)
    lo, hi = projected.min(axis=0), projected.max(axis=0)
    free = np.maximum(usable - (hi - lo), 0)
    offset_px = np.array([width, height]) * margin + np.array([rng.uniform(0, free[0]), rng.uniform(0, free[1])]) - lo
    return replace(camera, principal=(float(offset_px[0]), float(offset_px[1])))


# --- drawing the tiles -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Polygon:
    points: np.ndarray  # world, Nx3
    normal: Vec  # outward
    colour: tuple[int, int, int]
    is_face: bool = False


def _body(block: Block, style: TileStyle) -> list[Polygon]:
    """The top, bottom and side faces of the body in its two layers, and the far face."""
    near_colour, far_colour = (style.back, style.body_top) if block.turned else (style.body_top, style.back)
    near_share = (1.0 - style.split) if block.turned else style.split
    o, a, u, d = block.origin, block.along, block.up, block.into
    polys = []
    layers = [(0.0, near_share, near_colour), (near_share, 1.0, far_colour)]
    for k0, k1, colour in layers:
        if k1 - k0 < 1e-6:
            continue
        p0, p1 = d * k0, d * k1
        sides = {
            "top": ([o + u, o + u + a], _unit(u)),
            "bottom": ([o + a, o], -_unit(u)),
            "left": ([o, o + u], -_unit(a)),
            "right": ([o + u + a, o + a], _unit(a)),
        }
        for (e0, e1), normal in sides.values():
            polys.append(Polygon(np.array([e0 + p0, e1 + p0, e1 + p1, e0 + p1]), normal, colour))
    face = block.face
    polys.append(Polygon(face[::-1] + d, _unit(d), far_colour))
    polys.append(Polygon(face, -_unit(d), near_colour, is_face=True))
    return polys


def _shading(normal: Vec, light: Vec, ambient: float, reference: float) -> float:
    return min(1.0, (ambient + (1 - ambient) * max(0.0, float(normal @ light))) / reference)  # never past white


def _paste_face(image: np.ndarray, pixels: np.ndarray, mask: np.ndarray, quad: np.ndarray) -> None:
    """Warp a face (pixels + rounded mask) onto the image quad TL, TR, BR, BL."""
    h, w = image.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    fh, fw = mask.shape
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    warp = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
    size = (int(x1 - x0), int(y1 - y0))
    face = cv2.warpPerspective(pixels, warp, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpPerspective(mask, warp, size, flags=cv2.INTER_LINEAR, borderValue=0)[..., None] * (1 / 255)
    region = image[y0:y1, x0:x1]
    region[:] = (face * alpha + region * (1 - alpha)).astype(np.uint8)


def _fill(image: np.ndarray, quad: np.ndarray, colour: Sequence[int], antialias: bool = True) -> None:
    cv2.fillConvexPoly(image, np.round(quad * 16).astype(np.int32), tuple(int(c) for c in colour),
                       cv2.LINE_AA if antialias else cv2.LINE_8, shift=4)


def draw_blocks(image: np.ndarray, plan: StandingPlan, art: ArtSet, style: TileStyle,
                rng: random.Random) -> tuple[PlacedTile, ...]:
    """Draw the blocks far to near onto `image` (in place); the labels of the faces left visible."""
    camera = plan.camera
    h, w = image.shape[:2]
    light = _unit([rng.uniform(-1, 1), rng.uniform(1.0, 2.5), -rng.uniform(0.3, 1.5)])
    ambient = rng.uniform(0.45, 0.65)
    reference = (ambient + (1 - ambient) * max(0.0, float(plan.row_normal @ light))) / rng.uniform(0.85, 1.0)
    ids = np.zeros((h, w), np.int16)
    radius = style.corner_radius
    order = sorted(range(len(plan.blocks)), key=lambda i: -np.linalg.norm(plan.blocks[i].centre - camera.position))
    quads: dict[int, np.ndarray] = {}
    for index in order:
        block = plan.blocks[index]
        for poly in _body(block, style):
            centre = poly.points.mean(axis=0)
            if float(poly.normal @ (camera.position - centre)) <= 1e-9:
                continue  # facing away
            quad = camera.project(poly.points)
            shade = _shading(poly.normal, light, ambient, reference)
            _fill(image, quad, _shade(poly.colour, shade))
            _fill(ids, quad, (index + 1 if poly.is_face else 0,), antialias=False)
            if poly.is_face:
                quads[index] = quad
                fw = max(8, round(max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[3]))))
                fh = max(8, round(max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1]))))
                pixels = face_pixels(art, block.cls, style, (fw, fh), rng)
                pixels = np.clip(pixels.astype(np.float32) * shade, 0, 255).astype(np.uint8)
                _paste_face(image, pixels, _rounded_mask(fw, fh, int(radius * fw)), quad)
    return tuple(_label(plan.blocks[i], quads[i], ids, i + 1) for i in sorted(quads)
                 if _visible_share(quads[i], ids, i + 1) >= DEFAULT_VARIATION.visible_share)


def _visible_share(quad: np.ndarray, ids: np.ndarray, value: int) -> float:
    area = float(cv2.contourArea(quad.astype(np.float32)))
    if area < 1.0:
        return 0.0
    x0, y0, x1, y1 = _roi(quad, ids.shape)
    return float(np.count_nonzero(ids[y0:y1, x0:x1] == value)) / area


def _roi(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    h, w = shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, (w, h))
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, (w, h))
    return int(x0), int(y0), int(x1), int(y1)


FULLY_VISIBLE = 0.85  # above this, the face's corners box it (pixel edges lost to neighbours)


def _label(block: Block, quad: np.ndarray, ids: np.ndarray, value: int) -> PlacedTile:
    """The face's box: its corners' box when (nearly) all of it shows, else its visible pixels' box."""
    h, w = ids.shape
    lo, hi = np.clip(quad.min(axis=0), 0, (w, h)), np.clip(quad.max(axis=0), 0, (w, h))
    box = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
    if _visible_share(quad, ids, value) < FULLY_VISIBLE:
        x0, y0, x1, y1 = _roi(quad, ids.shape)
        ys, xs = np.nonzero(ids[y0:y1, x0:x1] == value)
        box = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))
    return PlacedTile(block.cls, block.group, False, tuple((float(x), float(y)) for x, y in quad), box)


# --- the room behind: table, wall, shelves, things --------------------------------------------------


def _table_point(plan: StandingPlan, s: float, t: float) -> Vec:
    """The table point `s` along the rows and `t` behind the near row's foot."""
    return plan.row_foot + plan.row_direction * s - plan.row_normal * t


def table_homography(plan: StandingPlan) -> np.ndarray:
    """The 3x3 map from table coordinates (s along the rows, t behind the near row's foot, 1) to image pixels."""
    camera = plan.camera
    k = np.array([[camera.focal, 0, camera.principal[0]], [0, camera.focal, camera.principal[1]], [0, 0, 1]])
    r = camera.rotation
    return k @ np.column_stack([r @ plan.row_direction, -(r @ plan.row_normal), r @ (plan.row_foot - camera.position)])


def below_horizon(plan: StandingPlan) -> np.ndarray:
    """A mask (uint8 0/255) of the pixels whose ray comes down to the table in front of the camera."""
    camera = plan.camera
    yy, xx = np.mgrid[0:plan.height, 0:plan.width].astype(np.float32)
    r = camera.rotation
    rise = (r[0, 1] * (xx - camera.principal[0]) + r[1, 1] * (yy - camera.principal[1])) / camera.focal + r[2, 1]
    return np.where(rise < -1e-4, 255, 0).astype(np.uint8)


def draw_table_plane(plan: StandingPlan, image: np.ndarray, source: Callable[..., np.ndarray],
                     rng: random.Random) -> float:
    """The table (a `datasets.tables` source) seen in perspective up to its far edge, over `image`
    in place; returns the tile width in pixels at the rows."""
    camera = plan.camera
    camera_distance = float((camera.position - plan.row_foot) @ plan.row_normal)
    camera_side = float((camera.position - plan.row_foot) @ plan.row_direction)
    tile_px = camera.focal / max(camera_distance, 1.0)
    t_far, t_near = plan.table_far - camera_distance, -camera_distance
    reach = abs(camera_side) + 1.5 * (t_far + camera_distance) * plan.width / camera.focal / 2 + 4.0
    scale = min(tile_px, MAX_TABLE_SIDE / max(2 * reach, t_far - t_near))
    pw, ph = max(16, int(2 * reach * scale)), max(16, int((t_far - t_near) * scale))
    pattern = source(rng, pw, ph, scale)
    from_pattern = np.array([[1 / scale, 0, -reach], [0, -1 / scale, t_far], [0, 0, 1]])
    warp = table_homography(plan) @ from_pattern
    size = (plan.width, plan.height)
    table = cv2.warpPerspective(pattern, warp, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mask = cv2.warpPerspective(np.full((ph, pw), 255, np.uint8), warp, size, flags=cv2.INTER_LINEAR, borderValue=0)
    mask = cv2.min(mask, below_horizon(plan))
    alpha = mask[..., None].astype(np.float32) * (1 / 255)
    image[:] = (table * alpha + image * (1 - alpha)).astype(np.uint8)
    return tile_px


def _things_on_table(plan: StandingPlan, image: np.ndarray, rng: random.Random, behind: float, far: float) -> None:
    """Mugs and plants standing on the table between `behind` and `far` (t behind the rows)."""
    camera = plan.camera
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        if far - behind < 1.0:
            return
        point = _table_point(plan, rng.uniform(-15, 15), rng.uniform(behind, far))
        (x, y), depth = camera.project(point)[0], float(camera.to_camera(point)[0, 2])
        if depth <= 0.5 or not (0 <= x < plan.width and 0 <= y < plan.height):
            continue
        size = camera.focal / depth * rng.uniform(2.5, 3.5)  # about 8 cm: three tile widths
        (draw_mug if rng.random() < 0.7 else draw_plant)(rng, image, x - size / 2, y, size)


def _shadows(plan: StandingPlan, image: np.ndarray, rng: random.Random, tile_px: float) -> None:
    """Soft shadows of the blocks on the table (in place), cast away from a light above."""
    light = _unit([rng.uniform(-1, 1), rng.uniform(1.0, 3.0), rng.uniform(-1.0, 1.0)])
    mask = np.zeros(image.shape[:2], np.uint8)
    for block in plan.blocks:
        corners = _corners(block)
        cast = corners - light[None, :] * (corners[:, 1:2] / light[1])
        points = plan.camera.project(np.concatenate([corners, cast]))
        hull = cv2.convexHull(points.astype(np.float32)).reshape(-1, 2)
        _fill(mask, hull, (255,))
    k = int(tile_px * rng.uniform(0.15, 0.5)) | 1
    shadow = cv2.GaussianBlur(mask, (k, k), 0).astype(np.float32) * (rng.uniform(0.25, 0.55) / 255)
    image[:] = (image * (1 - shadow[..., None])).astype(np.uint8)


def fingers_over(rng: random.Random, image: np.ndarray, tiles: list[PlacedTile], tile_px: float) -> list[PlacedTile]:
    """A player's hand reaching over the tiles (in place); a tile whose box the fingers cover by more than
    half loses its label, one covered less keeps it (a labeler boxes the tile it can still read)."""
    before = image.copy()
    h, w = image.shape[:2]
    if tiles:  # the hand reaches in towards one of the tiles
        x0, y0, x1, y1 = rng.choice(tiles).xyxy
        room = image[max(0, int(y0 - tile_px * 3)):h, :]
        draw_hand(rng, room, tile_px * rng.uniform(0.6, 1.0))
    else:
        draw_hand(rng, image, tile_px * rng.uniform(0.6, 1.0))
    covered = np.any(image != before, axis=2)
    kept = []
    for tile in tiles:
        x0, y0, x1, y1 = (round(v) for v in tile.xyxy)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        area = max(1, (x1 - x0) * (y1 - y0))
        if np.count_nonzero(covered[y0:y1, x0:x1]) / area <= 0.5:
            kept.append(tile)
    return kept


def render_standing(hand: Hand, art: ArtSet, rng: random.Random, width: int = 1280, height: int = 720, *,
                    other: Hand | None = None, families: Sequence[str] = TRAIN_FAMILIES, effects: bool = True,
                    **variation: Any) -> tuple[np.ndarray, list[PlacedTile], tuple[tuple[str, ...], ...]]:
    """A webcam photo of `hand` standing on a table (`other` maybe a second row further back):
    (BGR image, the labeled tiles, the standing rows' classes near first, left to right)."""
    plan = plan_standing(hand, rng, width, height, other, **variation)
    style = draw_style(art, rng)
    image = np.zeros((height, width, 3), np.uint8)
    camera_distance = float((plan.camera.position - plan.row_foot) @ plan.row_normal)
    far_depth = float(plan.camera.to_camera(_table_point(plan, 0.0, plan.table_far - camera_distance))[0, 2])
    wall_unit = plan.camera.focal / max(far_depth, 1.0) * rng.uniform(0.4, 0.9)
    draw_wall(rng, image, wall_unit)
    edge = plan.camera.project(np.array([_table_point(plan, s, plan.table_far - camera_distance) for s in (-40, 0, 40)]))
    table_top = int(np.clip(edge[:, 1].min(), 0, height - 1))
    draw_shelves(rng, image, wall_unit, table_top, plan.variation.spine_text_prob)
    tile_px = draw_table_plane(plan, image, table_source(families), rng)
    if rng.random() < BACKGROUND_BLUR_SHARE:  # the webcam focused on the tiles: the room behind is soft
        sigma = tile_px * rng.uniform(0.02, 0.08)
        image[:table_top] = cv2.GaussianBlur(image, (0, 0), sigma)[:table_top]
    behind = max(b.centre @ -plan.row_normal for b in plan.blocks) + 2.0
    _things_on_table(plan, image, rng, float(behind), plan.table_far - camera_distance - 1.0)
    if rng.random() < 0.25:  # a player's hand on the table (the table source lays more hands, books, papers)
        draw_hand(rng, image[table_top:], tile_px * rng.uniform(0.5, 0.9))
    _shadows(plan, image, rng, tile_px)
    tiles = list(draw_blocks(image, plan, art, style, rng))
    if plan.variation.finger_prob > 0 and rng.random() < plan.variation.finger_prob:
        tiles = fingers_over(rng, image, tiles, tile_px)
    if effects:
        image = photo_effects(rng, image, tiles)
    return image, tiles, plan.rows
