"""Suit and honour faces drawn from shapes and system fonts, in the many ways tile sets draw them.

Tile sets agree on what a face says (six sticks, 五 over 萬, 東) but not on how it is
drawn: six sticks stand in two rows of three or three rows of two, dots come in any colour
scheme, numerals in any brush.  A classifier that saw five artworks learns those five
drawings; `drawn_faces(rng, fonts)` draws one more, different each call, so that a share of
the restyled scenes (`datasets.restyle`) teaches it to count pips and read characters.

Faces are glyphs on a transparent background (RGBA, `FACE_SIZE`), like the KDE and GL sets.
The one-of-bamboo is a bird on most sets and one big stick on some: half the drawn sets draw
the stick, the rest keep their artwork's bird.  Characters, winds and the red and green
dragons need a CJK font and are left out without one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets.art import FACE_SIZE

Colour = tuple[int, int, int]  # BGR
Point = tuple[float, float]  # share of the face width, height

PIP_INK: tuple[Colour, ...] = ((40, 120, 30), (160, 70, 20), (40, 40, 180), (30, 30, 30), (150, 110, 20))
NUMERALS = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九"}
FORMAL_NUMERALS = {5: "伍", 6: "陸"}  # as some sets print them
HONOURS = {"E": "東", "S": "南", "W": "西", "N": "北", "C": "中", "F": "發"}
SIMPLIFIED = {"F": "发"}
NUMERAL_INK: tuple[Colour, ...] = ((30, 30, 30), (140, 50, 20), (30, 30, 170))
MAN_INK: tuple[Colour, ...] = ((30, 30, 180), (40, 40, 140), (30, 30, 30))


def _grid(columns: int, rows: int, top: float = 0.14, bottom: float = 0.86, left: float = 0.2, right: float = 0.8) -> list[Point]:
    xs = [left + (right - left) * i / (columns - 1) for i in range(columns)] if columns > 1 else [0.5]
    ys = [top + (bottom - top) * j / (rows - 1) for j in range(rows)] if rows > 1 else [0.5]
    return [(x, y) for y in ys for x in xs]


def _rows(*counts: int, top: float = 0.14, bottom: float = 0.86) -> list[Point]:
    """Rows of pips, `counts[i]` in row i, each row centred."""
    points = []
    for j, n in enumerate(counts):
        y = top + (bottom - top) * j / (len(counts) - 1) if len(counts) > 1 else 0.5
        points += [(0.2 + 0.6 * i / (n - 1) if n > 1 else 0.5, y) for i in range(n)]
    return points


# Every arrangement seen on common sets, for each count; a drawn set picks one per rank.
ARRANGEMENTS: dict[int, tuple[list[Point], ...]] = {
    2: (_grid(1, 2, 0.25, 0.75), [(0.32, 0.3), (0.68, 0.7)]),
    3: ([(0.25, 0.2), (0.5, 0.5), (0.75, 0.8)], _grid(1, 3), _rows(1, 2, top=0.25, bottom=0.75)),
    4: (_grid(2, 2, 0.25, 0.75),),
    5: ([*_grid(2, 2, 0.2, 0.8), (0.5, 0.5)],),
    6: (_grid(2, 3), _grid(2, 3, left=0.33, right=0.67), _grid(3, 2, 0.28, 0.72),
        _grid(2, 1, 0.2, 0.2, 0.3, 0.7) + _grid(2, 2, 0.52, 0.85)),
    7: ([(0.22, 0.16), (0.5, 0.27), (0.78, 0.38), *_grid(2, 2, 0.6, 0.86)], _rows(1, 3, 3), _rows(3, 1, 3)),
    8: (_grid(2, 4), _grid(4, 2, 0.3, 0.7), _rows(3, 2, 3)),
    9: (_grid(3, 3),),
}


def _ring_pip(image: np.ndarray, centre: tuple[int, int], radius: int, colours: Sequence[Colour], rings: int) -> None:
    for k in range(rings):
        r = max(1, round(radius * (1 - k / rings)))
        cv2.circle(image, centre, r, (*colours[k % len(colours)], 255), -1 if k == rings - 1 else max(1, radius // 5), cv2.LINE_AA)
    cv2.circle(image, centre, radius, (*colours[0], 255), max(1, radius // 6), cv2.LINE_AA)


STICK_STYLES = ("knotted", "bone", "outlined")


def _stick(image: np.ndarray, centre: tuple[int, int], length: int, width: int, angle: float, colour: Colour,
           nodes: int, style: str = "knotted") -> None:
    """A bamboo stick turned by `angle` degrees from upright: a bar with knots ("knotted"), a thin
    shaft between wide end caps ("bone"), or a hollow bar with knots ("outlined")."""
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    def at(dx: float, dy: float) -> tuple[int, int]:
        return round(centre[0] + dx * c - dy * s), round(centre[1] + dx * s + dy * c)
    def bar(half_w: float, y0: float, y1: float, ink: Colour, thickness: int) -> None:
        corners = np.array([at(-half_w, y0), at(half_w, y0), at(half_w, y1), at(-half_w, y1)], np.int32)
        if thickness < 0:
            cv2.fillConvexPoly(image, corners, (*ink, 255), cv2.LINE_AA)
        else:
            cv2.polylines(image, [corners], True, (*ink, 255), thickness, cv2.LINE_AA)
    half_l, half_w = length / 2, width / 2
    dark: Colour = (int(colour[0] * 0.55), int(colour[1] * 0.55), int(colour[2] * 0.55))
    if style == "bone":
        cap = max(2.0, length * 0.14)
        bar(half_w * 0.45, -half_l, half_l, colour, -1)
        for y0 in (-half_l, half_l - cap):
            bar(half_w * 1.5, y0, y0 + cap, colour, -1)
            bar(half_w * 1.5, y0, y0 + cap, dark, max(1, width // 6))
        bar(half_w * 0.45, -half_l, half_l, dark, max(1, width // 6))
        return
    bar(half_w, -half_l, half_l, colour, max(2, width // 4) if style == "outlined" else -1)
    for k in range(nodes + 2):  # the ends and the knots, a little wider than the stick
        y = -half_l + length * k / (nodes + 1)
        cv2.line(image, at(-half_w * 1.35, y), at(half_w * 1.35, y), (*dark, 255), max(2, width // 3), cv2.LINE_AA)


def _place(points: Sequence[Point], draw: Callable[[np.ndarray, tuple[int, int], int], None]) -> np.ndarray:
    w, h = FACE_SIZE
    image = np.zeros((h, w, 4), np.uint8)
    for i, (x, y) in enumerate(points):
        draw(image, (round(x * w), round(y * h)), i)
    return image


def _pip_size(points: Sequence[Point]) -> float:
    """The largest pip radius that keeps pips apart and inside the face, in pixels."""
    w, h = FACE_SIZE
    gaps = [np.hypot((a[0] - b[0]) * w, (a[1] - b[1]) * h) / 2 for i, a in enumerate(points) for b in points[i + 1 :]]
    edges = [min(x * w, (1 - x) * w, y * h, (1 - y) * h) - 2 for x, y in points]
    return min(gaps + edges)


def _colour_scheme(rng: random.Random, count: int) -> Callable[[int], Colour]:
    """One colour, or one per row-ish band, or alternating: as the sets do."""
    a, b, c = rng.sample(PIP_INK, 3)
    kind = rng.randrange(3)
    if kind == 0:
        return lambda i: a
    if kind == 1:
        return lambda i: (a, b)[i % 2]
    return lambda i: (a, b, c)[min(2, i * 3 // max(1, count))]


def _dots(rank: int, rng: random.Random, arrangement: Sequence[Point]) -> np.ndarray:
    if rank == 1:
        colours = rng.sample(PIP_INK, 3)
        r = round(FACE_SIZE[0] * rng.uniform(0.3, 0.4))
        return _place([(0.5, 0.5)], lambda img, p, i: _ring_pip(img, p, r, colours, rng.randint(3, 6)))
    radius = max(3, round(_pip_size(arrangement) * rng.uniform(0.62, 0.88)) - 2)  # less the rim's stroke
    colour_of = _colour_scheme(rng, rank)
    rings = rng.randint(2, 4)
    second = rng.choice(PIP_INK)
    return _place(arrangement, lambda img, p, i: _ring_pip(img, p, radius, (colour_of(i), second), rings))


def _bamboo(rank: int, rng: random.Random, arrangement: Sequence[Point], split_eight: bool) -> np.ndarray:
    w, h = FACE_SIZE
    colour_of = _colour_scheme(rng, rank)
    nodes = rng.randint(1, 2)
    style = rng.choice(STICK_STYLES)
    rows = len({round(y, 3) for _, y in arrangement})
    # bones are stacked end to end, the columns reading as one long stick (and a six of two columns like a nine)
    reach = (0.42, 0.84) if style == "bone" else (0.26, 0.72)
    length = min(h * reach[0], h * reach[1] / rows) * rng.uniform(0.8, 0.95)
    width = max(4, round(w * rng.uniform(0.07, 0.1)))
    if rank == 8 and split_eight:  # the two 'M' / 'W' shapes most sets use for eight
        tilt = rng.uniform(18, 30)
        spec = [(0.18, 0.27, 0), (0.39, 0.27, tilt), (0.61, 0.27, -tilt), (0.82, 0.27, 0),
                (0.18, 0.73, 0), (0.39, 0.73, -tilt), (0.61, 0.73, tilt), (0.82, 0.73, 0)]
        return _place([(x, y) for x, y, _ in spec],
                      lambda img, p, i: _stick(img, p, round(h * 0.3), width, spec[i][2], colour_of(i), nodes, style))
    if style == "bone" and rows > 1:
        arrangement = stacked_end_to_end(arrangement, length / h)
    return _place(arrangement, lambda img, p, i: _stick(img, p, round(length), width, 0.0, colour_of(i), nodes, style))


def stacked_end_to_end(arrangement: Sequence[Point], stick_length: float) -> list[Point]:
    """The rows of an arrangement moved together so that sticks `stick_length` long (share of the
    face's height) touch end to end, centred: bone sets draw a six as three columns of two and a nine
    as three columns of three, and only the count of segments in a column tells them apart."""
    rows = sorted({round(y, 3) for _, y in arrangement})
    centre = (len(rows) - 1) / 2
    moved = {row: 0.5 + (j - centre) * stick_length for j, row in enumerate(rows)}
    return [(x, moved[round(y, 3)]) for x, y in arrangement]


@lru_cache(maxsize=64)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def text_rgba(text: str, height: int, max_width: int, colour: Colour, font: Path | None) -> np.ndarray:
    """`text` as an RGBA (BGR order) image about `height` px tall, no wider than `max_width`;
    `font` None: OpenCV's own font."""
    image: np.ndarray
    if font is None:
        scale = height / 22
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
        image = np.zeros((th + base + 4, tw + 4, 4), np.uint8)
        cv2.putText(image, text, (2, th + 2), cv2.FONT_HERSHEY_SIMPLEX, scale, (*colour, 255), max(1, round(scale * 2)), cv2.LINE_AA)
    else:
        pil_font = _font(str(font), max(6, height))
        x0, y0, x1, y1 = pil_font.getbbox(text)
        canvas = Image.new("RGBA", (max(1, math.ceil(x1 - x0) + 4), max(1, math.ceil(y1 - y0) + 4)), (0, 0, 0, 0))
        ImageDraw.Draw(canvas).text((2 - x0, 2 - y0), text, font=pil_font, fill=(colour[2], colour[1], colour[0], 255))
        image = np.asarray(canvas)[..., [2, 1, 0, 3]].copy()
    if image.shape[1] > max_width:
        scale = max_width / image.shape[1]
        image = cv2.resize(image, (max_width, max(1, round(image.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    return image


def paste_over(face: np.ndarray, sprite: np.ndarray, x: int, y: int) -> None:
    """Alpha-composite `sprite` onto the RGBA `face` at (x, y), clipped to the face."""
    h, w = face.shape[:2]
    x, y = max(0, min(x, w - 1)), max(0, min(y, h - 1))
    sprite = sprite[: h - y, : w - x]
    sh, sw = sprite.shape[:2]
    a = sprite[..., 3:4].astype(np.float32) / 255
    region = face[y : y + sh, x : x + sw].astype(np.float32)
    region[..., :3] = region[..., :3] * (1 - a) + sprite[..., :3] * a
    region[..., 3:4] = np.maximum(region[..., 3:4], sprite[..., 3:4])
    face[y : y + sh, x : x + sw] = region.astype(np.uint8)


def _stack(parts: Sequence[np.ndarray], gap: int) -> np.ndarray:
    """Sprites one above the other, centred, filling the face height."""
    w, h = FACE_SIZE
    image = np.zeros((h, w, 4), np.uint8)
    y = max(0, (h - sum(p.shape[0] for p in parts) - gap * (len(parts) - 1)) // 2)
    for part in parts:
        paste_over(image, part, (w - part.shape[1]) // 2, y)
        y += part.shape[0] + gap
    return image


def _character(rank: int, font: Path, numeral_ink: Colour, man_ink: Colour, man: str,
               formal: bool, split: float) -> np.ndarray:
    w, h = FACE_SIZE
    numeral = FORMAL_NUMERALS.get(rank, NUMERALS[rank]) if formal else NUMERALS[rank]
    top = text_rgba(numeral, round(h * split), round(w * 0.86), numeral_ink, font)
    bottom = text_rgba(man, round(h * (0.86 - split)), round(w * 0.86), man_ink, font)
    return _stack([top, bottom], max(2, round(h * 0.03)))


def _honour(cls: str, rng: random.Random, font: Path, ink: Colour, simplified: bool) -> np.ndarray:
    w, h = FACE_SIZE
    glyph = SIMPLIFIED.get(cls, HONOURS[cls]) if simplified else HONOURS[cls]
    return _stack([text_rgba(glyph, round(h * rng.uniform(0.5, 0.7)), round(w * 0.9), ink, font)], 0)


def drawn_faces(rng: random.Random, cjk_fonts: Sequence[Path]) -> dict[str, np.ndarray]:
    """One drawn set: 2s..9s and 1p..9p always, 1s half the time, 1m..9m and the winds, 中 and 發
    when there is a CJK font."""
    faces: dict[str, np.ndarray] = {}
    split_eight = rng.random() < 0.6
    if rng.random() < 0.5:
        w, h = FACE_SIZE
        ink = rng.choice(PIP_INK)
        faces["1s"] = _place([(0.5, 0.5)], lambda img, p, i: _stick(img, p, round(h * rng.uniform(0.5, 0.7)),
                                                                   round(w * rng.uniform(0.16, 0.26)), 0.0, ink,
                                                                   rng.randint(1, 3)))
    for rank in range(1, 10):
        arrangement = rng.choice(ARRANGEMENTS[rank]) if rank > 1 else [(0.5, 0.5)]
        faces[f"{rank}p"] = _dots(rank, rng, arrangement)
        if rank > 1:
            faces[f"{rank}s"] = _bamboo(rank, rng, rng.choice(ARRANGEMENTS[rank]), split_eight)
    if cjk_fonts:
        font = rng.choice(list(cjk_fonts))
        numeral_ink, man_ink = rng.choice(NUMERAL_INK), rng.choice(MAN_INK)
        man, formal, split = ("萬" if rng.random() < 0.8 else "万"), rng.random() < 0.3, rng.uniform(0.3, 0.42)
        for rank in range(1, 10):
            faces[f"{rank}m"] = _character(rank, font, numeral_ink, man_ink, man, formal, split)
        wind_ink = rng.choice(NUMERAL_INK)
        simplified = rng.random() < 0.3
        for cls in "ESWN":
            faces[cls] = _honour(cls, rng, font, wind_ink, simplified)
        faces["C"] = _honour("C", rng, font, (30, 30, 190), simplified)
        faces["F"] = _honour("F", rng, font, (40, 130, 30), simplified)
    return faces
