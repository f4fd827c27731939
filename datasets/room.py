"""What stands around a table in a webcam's view: a wall with a door, a window, pictures and papers;
shelves of books (titled spines, from a low camera the hardest look-alikes of a standing tile), boxes,
mugs and plants; and `render_room`, such a photo with no tile at all (a background image for the finder).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import cv2
import numpy as np

from datasets.render import _hsv_colour, _shade, photo_effects
from datasets.tables import TRAIN_FAMILIES, draw_paper, table_source


def _wall_colour(rng: random.Random) -> np.ndarray:
    if rng.random() < 0.7:  # white, cream, grey, pastel
        return np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(0.0, 0.25), rng.uniform(0.55, 0.95)), np.float32)
    return np.array(_hsv_colour(rng.uniform(0, 360), rng.uniform(0.2, 0.7), rng.uniform(0.25, 0.8)), np.float32)


def _any_colour(rng: random.Random) -> tuple[int, int, int]:
    return _hsv_colour(rng.uniform(0, 360), rng.uniform(0.0, 0.9), rng.uniform(0.15, 0.95))


def draw_wall(rng: random.Random, image: np.ndarray, unit: float) -> None:
    """A wall over the whole image (in place): shade, a door or corner, a window, pictures, papers."""
    h, w = image.shape[:2]
    wall = _wall_colour(rng)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = 1 + rng.uniform(-0.25, 0.25) * (xx / w - 0.5) + rng.uniform(-0.2, 0.2) * (yy / h - 0.5)
    image[:] = np.clip(wall * ramp[..., None], 0, 255).astype(np.uint8)
    if rng.random() < 0.4:  # a corner or a door frame: the wall in another shade beyond a vertical edge
        x = rng.randrange(w)
        side = slice(x, w) if rng.random() < 0.5 else slice(0, x)
        image[:, side] = np.clip(image[:, side].astype(np.float32) * rng.uniform(0.6, 0.9), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # a window: bright, with bars
        x0, y0 = rng.randrange(w), rng.randrange(max(1, h // 2))
        x1, y1 = int(x0 + unit * rng.uniform(8, 25)), int(y0 + unit * rng.uniform(8, 20))
        cv2.rectangle(image, (x0, y0), (x1, y1), (245, 248, 250) if rng.random() < 0.6 else _any_colour(rng), -1)
        bar = max(1, int(unit * 0.3))
        cv2.rectangle(image, (x0, y0), (x1, y1), _any_colour(rng), bar)
        cv2.line(image, ((x0 + x1) // 2, y0), ((x0 + x1) // 2, y1), _any_colour(rng), bar)
    for _ in range(rng.randint(0, 3)):  # pictures in frames
        x0, y0 = rng.randrange(w), rng.randrange(max(1, h))
        x1, y1 = int(x0 + unit * rng.uniform(4, 12)), int(y0 + unit * rng.uniform(4, 12))
        cv2.rectangle(image, (x0, y0), (x1, y1), _any_colour(rng), -1)
        inner = max(1, int(unit * rng.uniform(0.3, 1.0)))
        for _ in range(rng.randint(1, 4)):  # what the picture shows: a few soft shapes
            centre = (rng.randint(x0, max(x0, x1)), rng.randint(y0, max(y0, y1)))
            cv2.circle(image, centre, max(1, int(unit * rng.uniform(0.5, 3))), _any_colour(rng), -1, cv2.LINE_AA)
        cv2.rectangle(image, (x0, y0), (x1, y1), _any_colour(rng), inner)
    for _ in range(rng.randint(0, 2)):  # notes and calendars pinned on the wall
        draw_paper(rng, image, unit * rng.uniform(0.8, 1.5))


def _book(rng: random.Random, image: np.ndarray, x: float, floor: float, unit: float, spine_text: float = 0.0) -> float:
    """One book standing on a shelf at `floor` from `x` (or leaning); returns its width.  `spine_text`: the
    chance that its spine carries a printed title."""
    width, height = unit * rng.uniform(0.5, 2.0), unit * rng.uniform(5.0, 10.0)
    colour = _any_colour(rng)
    lean = rng.uniform(-15, 15) if rng.random() < 0.1 else 0.0
    box = cv2.boxPoints(((x + width / 2, floor - height / 2), (width, height), lean)).astype(np.float32)
    cv2.fillConvexPoly(image, np.round(box).astype(np.int32), colour, cv2.LINE_AA)
    light = _shade(colour, rng.uniform(1.2, 1.6)) if sum(colour) < 400 else _shade(colour, 0.6)
    if spine_text > 0 and rng.random() < spine_text:
        print_title(rng, image, (x, floor - height, x + width, floor), colour)
        return width
    for _ in range(rng.randint(0, 3)):  # bands across the spine
        y = floor - height * rng.uniform(0.05, 0.9)
        band = max(1, int(unit * rng.uniform(0.1, 0.5)))
        cv2.rectangle(image, (int(x), int(y)), (int(x + width), int(y + band)), light, -1)
    if rng.random() < 0.6:  # a title: a label block with lines
        y = floor - height * rng.uniform(0.4, 0.8)
        tall = unit * rng.uniform(0.8, 2.5)
        cv2.rectangle(image, (int(x + width * 0.15), int(y)), (int(x + width * 0.85), int(y + tall)), light, -1)
        for k in range(rng.randint(1, 4)):
            ty = int(y + tall * (k + 0.5) / 4)
            cv2.line(image, (int(x + width * 0.3), ty), (int(x + width * 0.7), ty), _shade(colour, 0.4),
                     max(1, int(unit * 0.08)))
    cv2.line(image, (int(x + width), int(floor - height)), (int(x + width), int(floor)), _shade(colour, 0.5), 1)
    return width


def draw_mug(rng: random.Random, image: np.ndarray, x: float, floor: float, size: float) -> None:
    """A mug, a cup or a jar standing at (x, floor), `size` pixels wide."""
    colour = _any_colour(rng)
    w, h = size, size * rng.uniform(0.9, 1.4)
    rim = max(1, int(w * 0.15))
    if rng.random() < 0.7:  # the handle
        cv2.ellipse(image, (int(x + w), int(floor - h / 2)), (int(w * 0.3), int(h * 0.3)), 0, -90, 90,
                    _shade(colour, 0.8), max(1, int(w * 0.1)), cv2.LINE_AA)
    cv2.ellipse(image, (int(x + w / 2), int(floor)), (int(w / 2), rim), 0, 0, 180, _shade(colour, 0.7), -1, cv2.LINE_AA)
    cv2.rectangle(image, (int(x), int(floor - h)), (int(x + w), int(floor)), colour, -1)
    cv2.rectangle(image, (int(x + w * 0.7), int(floor - h)), (int(x + w), int(floor)), _shade(colour, 0.8), -1)
    cv2.ellipse(image, (int(x + w / 2), int(floor - h)), (int(w / 2), rim), 0, 0, 360, _shade(colour, 0.5), -1, cv2.LINE_AA)


def draw_plant(rng: random.Random, image: np.ndarray, x: float, floor: float, size: float) -> None:
    pot = _any_colour(rng)
    cv2.rectangle(image, (int(x), int(floor - size)), (int(x + size), int(floor)), pot, -1)
    leaf = _hsv_colour(rng.uniform(80, 150), rng.uniform(0.4, 0.9), rng.uniform(0.2, 0.7))
    stem = _shade(leaf, 0.7)
    for _ in range(rng.randint(4, 10)):
        centre = (int(x + size / 2 + rng.uniform(-0.6, 0.6) * size), int(floor - size - rng.uniform(0.1, 1.1) * size))
        cv2.line(image, (int(x + size / 2), int(floor - size)), centre, stem, max(1, int(size * 0.04)), cv2.LINE_AA)
        axes = (max(1, int(size * rng.uniform(0.2, 0.5))), max(1, int(size * rng.uniform(0.08, 0.2))))
        cv2.ellipse(image, centre, axes, rng.uniform(0, 180), 0, 360, leaf, -1, cv2.LINE_AA)


def print_title(rng: random.Random, image: np.ndarray, box: tuple[float, float, float, float],
                colour: Sequence[int]) -> None:
    """A title printed down a spine (in place): CJK glyphs stacked, or Latin letters turned on their side,
    dark on light or light on dark, sometimes on a light label: from a low webcam a white spine with black
    glyphs looks much like a standing tile, and the finder must tell them apart."""
    from PIL import Image, ImageDraw, ImageFont

    from datasets.restyle import system_fonts

    x0, y0, x1, y1 = (round(v) for v in box)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    bw, bh = x1 - x0, y1 - y0
    if bw < 4 or bh < 8:
        return
    latin, cjk = system_fonts()
    background: tuple[int, int, int] = (int(colour[0]), int(colour[1]), int(colour[2]))
    if rng.random() < 0.35:  # a white or cream label with dark print: the hardest spines
        background = _hsv_colour(rng.uniform(30, 60), rng.uniform(0.0, 0.15), rng.uniform(0.85, 0.98))
        image[y0:y1, x0:x1] = background
    ink = _shade(background, 0.25) if sum(background) > 380 else _shade(background, 3.0)
    if rng.random() < 0.3:
        ink = _any_colour(rng)
    size = max(6, int(bw * rng.uniform(0.55, 0.85)))
    use_cjk = bool(cjk) and (rng.random() < 0.6 or not latin)
    fonts = cjk if use_cjk else latin
    try:
        font = ImageFont.truetype(str(rng.choice(fonts)), size) if fonts else ImageFont.load_default()
    except OSError:
        font = ImageFont.load_default()
    if use_cjk:  # glyphs stacked top to bottom
        count = max(1, min(int(bh * rng.uniform(0.4, 0.9) / (size * 1.1)), 8))
        text = "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(count))
        canvas = Image.new("RGB", (bw, bh), background[::-1])
        draw = ImageDraw.Draw(canvas)
        top = rng.uniform(0.03, 0.3) * bh
        for k, glyph in enumerate(text):
            draw.text(((bw - size) / 2, top + k * size * 1.1), glyph, font=font, fill=tuple(ink[::-1]))
        spine = np.asarray(canvas)[..., ::-1]
    else:  # a line of Latin letters and digits read sideways
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789"
        text = "".join(rng.choice(letters) for _ in range(rng.randint(4, 18))).strip() or "A"
        canvas = Image.new("RGB", (bh, bw), background[::-1])
        ImageDraw.Draw(canvas).text((rng.uniform(0.03, 0.3) * bh, (bw - size) / 2), text, font=font, fill=tuple(ink[::-1]))
        spine = np.ascontiguousarray(np.rot90(np.asarray(canvas)[..., ::-1], rng.choice([1, 3])))
    image[y0:y1, x0:x1] = spine[:bh, :bw]


def draw_shelves(rng: random.Random, image: np.ndarray, unit: float, bottom: int, spine_text: float = 0.0) -> None:
    """One to three shelves above `bottom` (image rows), filled with books, boxes, mugs and plants;
    `spine_text`: the chance that a book's spine carries a printed title."""
    _h, w = image.shape[:2]
    if bottom < unit * 4:
        return
    wood = _hsv_colour(rng.uniform(15, 40), rng.uniform(0.2, 0.7), rng.uniform(0.3, 0.9)) if rng.random() < 0.7 \
        else _any_colour(rng)
    x0 = rng.uniform(-0.2, 0.5) * w
    x1 = x0 + rng.uniform(0.4, 1.3) * w
    plank = max(2, int(unit * rng.uniform(0.3, 0.7)))
    for _ in range(rng.randint(1, 3)):
        floor = rng.uniform(unit * 6, bottom)
        x = x0
        while x < x1:
            roll = rng.random()
            if roll < 0.7:
                x += _book(rng, image, x, floor, unit, spine_text)
            elif roll < 0.8:
                draw_mug(rng, image, x, floor, unit * rng.uniform(2, 3.5))
                x += unit * 4.5
            elif roll < 0.87:
                draw_plant(rng, image, x, floor, unit * rng.uniform(2, 3.5))
                x += unit * 4.5
            elif roll < 0.93:  # a box or books lying flat
                bw, bh = unit * rng.uniform(4, 9), unit * rng.uniform(0.8, 3)
                cv2.rectangle(image, (int(x), int(floor - bh)), (int(x + bw), int(floor)), _any_colour(rng), -1)
                x += bw
            else:
                x += unit * rng.uniform(1, 6)  # a gap
        cv2.rectangle(image, (int(x0), int(floor)), (int(x1), int(floor + plank)), wood, -1)
        cv2.rectangle(image, (int(x0), int(floor + plank)), (int(x1), int(floor + plank * 1.6)), _shade(wood, 0.6), -1)


def render_room(rng: random.Random, width: int, height: int, families: Sequence[str] = TRAIN_FAMILIES) -> np.ndarray:
    """A webcam photo of what stands around a table and no tile: a wall with shelves of titled books,
    boxes, mugs and plants, the table's edge below with papers, hands, dice and coins (a background image)."""
    image = np.zeros((height, width, 3), np.uint8)
    unit = min(width, height) / rng.uniform(14, 40)  # a book spine about as wide as a tile at the table
    draw_wall(rng, image, unit)
    table_top = int(height * rng.uniform(0.45, 1.0))
    draw_shelves(rng, image, unit, table_top, spine_text=0.8)
    if table_top < height:
        table = table_source(families, negatives=1.0)(rng, width, height - table_top, unit * rng.uniform(0.7, 1.3))
        image[table_top:] = table
        from datasets.render import draw_clutter

        draw_clutter(rng, image[table_top:], unit)
    if rng.random() < 0.5:
        sigma = unit * rng.uniform(0.02, 0.1)
        image[:] = cv2.GaussianBlur(image, (0, 0), sigma)
    return photo_effects(rng, image, [])
