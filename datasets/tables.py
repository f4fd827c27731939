"""Table surfaces the tile finder must not mistake for tiles, and things lying on them.

Families of procedural tablecloths and tables, each drawn from a `random.Random`
at a scale tied to the tiles' width in the photo (`unit`, pixels), seen at a
slight slant (a random perspective warp):

    checked (gingham), striped, dots, geometric (printed shapes), floral,
    tiled (grout lines), glass (dark, reflective), mat (printed graphics),
    plain (the older felt, wood, cloth, paper and stone of `datasets.render`)

plus `mosaic` (irregular cells with grout, light ones tile-sized) and `marble`
(pale veined stone, a second blind family), which are
TEST-ONLY: `parse_families("train")` never selects them, so scenes over them
measure the finder on patterns no training scene used.

Hard negatives are drawn on the table too: books, papers with lines of text,
hands (skin blobs with fingers), and, in empty photos, tiles cut off by the
photo's edge with less than half of them in the picture (unlabeled, as a
labeler would leave them).  `table_source(families)` plugs into
`datasets.render.render_scene(..., table_source=...)`; `render_empty` renders a
whole photo of a table without tiles (an empty label file: a background image
for ultralytics).  `python -m datasets.synth --tables FAMILIES --empty SHARE`
renders both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.art import ArtSet
from datasets.render import (
    TableSource,
    _add_noise,
    _hsv_colour,
    draw_clutter,
    draw_style,
    draw_table,
    face_pixels,
    photo_effects,
)
from tileset.classes import BACK

Pattern = Callable[[random.Random, int, int, float], np.ndarray]  # (rng, width, height, unit px) -> BGR float32

TEST_ONLY = ("mosaic", "marble")


class TableSpecError(ValueError):
    """A --tables value naming no known family."""


def _colour(rng: random.Random, s: tuple[float, float] = (0.2, 0.9), v: tuple[float, float] = (0.3, 0.95)) -> np.ndarray:
    return np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(*s), rng.uniform(*v)), np.float32)


def _light_colour(rng: random.Random) -> np.ndarray:
    """White, cream or a pale tint: what makes a pattern's light parts look like a tile face."""
    return _colour(rng, (0.0, 0.15), (0.8, 1.0))


def _grid(width: int, height: int, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates turned by `angle` radians (u along, v across)."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    c, s = math.cos(angle), math.sin(angle)
    return xx * c + yy * s, -xx * s + yy * c


def _canvas(width: int, height: int, colour: np.ndarray) -> np.ndarray:
    img = np.empty((height, width, 3), np.float32)
    img[:] = colour
    return img


# --- the families -----------------------------------------------------------------------------


def checked(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """Gingham: bands of one colour both ways over white; crossings twice as dark."""
    light = _light_colour(rng)
    ink = _colour(rng, (0.3, 1.0), (0.2, 0.8))
    period = unit * rng.uniform(0.4, 3.0)
    duty = rng.uniform(0.35, 0.6)
    u, v = _grid(width, height, rng.uniform(0, math.pi / 2) if rng.random() < 0.4 else rng.uniform(-0.1, 0.1))
    a = ((u % period) < period * duty).astype(np.float32)
    b = ((v % period) < period * duty).astype(np.float32)
    strength = (0.5 * (a + b))[..., None] * rng.uniform(0.8, 1.0)
    img = light * (1 - strength) + ink * strength
    if rng.random() < 0.5:  # woven threads
        fine = rng.uniform(1.5, 3.5)
        img *= 1 + 0.06 * (np.sin(u * math.pi / fine) * np.sin(v * math.pi / fine))[..., None]
    return img


def striped(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """Bands of two to four colours, one way."""
    colours = [_light_colour(rng) if rng.random() < 0.5 else _colour(rng) for _ in range(rng.randint(2, 4))]
    widths = [unit * rng.uniform(0.15, 1.8) for _ in colours]
    period = sum(widths)
    u, _ = _grid(width, height, rng.uniform(0, math.pi))
    phase = u % period
    img = _canvas(width, height, colours[0])
    edge = 0.0
    for colour, w in zip(colours, widths, strict=False):
        img[(phase >= edge) & (phase < edge + w)] = colour
        edge += w
    return img


def dots(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """Polka dots (or little squares) in rows, printed on a plain ground."""
    ground, ink = (_colour(rng), _light_colour(rng)) if rng.random() < 0.5 else (_light_colour(rng), _colour(rng))
    img = _canvas(width, height, ground)
    step = unit * rng.uniform(0.5, 2.0)
    r = step * rng.uniform(0.12, 0.35)
    square = rng.random() < 0.3
    angle = rng.uniform(0, 180)
    for row, y in enumerate(np.arange(-step, height + step, step)):
        shift = step / 2 if row % 2 else 0.0
        for x in np.arange(-step + shift, width + step, step):
            if square:
                box = cv2.boxPoints(((float(x), float(y)), (2 * r, 2 * r), angle)).astype(np.int32)
                cv2.fillConvexPoly(img, box, ink.tolist(), cv2.LINE_AA)
            else:
                cv2.circle(img, (int(x), int(y)), max(1, int(r)), ink.tolist(), -1, cv2.LINE_AA)
    return img


def geometric(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """A printed repeat of triangles, diamonds, rectangles and outlines in two or three inks."""
    inks = [_colour(rng) for _ in range(rng.randint(2, 3))] + [_light_colour(rng)]
    img = _canvas(width, height, inks[0] if rng.random() < 0.5 else _light_colour(rng))
    cell = unit * rng.uniform(0.8, 3.0)
    kind = rng.choice(["triangles", "diamonds", "rectangles", "outlines"])
    for j, y in enumerate(np.arange(0, height + cell, cell)):
        for i, x in enumerate(np.arange(0, width + cell, cell)):
            ink = inks[(i + 2 * j) % len(inks)].tolist()
            if kind == "triangles":
                pts = np.array([[x, y], [x + cell, y], [x + (cell if (i + j) % 2 else 0), y + cell]], np.int32)
                cv2.fillConvexPoly(img, pts, ink, cv2.LINE_AA)
            elif kind == "diamonds":
                c = cell / 2
                pts = np.array([[x + c, y], [x + cell, y + c], [x + c, y + cell], [x, y + c]], np.int32)
                cv2.fillConvexPoly(img, pts, ink, cv2.LINE_AA)
            elif kind == "rectangles":
                w, h = cell * rng.uniform(0.3, 0.8), cell * rng.uniform(0.3, 0.8)
                cv2.rectangle(img, (int(x), int(y)), (int(x + w), int(y + h)), ink, -1, cv2.LINE_AA)
            else:
                cv2.rectangle(img, (int(x + cell * 0.1), int(y + cell * 0.1)), (int(x + cell * 0.9), int(y + cell * 0.9)),
                              ink, max(1, int(cell * 0.06)), cv2.LINE_AA)
    return img


def floral(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """Flowers of five or six petals with leaves, scattered on a ground."""
    img = _canvas(width, height, _colour(rng, (0.0, 0.6), (0.4, 1.0)))
    petals = [_colour(rng, (0.3, 0.9), (0.5, 1.0)) for _ in range(3)] + [_light_colour(rng)]
    leaf = np.array(_hsv_colour(rng.uniform(80, 160), rng.uniform(0.3, 0.8), rng.uniform(0.25, 0.7)), np.float32)
    size = unit * rng.uniform(0.4, 1.6)
    count = int(width * height / (size * size) * rng.uniform(0.08, 0.35))
    for _ in range(count):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        s = size * rng.uniform(0.6, 1.3)
        for _ in range(rng.randint(0, 2)):
            a = rng.uniform(0, 360)
            off = (int(cx + s * math.cos(math.radians(a))), int(cy + s * math.sin(math.radians(a))))
            cv2.ellipse(img, off, (max(1, int(s * 0.6)), max(1, int(s * 0.25))), a, 0, 360, leaf.tolist(), -1, cv2.LINE_AA)
        colour = rng.choice(petals).tolist()
        n, turn = rng.randint(5, 6), rng.uniform(0, 360)
        for k in range(n):
            a = turn + k * 360 / n
            p = (int(cx + 0.45 * s * math.cos(math.radians(a))), int(cy + 0.45 * s * math.sin(math.radians(a))))
            cv2.ellipse(img, p, (max(1, int(s * 0.45)), max(1, int(s * 0.25))), a, 0, 360, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), max(1, int(s * 0.18)), _colour(rng, (0.6, 1.0), (0.5, 0.9)).tolist(), -1, cv2.LINE_AA)
    return img


def tiled(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """Ceramic tiles (square or brick-laid) with grout lines, each tile a shade off the others."""
    base = _light_colour(rng) if rng.random() < 0.5 else _colour(rng, (0.05, 0.6), (0.3, 0.9))
    grout = base * rng.uniform(0.4, 0.75) if rng.random() < 0.7 else _light_colour(rng)
    img = _canvas(width, height, grout)
    side = unit * rng.uniform(0.8, 4.0)
    tall = side * (rng.uniform(0.5, 1.0) if rng.random() < 0.4 else 1.0)
    gap = max(1.0, side * rng.uniform(0.03, 0.08))
    brick = rng.random() < 0.3
    for j, y in enumerate(np.arange(0, height + tall, tall)):
        shift = side / 2 if brick and j % 2 else 0.0
        for x in np.arange(-shift, width + side, side):
            shade = base * rng.uniform(0.92, 1.08)
            cv2.rectangle(img, (int(x + gap / 2), int(y + gap / 2)), (int(x + side - gap / 2), int(y + tall - gap / 2)),
                          np.clip(shade, 0, 255).tolist(), -1)
    return img


def glass(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """A glass top: dark or tinted, with what is under it blurred and broad reflections across it."""
    base = _colour(rng, (0.05, 0.5), (0.08, 0.45))
    img = _canvas(width, height, base)
    nrng = np.random.default_rng(rng.getrandbits(63))
    for _ in range(rng.randint(2, 8)):  # things under the glass, out of focus
        centre = (rng.randrange(width), rng.randrange(height))
        axes = (int(unit * rng.uniform(1, 6)), int(unit * rng.uniform(1, 6)))
        cv2.ellipse(img, centre, axes, rng.uniform(0, 180), 0, 360, _colour(rng, v=(0.2, 0.7)).tolist(), -1)
    img = cv2.GaussianBlur(img, (0, 0), unit * rng.uniform(0.5, 1.5)).astype(np.float32, copy=False)
    u, _ = _grid(width, height, rng.uniform(0, math.pi))
    for _ in range(rng.randint(1, 4)):  # window reflections: bright soft bands
        middle, reach = rng.uniform(u.min(), u.max()), unit * rng.uniform(0.5, 4.0)
        img += (np.exp(-((u - middle) / reach) ** 2) * rng.uniform(40, 150))[..., None]
    img += nrng.normal(0, 3, img.shape[:2]).astype(np.float32)[..., None]
    return img


def mat(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """A play mat with printed graphics: a border, big shapes, a logo and lines of lettering."""
    ground = _colour(rng, (0.3, 0.9), (0.2, 0.6))
    img = _canvas(width, height, ground)
    for _ in range(rng.randint(2, 6)):
        ink = (_light_colour(rng) if rng.random() < 0.4 else _colour(rng)).tolist()
        centre = (rng.randrange(width), rng.randrange(height))
        r = int(unit * rng.uniform(1, 6))
        if rng.random() < 0.5:
            cv2.circle(img, centre, r, ink, rng.choice([-1, max(1, int(unit * 0.15))]), cv2.LINE_AA)
        else:
            box = cv2.boxPoints((centre, (r * 2, r * rng.uniform(0.5, 2)), rng.uniform(0, 180))).astype(np.int32)
            cv2.drawContours(img, [box], 0, ink, rng.choice([-1, max(1, int(unit * 0.15))]), cv2.LINE_AA)
    if rng.random() < 0.7:  # printed border
        m = int(unit * rng.uniform(0.3, 2))
        cv2.rectangle(img, (m, m), (width - m, height - m), _light_colour(rng).tolist(), max(1, int(unit * 0.2)))
    img = np.clip(img, 0, 255).astype(np.uint8)  # putText draws on 8-bit images only
    for _ in range(rng.randint(1, 5)):  # lettering and logos
        text = "".join(rng.choice("ABCDEFGHJKLMNPRSTUWXYZ0123456789 ") for _ in range(rng.randint(2, 10)))
        scale = unit * rng.uniform(0.5, 1.2) / 22
        cv2.putText(img, text, (rng.randrange(width), rng.randrange(height)), rng.choice([0, 2, 3, 4]), scale,
                    _light_colour(rng).tolist(), max(1, int(scale * 2)), cv2.LINE_AA)
    return img.astype(np.float32)


def plain(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """The tables scenes had before: felt, wood, cloth, paper and stone (`datasets.render.draw_table`)."""
    return draw_table(rng, np.random.default_rng(rng.getrandbits(63)), width, height).astype(np.float32)


def mosaic(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """TEST-ONLY: irregular cells (a Voronoi mosaic) with grout, many of them light and tile-sized."""
    palette = [_light_colour(rng) for _ in range(rng.randint(1, 3))] + [_colour(rng) for _ in range(rng.randint(1, 4))]
    cell = unit * rng.uniform(0.7, 2.5)
    count = max(4, int(width * height / (cell * cell)))
    subdiv = cv2.Subdiv2D((0, 0, width, height))
    for _ in range(count):
        subdiv.insert((rng.uniform(0, width - 1), rng.uniform(0, height - 1)))
    facets, _ = subdiv.getVoronoiFacetList([])
    grout = (palette[0] * rng.uniform(0.3, 0.7)).tolist()
    img = _canvas(width, height, np.array(grout, np.float32))
    line = max(1, int(cell * rng.uniform(0.03, 0.1)))
    for facet in facets:
        pts = np.round(facet).astype(np.int32)
        cv2.fillConvexPoly(img, pts, np.clip(rng.choice(palette) * rng.uniform(0.9, 1.1), 0, 255).tolist(), cv2.LINE_AA)
        cv2.polylines(img, [pts], True, grout, line, cv2.LINE_AA)
    return img


def marble(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
    """TEST-ONLY: pale stone with soft clouds and branching grey or gold veins (a common table top)."""
    ground = _light_colour(rng) * rng.uniform(0.85, 1.0)
    nrng = np.random.default_rng(rng.getrandbits(63))
    cloud = np.zeros((height, width), np.float32)
    for cells in (4, 9, 20):  # smooth noise at three scales
        coarse = nrng.normal(0, 1, (cells, max(2, cells * width // max(1, height)))).astype(np.float32)
        cloud += np.asarray(cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC), np.float32) / np.float32(cells ** 0.5)
    img = ground[None, None, :] * (1 + 0.06 * cloud[..., None])
    vein_ink = np.array([rng.uniform(60, 140)] * 3, np.float32) if rng.random() < 0.7 else np.array([60, 150, 190], np.float32)
    veins = np.zeros((height, width), np.float32)
    for _ in range(rng.randint(3, 9)):
        point = np.array([rng.uniform(0, width), rng.uniform(0, height)])
        heading = rng.uniform(0, 2 * math.pi)
        points = [point.copy()]
        for _ in range(rng.randint(20, 60)):
            heading += rng.gauss(0, 0.35)
            point = point + unit * rng.uniform(0.2, 0.6) * np.array([math.cos(heading), math.sin(heading)])
            points.append(point.copy())
        cv2.polylines(veins, [np.round(points).astype(np.int32)], False, rng.uniform(0.3, 1.0),
                      max(1, int(unit * rng.uniform(0.01, 0.06))), cv2.LINE_AA)
    soft = np.asarray(cv2.GaussianBlur(veins, (0, 0), max(0.5, unit * 0.02)), np.float32)
    img = img * (1 - soft[..., None]) + vein_ink[None, None, :] * soft[..., None]
    return np.clip(img, 0, 255).astype(np.float32)


@dataclass(frozen=True)
class TableFamily:
    name: str
    pattern: Pattern
    test_only: bool = False


FAMILIES: dict[str, TableFamily] = {
    f.__name__: TableFamily(f.__name__, f, f.__name__ in TEST_ONLY)
    for f in (checked, striped, dots, geometric, floral, tiled, glass, mat, plain, mosaic, marble)
}
TRAIN_FAMILIES: tuple[str, ...] = tuple(n for n, f in FAMILIES.items() if not f.test_only)


def parse_families(text: str) -> tuple[str, ...]:
    """`train` (every family but the test-only ones), `test` (only those), `all`, or names joined by commas."""
    text = text.strip()
    if text == "train":
        return TRAIN_FAMILIES
    if text == "test":
        return TEST_ONLY
    if text == "all":
        return tuple(FAMILIES)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise TableSpecError(f"unknown table family {', '.join(unknown) or repr(text)}; "
                             f"known: train, test, all, {', '.join(FAMILIES)}")
    return names


# --- slant, hard negatives ---------------------------------------------------------------------

DRAW_SCALE = 0.5  # patterns are drawn at half size, then warped up to the photo
SLANT_MARGIN = 1.35  # the flat pattern is this much larger than the photo, so the warp never runs off it


def _slanted(rng: random.Random, flat: np.ndarray, width: int, height: int) -> np.ndarray:
    """The flat pattern seen by a tilted camera: far (top) side wider in the pattern than the near side."""
    fh, fw = flat.shape[:2]
    cx, cy = fw / 2, fh / 2
    half_w, half_h = fw / SLANT_MARGIN / 2, fh / SLANT_MARGIN / 2
    far = rng.uniform(1.0, 1.3)  # the far edge takes in this much more of the cloth
    near = 2.0 - far
    src = np.array([[cx - half_w * far, cy - half_h], [cx + half_w * far, cy - half_h],
                    [cx + half_w * near, cy + half_h], [cx - half_w * near, cy + half_h]], np.float32)
    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    return cv2.warpPerspective(flat, cv2.getPerspectiveTransform(src, dst), (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


def _skin(rng: random.Random) -> list[int]:
    return list(_hsv_colour(rng.uniform(10, 35), rng.uniform(0.2, 0.6), rng.uniform(0.35, 0.95)))


def draw_hand(rng: random.Random, image: np.ndarray, unit: float) -> None:
    """A hand reaching in from the photo's edge: palm, four fingers, a thumb, in skin colour."""
    h, w = image.shape[:2]
    side = rng.randrange(4)
    cx, cy = [(rng.uniform(0, w), 0.0), (w, rng.uniform(0, h)), (rng.uniform(0, w), h), (0.0, rng.uniform(0, h))][side]
    reach = [90, 180, 270, 0][side] + rng.uniform(-40, 40)  # degrees, pointing into the photo
    a = math.radians(reach)
    palm = unit * rng.uniform(1.5, 3.0)
    px, py = cx + math.cos(a) * palm * 0.8, cy + math.sin(a) * palm * 0.8
    skin = _skin(rng)
    dark = [int(c * 0.7) for c in skin]
    cv2.line(image, (int(cx), int(cy)), (int(px), int(py)), skin, int(palm * 0.9), cv2.LINE_AA)  # wrist
    cv2.ellipse(image, (int(px), int(py)), (int(palm * 0.6), int(palm * 0.5)), reach, 0, 360, skin, -1, cv2.LINE_AA)
    for k in range(4):
        fa = a + math.radians((k - 1.5) * rng.uniform(8, 14))
        length = palm * rng.uniform(0.7, 1.1)
        base = (px + math.cos(fa) * palm * 0.45, py + math.sin(fa) * palm * 0.45)
        tip = (base[0] + math.cos(fa) * length, base[1] + math.sin(fa) * length)
        thick = max(2, int(palm * 0.2))
        cv2.line(image, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), dark, thick + 2, cv2.LINE_AA)
        cv2.line(image, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), skin, thick, cv2.LINE_AA)
    ta = a + math.radians(rng.choice([-70, 70]))
    tip = (px + math.cos(ta) * palm * 0.9, py + math.sin(ta) * palm * 0.9)
    cv2.line(image, (int(px), int(py)), (int(tip[0]), int(tip[1])), skin, max(2, int(palm * 0.24)), cv2.LINE_AA)


def draw_paper(rng: random.Random, image: np.ndarray, unit: float) -> None:
    """A sheet (score card, instructions) with lines of text, or a book with a title block."""
    h, w = image.shape[:2]
    book = rng.random() < 0.4
    size = (unit * rng.uniform(3, 8), unit * rng.uniform(4, 10))
    centre = (rng.uniform(0, w), rng.uniform(0, h))
    angle = rng.uniform(0, 180)
    box = cv2.boxPoints((centre, size, angle)).astype(np.int32)
    cover = _colour(rng) if book else _light_colour(rng)
    cv2.fillConvexPoly(image, box + int(unit * 0.1), (30, 30, 30), cv2.LINE_AA)  # shadow
    if book:  # page edges first, the cover a little smaller on top
        cv2.fillConvexPoly(image, box, (225, 230, 235), cv2.LINE_AA)
        box = cv2.boxPoints((centre, (size[0] * 0.95, size[1] * 0.97), angle)).astype(np.int32)
    cv2.fillConvexPoly(image, box, cover.tolist(), cv2.LINE_AA)
    ink = (_light_colour(rng) if book else _colour(rng, (0.0, 0.5), (0.05, 0.4))).tolist()
    turn = cv2.getRotationMatrix2D(centre, -angle, 1.0)
    lines = rng.randint(1, 3) if book else rng.randint(4, 16)
    step = size[1] * 0.8 / max(lines, 1)
    for k in range(lines):
        y = centre[1] - size[1] * 0.4 + k * step + step / 2
        x0 = centre[0] - size[0] * 0.4
        x1 = x0 + size[0] * 0.8 * rng.uniform(0.4, 1.0)
        words, x = [], x0
        while x < x1:  # words: short dark bars
            length = unit * rng.uniform(0.2, 0.8)
            words.append(((x, y), (min(x + length, x1), y)))
            x += length + unit * 0.15
        for p, q in words:
            pts = cv2.transform(np.array([[p, q]], np.float32), turn)[0]
            cv2.line(image, tuple(int(v) for v in pts[0]), tuple(int(v) for v in pts[1]), ink,
                     max(1, int(min(step * rng.uniform(0.2, 0.45), unit * 0.25))), cv2.LINE_AA)


HARD_NEGATIVES = (draw_hand, draw_paper)


def table_source(families: Sequence[str], negatives: float = 0.5, cloth: int | None = None) -> TableSource:
    """A `datasets.render` table source: a family drawn from `families`, slanted, and with `negatives`
    the chance of one to three hands, papers or books lying on it. `cloth`: one club's table in every
    photo: the family and its pattern (colours, scale to the tiles) drawn from Random(cloth) alone, the
    slant, light and things lying on it from the photo's own draw."""
    names = tuple(families)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise TableSpecError(f"unknown table family {', '.join(unknown) or '(none)'}")

    def draw(rng: random.Random, width: int, height: int, unit: float) -> np.ndarray:
        pattern_rng = rng if cloth is None else random.Random(cloth)
        family = FAMILIES[pattern_rng.choice(names)]
        fw, fh = int(width * SLANT_MARGIN * DRAW_SCALE) + 1, int(height * SLANT_MARGIN * DRAW_SCALE) + 1
        flat = family.pattern(pattern_rng, fw, fh, unit * DRAW_SCALE)
        flat = np.clip(flat, 0, 255).astype(np.uint8)
        image = _slanted(rng, flat, width, height)
        if family.name != "plain":
            image = _add_noise(rng, image, rng.uniform(0.05, 0.25), grey=rng.random() < 0.7)
        if rng.random() < negatives:
            for _ in range(rng.randint(1, 3)):
                rng.choice(HARD_NEGATIVES)(rng, image, unit)
        return image

    return draw


def draw_edge_tiles(rng: random.Random, image: np.ndarray, art: ArtSet, unit: float) -> None:
    """One to three tiles that the photo's edge cuts off, at most 40 % of each in the picture (not labeled)."""
    h, w = image.shape[:2]
    style = draw_style(art, rng)
    faces = sorted(art.faces)
    for _ in range(rng.randint(1, 3)):
        tw, th = max(4, int(unit)), max(6, int(unit * rng.uniform(1.25, 1.45)))
        cls = rng.choice(faces) if rng.random() < 0.85 else BACK
        face = face_pixels(art, cls, style, (tw, th), rng)
        if rng.random() < 0.5:
            face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
        fh, fw = face.shape[:2]
        shown = rng.uniform(0.15, 0.4)
        side = rng.randrange(4)
        if side in (0, 2):  # left or right edge
            x = int(-fw * (1 - shown)) if side == 0 else int(w - fw * shown)
            y = rng.randint(0, max(0, h - fh))
        else:  # top or bottom edge
            y = int(-fh * (1 - shown)) if side == 1 else int(h - fh * shown)
            x = rng.randint(0, max(0, w - fw))
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + fw), min(h, y + fh)
        if x1 > x0 and y1 > y0:
            image[y0:y1, x0:x1] = face[y0 - y:y1 - y, x0 - x:x1 - x]


def render_empty(rng: random.Random, width: int, height: int, source: TableSource, art: ArtSet | None = None,
                 effects: bool = True) -> np.ndarray:
    """A photo of a table with no tile on it (uint8 BGR): the table, clutter, hard negatives, and with
    `art` sometimes tiles cut off by the edge; then the hand scenes' light and camera."""
    unit = min(width, height) / rng.uniform(12, 26)  # a tile width as in the hand scenes
    image = source(rng, width, height, unit)
    draw_clutter(rng, image, unit)
    if art is not None and rng.random() < 0.3:
        draw_edge_tiles(rng, image, art, unit)
    if not effects:
        return image
    return photo_effects(rng, image, [])
