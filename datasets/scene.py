"""Where every tile of a laid-out hand lies in a photo: pure geometry, no pixels.

The layout follows `docs/spec/photo-layout.md`: the standing row nearest the
camera (bottom of the image) with the winning tile set apart at its right end,
the meld row above it (gaps between melds, one tile of an exposed set may lie
sideways, a concealed kong shows its two outer tiles face down), flowers as
their own group beside or above the melds.

Geometry is planned on the table plane in *tile widths* (a face-up tile is 1
wide and `aspect` deep, x to the right, y towards the camera), then mapped to
image pixels by one homography: a camera tilted towards the player (far tiles
smaller), the whole layout rotated in the picture, scaled and moved.

`plan_scene(hand, rng, width, height)` returns the `PlacedTile`s;
`plan_layout(...)` returns the whole `ScenePlan` the renderer draws from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from scoring.hand import Hand, MeldKind
from tileset.classes import BACK, FLOWER_NAMES
from tileset.groups import FLOWERS as GROUP_FLOWERS
from tileset.groups import HAND as GROUP_HAND
from tileset.groups import WIN as GROUP_WIN
from tileset.groups import meld_group


@dataclass(frozen=True)
class Range:
    """A closed interval a value is drawn from uniformly."""

    low: float
    high: float

    def draw(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high)


@dataclass(frozen=True)
class SceneVariation:
    """How much scenes vary; all distances in tile widths, angles in degrees.

    `plan_scene(..., **overrides)` replaces any field, e.g. `win_gap=Range(0, 0)`
    for a photo without the winning-tile gap.
    """

    aspect: Range = Range(1.25, 1.45)  # face depth / face width
    thickness: Range = Range(0.45, 0.75)  # tile body height / face width
    row_gap: Range = Range(-0.01, 0.06)  # between touching tiles of one row
    row_jitter: float = 0.03  # random shift of each tile across its row
    tile_angle_deg: Range = Range(0.0, 3.0)  # how untidy a scene is: tiles turn by up to this much
    win_gap: Range = Range(0.5, 1.5)
    meld_gap: Range = Range(0.3, 1.2)
    rows_gap: Range = Range(0.15, 0.9)  # between the standing row and the meld row (in face depths)
    meld_row_shift: Range = Range(-1.5, 3.0)  # x of the meld row start relative to the standing row
    sideways_prob: float = 0.45  # an exposed set shows one sideways tile
    flowers_beside_prob: float = 0.6  # flowers at the end of the meld row, else a row above
    flowers_gap: Range = Range(0.6, 2.0)
    rotation_deg: Range = Range(-15.0, 15.0)
    tilt_deg: Range = Range(0.0, 30.0)
    camera_distance: Range = Range(0.9, 2.2)  # camera distance / layout width
    fill: Range = Range(0.7, 0.98)  # share of the image's limiting side the layout spans
    margin: float = 0.02  # share of the image kept free at every border


DEFAULT_VARIATION = SceneVariation()


@dataclass(frozen=True)
class PlacedTile:
    """One tile in the image.

    `corners`: the 4 image points (x, y) of the visible face, in the order
    top-left, top-right, bottom-right, bottom-left of the tile as it lies on the
    table (the camera may rotate them).  `xyxy`: the axis-aligned box of those
    corners, what labels use.  `cls`: canonical class name (`back` when face down).
    """

    cls: str
    group: str
    sideways: bool
    corners: tuple[tuple[float, float], ...]
    xyxy: tuple[float, float, float, float]

    def to_json(self) -> dict[str, Any]:
        return {"cls": self.cls, "xyxy": [round(v, 2) for v in self.xyxy], "group": self.group, "sideways": self.sideways}


@dataclass(frozen=True)
class TableTile:
    """A tile on the table plane (tile widths): face rectangle x0,y0 .. x1,y1."""

    cls: str
    group: str
    sideways: bool
    x0: float
    y0: float
    x1: float
    y1: float
    angle: float = 0.0  # degrees the tile is turned about its centre (clockwise in the image)

    @property
    def corners(self) -> np.ndarray:
        rect = np.array([[self.x0, self.y0], [self.x1, self.y0], [self.x1, self.y1], [self.x0, self.y1]], dtype=np.float64)
        if not self.angle:
            return rect
        centre = rect.mean(axis=0)
        a = math.radians(self.angle)
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return (rect - centre) @ turn.T + centre


@dataclass(frozen=True)
class Camera:
    """The table-plane -> image homography and what the renderer needs of the view."""

    homography: np.ndarray  # 3x3, table (tile widths) -> image pixels
    nadir: tuple[float, float]  # table point straight below the camera
    height: float  # camera height above the faces, tile widths
    tilt_deg: float
    rotation_deg: float


@dataclass(frozen=True)
class ScenePlan:
    width: int
    height: int
    aspect: float
    thickness: float
    table_tiles: tuple[TableTile, ...]
    camera: Camera
    tiles: tuple[PlacedTile, ...] = field(default=())


# --- the layout on the table -----------------------------------------------------


def _row(
    specs: Sequence[tuple[str, bool]], group: str, x: float, y_near: float, aspect: float,
    rng: random.Random, var: SceneVariation, untidy: float = 0.0,
) -> tuple[list[TableTile], float]:
    """Tiles side by side from x, their near edges on y_near; returns them and the x after the last.

    `untidy`: each tile turns by up to that many degrees, with room made so turned tiles do not overlap.
    """
    tiles = []
    for i, (cls, sideways) in enumerate(specs):
        if i:
            x += max(0.0, var.row_gap.draw(rng))
        w, d = (aspect, 1.0) if sideways else (1.0, aspect)
        angle = rng.uniform(-untidy, untidy)
        room = 0.5 * d * abs(math.sin(math.radians(angle)))
        x += room
        jitter = rng.uniform(-var.row_jitter, var.row_jitter)
        tiles.append(TableTile(cls, group, sideways, x, y_near - d + jitter, x + w, y_near + jitter, angle))
        x += w + room
    return tiles, x


def _meld_specs(hand: Hand, rng: random.Random, var: SceneVariation) -> list[list[tuple[str, bool]]]:
    groups = []
    for meld in hand.melds:
        names = [str(t) for t in meld.tiles]
        if meld.kind is MeldKind.KONG and meld.concealed:
            groups.append([(BACK, False), (names[1], False), (names[2], False), (BACK, False)])
            continue
        if meld.kind is MeldKind.CHOW:
            names = sorted(names, key=lambda n: n)  # chows are shown in order
        sideways_at = rng.randrange(len(names)) if rng.random() < var.sideways_prob else -1
        groups.append([(n, i == sideways_at) for i, n in enumerate(names)])
    rng.shuffle(groups)
    return groups


def draw_flowers(count: int, rng: random.Random) -> list[str]:
    """`count` distinct flower/season classes (a hand shows each at most once)."""
    return rng.sample(FLOWER_NAMES, min(count, len(FLOWER_NAMES)))


def layout_table(hand: Hand, rng: random.Random, var: SceneVariation, aspect: float) -> list[TableTile]:
    """The hand laid out on the table plane (tile widths), standing row's near edge at y = 0."""
    untidy = var.tile_angle_deg.draw(rng)
    standing = [str(t) for t in hand.concealed]
    rng.shuffle(standing)
    tiles, x = _row([(n, False) for n in standing], GROUP_HAND, 0.0, 0.0, aspect, rng, var, untidy)
    win, _ = _row([(str(hand.win_tile), False)], GROUP_WIN, x + var.win_gap.draw(rng), 0.0, aspect, rng, var, untidy)
    tiles += win

    meld_near = -aspect - var.rows_gap.draw(rng) * aspect
    x = var.meld_row_shift.draw(rng)
    meld_row_start = x
    for i, specs in enumerate(_meld_specs(hand, rng, var)):
        placed, x = _row(specs, meld_group(i), x, meld_near, aspect, rng, var, untidy)
        tiles += placed
        x += var.meld_gap.draw(rng)

    flowers = draw_flowers(hand.context.flowers, rng)
    if flowers:
        specs = [(f, False) for f in flowers]
        if hand.melds and len(hand.melds) + len(flowers) <= 6 and rng.random() < var.flowers_beside_prob:
            placed, _ = _row(specs, GROUP_FLOWERS, x - var.meld_gap.low + var.flowers_gap.draw(rng), meld_near, aspect, rng, var, untidy)
        else:
            near = meld_near - (aspect + var.rows_gap.draw(rng) * aspect if hand.melds else 0.0)
            placed, _ = _row(specs, GROUP_FLOWERS, meld_row_start + rng.uniform(0.0, 2.0), near, aspect, rng, var, untidy)
        tiles += placed
    return tiles


def calibration_group(row: int) -> str:
    """The group of the tiles of calibration row `row` (1 = farthest from the camera)."""
    return f"row{row}"


def layout_calibration(rows: Sequence[Sequence[str]], rng: random.Random, var: SceneVariation,
                       aspect: float) -> list[TableTile]:
    """The calibration layout (`tileset.calibration`) on the table plane: `rows` far to near, each
    left to right from about x = 0, the nearest row's near edge at y = 0."""
    untidy = var.tile_angle_deg.draw(rng)
    tiles: list[TableTile] = []
    near = 0.0
    for number in range(len(rows), 0, -1):
        placed, _ = _row([(name, False) for name in rows[number - 1]], calibration_group(number),
                         rng.uniform(-0.4, 0.4), near, aspect, rng, var, untidy)
        tiles += placed
        near -= aspect + var.rows_gap.draw(rng) * aspect
    return tiles


# --- the camera ------------------------------------------------------------------


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.c_[points, np.ones(len(points))] @ h.T
    return p[:, :2] / p[:, 2:3]


def _bounds(tiles: Sequence[TableTile], margin: float) -> np.ndarray:
    corners = np.concatenate([t.corners for t in tiles])
    (x0, y0), (x1, y1) = corners.min(axis=0) - margin, corners.max(axis=0) + margin
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


def make_camera(
    tiles: Sequence[TableTile], rng: random.Random, width: int, height: int, var: SceneVariation, thickness: float,
) -> Camera:
    """Tilt the camera towards the player, rotate and fit the layout into the image.

    A camera at distance D from the layout centre, tilted by t from straight
    down, sees table point (x, y) at (f x, f y cos t) / (D - y sin t) (y towards
    the camera): far rows come out smaller.
    """
    # The body and shadow stick out by about one thickness around the faces; keep them in the picture too.
    box = _bounds(tiles, margin=thickness)
    centre = box.mean(axis=0)
    span = float(max(box[1, 0] - box[0, 0], box[2, 1] - box[1, 1]))
    tilt = math.radians(var.tilt_deg.draw(rng))
    distance = var.camera_distance.draw(rng) * span
    s, c = math.sin(tilt), math.cos(tilt)
    to_centre = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]], dtype=np.float64)
    project = np.array([[distance, 0, 0], [0, distance * c, 0], [0, -s, distance]], dtype=np.float64)
    rotation = math.radians(var.rotation_deg.draw(rng))
    r = np.array([[math.cos(rotation), -math.sin(rotation), 0], [math.sin(rotation), math.cos(rotation), 0], [0, 0, 1]])
    h = r @ project @ to_centre

    pts = _apply(h, box)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    size = hi - lo
    usable = np.array([width, height], dtype=np.float64) * (1 - 2 * var.margin)
    scale = float(min(usable / size)) * var.fill.draw(rng)  # the layout spans `fill` of its limiting side
    free = usable - size * scale
    offset = np.array([width, height]) * var.margin + np.array([rng.uniform(0, free[0]), rng.uniform(0, free[1])]) - lo * scale
    fit = np.array([[scale, 0, offset[0]], [0, scale, offset[1]], [0, 0, 1]], dtype=np.float64)
    nadir = (float(centre[0]), float(centre[1] + distance * s))
    return Camera(fit @ h, nadir, distance * c, math.degrees(tilt), math.degrees(rotation))


def place(tile: TableTile, homography: np.ndarray) -> PlacedTile:
    corners = _apply(homography, tile.corners)
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    return PlacedTile(
        cls=tile.cls,
        group=tile.group,
        sideways=tile.sideways,
        corners=tuple((float(x), float(y)) for x, y in corners),
        xyxy=(float(x0), float(y0), float(x1), float(y1)),
    )


def _variation(overrides: dict[str, Any]) -> SceneVariation:
    unknown = set(overrides) - set(SceneVariation.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown scene variation(s): {', '.join(sorted(unknown))}")
    fixed: dict[str, Any] = {k: Range(float(v), float(v)) if isinstance(v, (int, float)) and isinstance(getattr(DEFAULT_VARIATION, k), Range) else v
             for k, v in overrides.items()}
    return replace(DEFAULT_VARIATION, **fixed)


def plan_layout(hand: Hand, rng: random.Random, width: int, height: int, **variation: Any) -> ScenePlan:
    """The whole plan of one scene: table layout, camera, and the tiles in the image.

    `variation` overrides fields of `SceneVariation`; a number fixes a range
    (`win_gap=0.0`, `rotation_deg=10`).
    """
    return _plan(lambda var, aspect: layout_table(hand, rng, var, aspect), rng, width, height, variation)


def plan_calibration(rows: Sequence[Sequence[str]], rng: random.Random, width: int, height: int,
                     **variation: Any) -> ScenePlan:
    """The plan of one calibration photo: `rows` of tile names (far to near) laid out as in
    calibration-layout.md, seen by the same camera as the hand scenes."""
    return _plan(lambda var, aspect: layout_calibration(rows, rng, var, aspect), rng, width, height, variation)


def _plan(lay_out: Callable[[SceneVariation, float], list[TableTile]], rng: random.Random, width: int, height: int,
          variation: dict[str, Any]) -> ScenePlan:
    """Aspect and thickness, then the table laid out by `lay_out`, then the camera (in that order of draws)."""
    if width < 32 or height < 32:
        raise ValueError(f"image size {width}x{height} is too small for a scene")
    var = _variation(variation)
    aspect = var.aspect.draw(rng)
    thickness = var.thickness.draw(rng)
    table = lay_out(var, aspect)
    camera = make_camera(table, rng, width, height, var, thickness)
    placed = tuple(place(t, camera.homography) for t in table)
    return ScenePlan(width, height, aspect, thickness, tuple(table), camera, placed)


def plan_scene(hand: Hand, rng: random.Random, width: int, height: int, **variation: Any) -> list[PlacedTile]:
    """Where every tile of `hand` lies in a `width` x `height` photo (see module doc)."""
    return list(plan_layout(hand, rng, width, height, **variation).tiles)
