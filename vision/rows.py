"""Geometry of a laid-out hand: row direction, rows, groups inside a row.

Plain data in and out: tile boxes (axis-aligned, image pixels) become `TileObs`
values in a row frame (`u` along the rows, `v` across them, `v` growing towards
the camera), then `Row`s of tiles sorted along `u`, then groups split at gaps.
Nothing here knows tile names beyond carrying them.

Sizes are always measured locally (a tile's own box, or its neighbours'),
because a tilted camera makes far tiles smaller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .settings import LayoutSettings


@dataclass(frozen=True)
class TileObs:
    """One tile seen in the photo, in a row frame."""

    index: int  # position in the (deduplicated) detections
    name: str  # class name, e.g. "5m", "back", "f1"
    conf: float
    x: float  # box centre in image pixels
    y: float
    u: float  # centre along the row direction
    v: float  # centre across the row direction (grows towards the camera)
    length: float  # extent along the row
    height: float  # extent across the row

    @property
    def long_side(self) -> float:
        return max(self.length, self.height)

    @property
    def short_side(self) -> float:
        return min(self.length, self.height)

    def is_sideways(self, settings: LayoutSettings) -> bool:
        return self.length > settings.sideways_ratio * self.height

    @property
    def label(self) -> str:
        """How issues name this tile for a person: its class and where it lies."""
        return f"{self.name} at ({self.x:.0f}, {self.y:.0f})"


@dataclass(frozen=True)
class Row:
    """Tiles of one row, left to right, in the row's own frame."""

    tiles: tuple[TileObs, ...]
    angle: float  # radians, the row direction in the image

    @property
    def v(self) -> float:
        return float(np.median([t.v for t in self.tiles]))

    def gaps(self) -> tuple[float, ...]:
        """Gap after each tile but the last, in local tile widths (negative when boxes overlap)."""
        out = []
        for a, b in zip(self.tiles, self.tiles[1:]):
            space = (b.u - b.length / 2) - (a.u + a.length / 2)
            out.append(space / ((a.short_side + b.short_side) / 2))
        return tuple(out)


def tile_extent(w: np.ndarray, h: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Length along and height across a row at `angle`, from axis-aligned box sizes.

    A rectangle L x H turned by a has an axis-aligned box of
    (L|cos a| + H|sin a|) x (L|sin a| + H|cos a|); this solves that for L and H.
    """
    c, s = abs(math.cos(angle)), abs(math.sin(angle))
    det = c * c - s * s
    if det < 0.3:  # nearly 45 degrees: the box tells nothing about the sides
        return w.copy(), h.copy()
    length = (c * w - s * h) / det
    height = (c * h - s * w) / det
    floor = 0.2 * np.maximum(w, h)
    return np.maximum(length, floor), np.maximum(height, floor)


def to_row_frame(
    indices: np.ndarray, names: list[str], conf: np.ndarray, xyxy: np.ndarray, angle: float
) -> list[TileObs]:
    """Tiles with their centres and sizes expressed in the frame of rows at `angle`."""
    if len(indices) == 0:
        return []
    cx = (xyxy[:, 0] + xyxy[:, 2]) / 2
    cy = (xyxy[:, 1] + xyxy[:, 3]) / 2
    c, s = math.cos(angle), math.sin(angle)
    u = cx * c + cy * s
    v = -cx * s + cy * c
    length, height = tile_extent(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1], angle)
    return [
        TileObs(int(indices[k]), names[k], float(conf[k]), float(cx[k]), float(cy[k]),
                float(u[k]), float(v[k]), float(length[k]), float(height[k]))
        for k in range(len(indices))
    ]


def estimate_row_angle(xyxy: np.ndarray, settings: LayoutSettings) -> float:
    """The row direction from nearest neighbours: tiles in a row sit closer than rows do.

    Each tile's vector to its nearest neighbour votes (doubled angles, so that
    left and right agree); the result lies in (-45, 45] degrees.
    """
    n = len(xyxy)
    if n < 2:
        return 0.0
    centres = np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], axis=1)
    size = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    nearest = np.argmin(dist, axis=1)
    rows = np.arange(n)
    reach = dist[rows, nearest] <= settings.neighbour_reach * size
    if not reach.any():
        return 0.0
    vec = diff[rows, nearest][reach]
    theta = np.arctan2(vec[:, 1], vec[:, 0])
    # doubled angles cannot tell a row from a column: fold steep votes towards the horizontal
    doubled = np.exp(2j * theta)
    mean = doubled.sum()
    angle = float(np.angle(mean) / 2)
    if angle > math.pi / 4:
        angle -= math.pi / 2
    elif angle <= -math.pi / 4:
        angle += math.pi / 2
    return angle


def fit_row_angle(tiles: list[TileObs] | tuple[TileObs, ...], angle: float, settings: LayoutSettings) -> float:
    """A row's own direction by a principal-axis fit of its centres, when it has enough tiles."""
    if len(tiles) < 3:
        return angle
    pts = np.array([[t.x, t.y] for t in tiles])
    pts -= pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts, full_matrices=False)
    dx, dy = vt[0]
    own = math.atan2(dy, dx)
    # the axis has no sign: bring it next to the global direction
    while own - angle > math.pi / 2:
        own -= math.pi
    while own - angle < -math.pi / 2:
        own += math.pi
    if abs(own - angle) > math.radians(settings.row_fit_max_change_deg):
        return angle
    return own


def split_rows(tiles: list[TileObs], settings: LayoutSettings) -> list[list[TileObs]]:
    """Tiles clustered by their `v`, far rows first; a jump larger than `row_split` tile heights splits."""
    if not tiles:
        return []
    ordered = sorted(tiles, key=lambda t: t.v)
    rows: list[list[TileObs]] = [[ordered[0]]]
    for prev, cur in zip(ordered, ordered[1:]):
        scale = (prev.long_side + cur.long_side) / 2
        if cur.v - prev.v > settings.row_split * scale:
            rows.append([])
        rows[-1].append(cur)
    return rows


@dataclass(frozen=True)
class RowLayout:
    """The rows of a photo, far to near, and the direction they were measured in."""

    rows: tuple[Row, ...]
    angle: float  # radians, the global row direction


def find_rows(
    indices: np.ndarray, names: list[str], conf: np.ndarray, xyxy: np.ndarray, settings: LayoutSettings
) -> RowLayout:
    """Direction, then rows, then each row re-measured along its own fitted line (twice)."""
    angle = estimate_row_angle(xyxy, settings)
    rows: list[list[TileObs]] = []
    for _ in range(2):
        tiles = to_row_frame(indices, names, conf, xyxy, angle)
        rows = split_rows(tiles, settings)
        fits = [(fit_row_angle(r, angle, settings), len(r)) for r in rows if len(r) >= 3]
        if fits:
            angle = sum(a * n for a, n in fits) / sum(n for _, n in fits)
    tiles = to_row_frame(indices, names, conf, xyxy, angle)
    rows = split_rows(tiles, settings)
    by_index = {int(i): k for k, i in enumerate(indices)}
    out = []
    for r in rows:
        own = fit_row_angle(r, angle, settings)
        sel = np.array([by_index[t.index] for t in r])
        framed = to_row_frame(indices[sel], [names[k] for k in sel], conf[sel], xyxy[sel], own)
        out.append(Row(tuple(sorted(framed, key=lambda t: t.u)), own))
    return RowLayout(tuple(out), angle)


@dataclass(frozen=True)
class GapModel:
    """The apparent gap between touching tiles, measured where it is needed, in local tile widths.

    A tilted camera leans the sides of tiles away from the vanishing point, so
    box sizes misjudge tile widths by an amount that changes smoothly across the
    photo (and is not linear in it).  A gap is judged against the median gap of
    the nearest other tile pairs, most of which touch: a real gap stands out
    from its neighbours, a uniform bias does not.
    """

    pairs: tuple[tuple[float, float, float], ...] = ()  # (x, y, gap) of every neighbouring pair
    neighbours: int = 4
    max_baseline: float = 0.6

    def baseline(self, x: float, y: float) -> float:
        others = [(math.hypot(px - x, py - y), g) for px, py, g in self.pairs if (px, py) != (x, y)]
        if len(others) < 2:
            return 0.0
        others.sort()
        near = [g for _, g in others[: self.neighbours]]
        return float(np.clip(np.median(near), -self.max_baseline, self.max_baseline))

    def gaps(self, row: Row) -> tuple[float, ...]:
        """The row's gaps with the local baseline taken off."""
        return tuple(
            g - self.baseline((a.x + b.x) / 2, (a.y + b.y) / 2)
            for g, a, b in zip(row.gaps(), row.tiles, row.tiles[1:])
        )


def fit_gap_model(rows: Sequence[Row], settings: LayoutSettings) -> GapModel:
    """The gap model over every neighbouring pair of `rows`."""
    pairs = tuple(((a.x + b.x) / 2, (a.y + b.y) / 2, g) for r in rows for g, a, b in zip(r.gaps(), r.tiles, r.tiles[1:]))
    return GapModel(pairs, settings.gap_neighbours, settings.gap_max_baseline)


def split_groups(row: Row, min_gap: float, model: GapModel = GapModel()) -> list[tuple[TileObs, ...]]:
    """The row cut wherever a gap (over the model's baseline) exceeds `min_gap` local tile widths."""
    if not row.tiles:
        return []
    groups: list[list[TileObs]] = [[row.tiles[0]]]
    for gap, tile in zip(model.gaps(row), row.tiles[1:]):
        if gap > min_gap:
            groups.append([])
        groups[-1].append(tile)
    return [tuple(g) for g in groups]
