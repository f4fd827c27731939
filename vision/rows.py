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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

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


@dataclass(frozen=True)
class Row:
    """Tiles of one row, left to right, in the row's own frame."""

    tiles: tuple[TileObs, ...]
    angle: float  # radians, the row direction in the image

    def gaps(self) -> tuple[float, ...]:
        """Gap after each tile but the last, in local tile widths (negative when boxes overlap)."""
        out = []
        for a, b in zip(self.tiles, self.tiles[1:], strict=False):
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
    floor = 0.2 * np.maximum(w, h)  # numerical guard against a noisy box, not a tuning threshold
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


def neighbour_votes(xyxy: np.ndarray, settings: LayoutSettings) -> np.ndarray:
    """The direction from each tile to its nearest neighbour (within reach), radians in [-90, 90)."""
    n = len(xyxy)
    if n < 2:
        return np.zeros(0)
    centres = np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], axis=1)
    size = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    nearest = np.argmin(dist, axis=1)
    rows = np.arange(n)
    reach = dist[rows, nearest] <= settings.neighbour_reach * size
    vec = diff[rows, nearest][reach]
    theta = np.arctan2(vec[:, 1], vec[:, 0])
    return (theta + math.pi / 2) % math.pi - math.pi / 2  # left and right neighbours agree


def estimate_row_angle(xyxy: np.ndarray, settings: LayoutSettings) -> float:
    """The row direction from nearest neighbours: tiles in a row sit closer than rows do.

    Each tile's vector to its nearest neighbour votes; votes steeper than 45
    degrees (a neighbour in another row) are left out, and the mean of the votes
    near the median is the answer, in [-45, 45] degrees.
    """
    votes = neighbour_votes(xyxy, settings)
    along = votes[np.abs(votes) <= math.pi / 4]
    if len(along) == 0:
        return 0.0
    middle = float(np.median(along))
    close = along[np.abs(along - middle) <= math.radians(settings.angle_vote_spread_deg)]
    return float(close.mean()) if len(close) else middle


def steep_share(xyxy: np.ndarray, settings: LayoutSettings) -> float:
    """The share of neighbour votes steeper than 45 degrees: near 1 when the rows run up the photo."""
    votes = neighbour_votes(xyxy, settings)
    return float(np.mean(np.abs(votes) > math.pi / 4)) if len(votes) else 0.0


def fit_row_angle(tiles: list[TileObs] | tuple[TileObs, ...], angle: float, settings: LayoutSettings) -> float:
    """A row's own direction: the median slope over its pairs of tiles (Theil-Sen), robust to a few strays.

    `tiles` are measured in the frame of `angle`; a result further than
    `row_fit_max_change_deg` from it is not trusted and `angle` is returned.
    """
    if len(tiles) < 2:
        return angle
    c, s = math.cos(angle), math.sin(angle)
    pts = np.array([[t.x * c + t.y * s, -t.x * s + t.y * c, t.short_side] for t in tiles])
    du = pts[None, :, 0] - pts[:, None, 0]
    dv = pts[None, :, 1] - pts[:, None, 1]
    apart = np.triu(np.abs(du) > settings.slope_min_run * np.median(pts[:, 2]), k=1)
    if not apart.any():
        return angle
    own = angle + math.atan(float(np.median(dv[apart] / du[apart])))
    if abs(own - angle) > math.radians(settings.row_fit_max_change_deg):
        return angle
    return own


def split_rows(tiles: list[TileObs], settings: LayoutSettings) -> list[list[TileObs]]:
    """Tiles clustered by their `v`, far rows first; a jump larger than `row_split` tile heights splits."""
    if not tiles:
        return []
    ordered = sorted(tiles, key=lambda t: t.v)
    rows: list[list[TileObs]] = [[ordered[0]]]
    for prev, cur in pairwise(ordered):
        scale = (prev.long_side + cur.long_side) / 2
        if cur.v - prev.v > settings.row_split * scale:
            rows.append([])
        rows[-1].append(cur)
    return rows


def _split_by_own_line(row: list[TileObs], angle: float, settings: LayoutSettings) -> list[list[TileObs]]:
    """A row measured across its own fitted line, split again where that shows a jump (two rows taken as one)."""
    if len(row) < 4:
        return [row]
    own = fit_row_angle(row, angle, settings)
    c, s = math.cos(own), math.sin(own)
    across = [replace(t, v=-t.x * s + t.y * c) for t in row]
    parts = split_rows(across, settings)
    if len(parts) == 1:
        return [row]
    by_index = {t.index: t for t in row}
    return [[by_index[t.index] for t in part] for part in parts]


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
        rows = [part for r in split_rows(tiles, settings) for part in _split_by_own_line(r, angle, settings)]
        fits = [(fit_row_angle(r, angle, settings), len(r)) for r in rows if len(r) >= 3]
        if fits:
            angle = sum(a * n for a, n in fits) / sum(n for _, n in fits)
    tiles = to_row_frame(indices, names, conf, xyxy, angle)
    rows = [part for r in split_rows(tiles, settings) for part in _split_by_own_line(r, angle, settings)]
    rows.sort(key=lambda r: float(np.median([t.v for t in r])))
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
    """Gaps judged against the apparent gap of touching tiles nearby, in local tile widths.

    A tilted camera leans the sides of tiles away from the vanishing point, so
    box sizes misjudge tile widths by an amount that changes smoothly across the
    photo (and is not linear in it).  Most neighbouring pairs touch, so the
    gaps of the pairs near a gap tell the bias there: a real gap stands out from
    its neighbours, a smooth bias does not.
    """

    pairs: tuple[tuple[float, float, float], ...] = ()  # (x, y, gap) of every neighbouring pair
    neighbours: int = 4
    max_baseline: float = 0.6  # defaults mirror LayoutSettings; fit_gap_model passes the settings
    window: int = 4  # pairs of the same row on each side that a gap's baseline line goes through
    inlier: float = 0.15  # pairs wider than the row's median gap by more than this are not "touching"
    angle: float = 0.0  # the row direction, radians

    def baseline(self, x: float, y: float) -> float:
        """The touching-pair gap at (x, y) from the nearest other pairs: a line through them along the rows.

        A line, not their median, because a short row (two standing tiles) often
        lies beyond the end of the row it borrows from, where the bias keeps growing.
        """
        others = sorted((math.hypot(px - x, py - y), px, py, g) for px, py, g in self.pairs if (px, py) != (x, y))
        if len(others) < 2:
            return 0.0
        near = np.array([o[1:] for o in others[: self.neighbours]])
        touching = near[near[:, 2] <= np.median(near[:, 2]) + self.inlier]
        c, s = math.cos(self.angle), math.sin(self.angle)
        u = touching[:, 0] * c + touching[:, 1] * s
        if len(touching) >= 3 and np.ptp(u) > 0:
            slope, offset = np.polyfit(u, touching[:, 2], 1)
            base = offset + slope * (x * c + y * s)
        else:
            base = float(np.median(touching[:, 2]))
        return float(np.clip(base, -self.max_baseline, self.max_baseline))

    def gaps(self, row: Row) -> tuple[float, ...]:
        """The row's gaps with the local baseline taken off.

        Where the row itself has enough touching pairs near a gap, the baseline
        is a line through them (it follows a steep drift to the row's end);
        elsewhere it is the median of the nearest pairs of any row.
        """
        raw = row.gaps()
        touching_limit = float(np.median(raw)) + self.inlier if raw else 0.0
        out = []
        for i, (g, a, b) in enumerate(zip(raw, row.tiles, row.tiles[1:], strict=False)):
            near = [j for j in range(len(raw)) if j != i and abs(j - i) <= self.window and raw[j] <= touching_limit]
            if len(near) >= 3:
                slope, offset = np.polyfit(near, [raw[j] for j in near], 1)
                base = float(np.clip(offset + slope * i, -self.max_baseline, self.max_baseline))
            else:
                base = self.baseline((a.x + b.x) / 2, (a.y + b.y) / 2)
            out.append(g - base)
        return tuple(out)


def fit_gap_model(rows: Sequence[Row], angle: float, settings: LayoutSettings) -> GapModel:
    """The gap model over every neighbouring pair of `rows` (at `angle`, radians)."""
    pairs = tuple(((a.x + b.x) / 2, (a.y + b.y) / 2, g) for r in rows for g, a, b in zip(r.gaps(), r.tiles, r.tiles[1:], strict=False))
    return GapModel(
        pairs, settings.gap_neighbours, settings.gap_max_baseline, settings.gap_window, settings.gap_inlier, angle
    )


def split_groups(row: Row, min_gap: float, model: GapModel = GapModel()) -> list[tuple[TileObs, ...]]:
    """The row cut wherever a gap (over the model's baseline) exceeds `min_gap` local tile widths."""
    if not row.tiles:
        return []
    groups: list[list[TileObs]] = [[row.tiles[0]]]
    for gap, tile in zip(model.gaps(row), row.tiles[1:], strict=False):
        if gap > min_gap:
            groups.append([])
        groups[-1].append(tile)
    return [tuple(g) for g in groups]
