"""Restyle an art set the way real tile sets differ from one another.

Five trained artworks teach a classifier those five drawings; a tile set it has
never seen differs in ways that repeat from set to set: flowers and seasons are
any picture with a caption that names them (a numeral, 梅蘭菊竹 / 春夏秋冬, or an
English name, or a framed 梅..冬 alone, or a picture with a numeral), the white
dragon is some frame or lattice, suits and honours are drawn in other arrangements,
colours and brushes (`datasets.drawn`), and suits and winds may carry a corner index
with the glyph shrunk to make room.  `restyle(art, rng)` draws one
such variant of a set, so that a share of the synthetic scenes (`datasets.synth
--restyle`) teaches the model to read what identifies a face rather than one
artist's picture of it.

Fonts come from the system (`FONT_DIRS`); without a CJK font the Chinese
captions are left out, without any TrueType font only OpenCV's own is used.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from datasets.art import FACE_SIZE, ArtSet
from datasets.drawn import drawn_faces, paste_over, text_rgba
from datasets.render import Colour, panel_colour
from scoring.tiles import SUITS, WIND_NAMES
from tileset.classes import FLOWER_NAMES

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".fonts")
CJK_FONT_HINTS = ("wqy", "cjk", "droidsansfallback", "ukai", "uming", "arphic", "hei", "song")
FLOWER_WORDS: dict[str, tuple[str, ...]] = {
    "f1": ("PLUM", "Plum"),
    "f2": ("ORCHID", "Orchid", "ORC"),
    "f3": ("CHRYS", "Chrysanthemum", "MUM", "Mum"),
    "f4": ("BAMBOO", "Bamboo", "BAM"),
    "s1": ("SPRING", "Spring", "SPR"),
    "s2": ("SUMMER", "Summer", "SUM"),
    "s3": ("AUTUMN", "Autumn", "AUT", "FALL"),
    "s4": ("WINTER", "Winter", "WIN"),
}
FLOWER_CHARACTERS = dict(zip(FLOWER_NAMES, "梅蘭菊竹春夏秋冬", strict=False))  # traditional script, as printed on tiles
DRAWN_SHARE = 0.5  # restyled sets whose suits and honours are drawn anew (datasets.drawn)
FLOWER_STYLES = ("caption", "caption", "character", "numbered")
INK = ((20, 20, 20), (30, 30, 170), (170, 60, 20), (30, 120, 30), (20, 20, 120), (120, 40, 120), (20, 140, 190))  # BGR


@dataclass(frozen=True)
class Convention:
    """What one restyled set does alike on all its faces."""

    caption_on_top: bool  # flower captions at the top (else at the bottom)
    caption_ink: Colour
    index_ink: Colour
    index_on_right: bool  # corner index top right (else top left)
    glyph_shrink: float  # the glyph's share of the face when an index makes room
    index_size: float  # index height, share of the face height
    index_font: Path | None  # None: OpenCV's own font
    flower_style: str  # "caption" (picture and caption), "character" (framed 梅..冬) or "numbered" (picture, numeral)

    @staticmethod
    def draw(rng: random.Random, latin: tuple[Path, ...]) -> Convention:
        return Convention(
            caption_on_top=rng.random() < 0.4,
            caption_ink=INK[rng.randrange(len(INK))],
            index_ink=INK[rng.randrange(len(INK))],
            index_on_right=rng.random() < 0.5,
            glyph_shrink=rng.uniform(0.72, 0.88),
            index_size=rng.uniform(0.14, 0.22),
            index_font=rng.choice(latin) if latin else None,
            flower_style=rng.choice(FLOWER_STYLES),
        )


def corner_index(cls: str) -> str | None:
    """The index printed in the corner of a suit tile (its rank) or a wind (its letter); None for others."""
    if cls in WIND_NAMES:
        return cls
    return cls[0] if len(cls) == 2 and cls[1] in SUITS else None


@lru_cache(maxsize=1)
def system_fonts() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(Latin TrueType fonts, CJK fonts), each sorted by path, found under FONT_DIRS and the folders of MCR_FONT_DIRS
    (joined by os.pathsep): fonts carried to a machine that has none (scripts/gpu_train.sh)."""
    carried = tuple(Path(d) for d in os.environ.get("MCR_FONT_DIRS", "").split(os.pathsep) if d)
    found = sorted({p for d in carried + FONT_DIRS if d.is_dir() for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".ttc", ".otf")})
    cjk = tuple(p for p in found if any(h in p.name.lower() for h in CJK_FONT_HINTS))
    latin = tuple(p for p in found if p not in cjk and "math" not in p.name.lower())
    return latin, cjk


def _shrink(face: np.ndarray, scale: float, anchor: tuple[float, float]) -> np.ndarray:
    """The glyph scaled down by `scale`, placed at `anchor` (share of the free room left/top)."""
    h, w = face.shape[:2]
    gw, gh = max(1, round(w * scale)), max(1, round(h * scale))
    out = np.zeros_like(face)
    x, y = round((w - gw) * anchor[0]), round((h - gh) * anchor[1])
    out[y : y + gh, x : x + gw] = cv2.resize(face, (gw, gh), interpolation=cv2.INTER_AREA)
    return out


def _plant(rng: random.Random) -> np.ndarray:
    """A made-up flower or tree: stems, leaves and petals in random colours (RGBA, FACE_SIZE)."""
    w, h = FACE_SIZE
    image = np.zeros((h, w, 4), np.uint8)
    stem = (rng.randint(20, 90), rng.randint(60, 140), rng.randint(20, 110), 255)
    base = (w // 2 + rng.randint(-15, 15), h - rng.randint(10, 40))
    tips = []
    for _ in range(rng.randint(1, 4)):
        tip = (rng.randint(15, w - 15), rng.randint(15, h // 2 + 20))
        cv2.line(image, base, tip, stem, rng.randint(2, 6), cv2.LINE_AA)
        tips.append(tip)
        for _ in range(rng.randint(0, 3)):
            t = rng.uniform(0.3, 0.8)
            p = (round(base[0] + (tip[0] - base[0]) * t), round(base[1] + (tip[1] - base[1]) * t))
            cv2.ellipse(image, p, (rng.randint(6, 16), rng.randint(3, 6)), rng.uniform(0, 180), 0, 360, stem, -1, cv2.LINE_AA)
    petal = (rng.randint(0, 255), rng.randint(0, 255), rng.randint(60, 255), 255)
    centre = (rng.randint(0, 120), rng.randint(120, 255), rng.randint(120, 255), 255)
    for tip in tips:
        r, n = rng.randint(5, 16), rng.randint(4, 8)
        for k in range(n):
            angle = 2 * np.pi * k / n
            p = (round(tip[0] + r * np.cos(angle)), round(tip[1] + r * np.sin(angle)))
            cv2.circle(image, p, max(2, r * 2 // 3), petal, -1, cv2.LINE_AA)
        cv2.circle(image, tip, max(2, r // 2), centre, -1, cv2.LINE_AA)
    if rng.random() < 0.4:  # a pot, as on many season tiles
        cv2.rectangle(image, (w // 4, h - 28), (3 * w // 4, h - 10), (*INK[rng.randrange(len(INK))], 255), -1)
    return image


def _frame(rng: random.Random) -> np.ndarray:
    """A white dragon: one or two frames, plain, dashed or chequered, or a lattice (RGBA, FACE_SIZE)."""
    if rng.random() < 0.35:
        return _lattice(rng)
    w, h = FACE_SIZE
    image = np.zeros((h, w, 4), np.uint8)
    colours = [(*c, 255) for c in rng.sample(INK, 2)]
    inset = rng.uniform(0.1, 0.22)
    for ring in range(rng.choice((1, 1, 2))):
        m = inset + ring * rng.uniform(0.08, 0.14)
        x0, y0, x1, y1 = round(w * m), round(h * m * w / h), round(w * (1 - m)), round(h - h * m * w / h)
        thickness = rng.randint(3, 10)
        cv2.rectangle(image, (x0, y0), (x1, y1), colours[ring % 2], thickness, cv2.LINE_AA)
        if rng.random() < 0.5:  # dashes of a second colour along the frame, as on many sets
            step = rng.randint(8, 18)
            for x in range(x0 + step // 2, x1 - step // 2, step * 2):
                cv2.line(image, (x, y0), (x + step, y0), colours[(ring + 1) % 2], thickness, cv2.LINE_AA)
                cv2.line(image, (x, y1), (x + step, y1), colours[(ring + 1) % 2], thickness, cv2.LINE_AA)
            for y in range(y0 + step // 2, y1 - step // 2, step * 2):
                cv2.line(image, (x0, y), (x0, y + step), colours[(ring + 1) % 2], thickness, cv2.LINE_AA)
                cv2.line(image, (x1, y), (x1, y + step), colours[(ring + 1) % 2], thickness, cv2.LINE_AA)
    return image


def _lattice(rng: random.Random) -> np.ndarray:
    """A white dragon as a lattice: a broad frame crossed by rungs, some cells filled, an empty middle."""
    w, h = FACE_SIZE
    image = np.zeros((h, w, 4), np.uint8)
    ink, fill = ((*c, 255) for c in rng.sample(INK, 2))
    outer, band = rng.uniform(0.08, 0.16), rng.uniform(0.14, 0.22)
    x0, y0, x1, y1 = round(w * outer), round(w * outer), round(w * (1 - outer)), round(h - w * outer)
    b = round(w * band)
    thickness = rng.randint(2, 4)
    cells = rng.randint(3, 6)
    for i in range(cells + 1):  # rungs across the band, along all four sides
        x = round(x0 + (x1 - x0) * i / cells)
        y = round(y0 + (y1 - y0) * i / cells)
        cv2.line(image, (x, y0), (x, y0 + b), ink, thickness, cv2.LINE_AA)
        cv2.line(image, (x, y1 - b), (x, y1), ink, thickness, cv2.LINE_AA)
        cv2.line(image, (x0, y), (x0 + b, y), ink, thickness, cv2.LINE_AA)
        cv2.line(image, (x1 - b, y), (x1, y), ink, thickness, cv2.LINE_AA)
        if i < cells and rng.random() < 0.4:
            cv2.rectangle(image, (x + thickness, y0 + thickness), (round(x0 + (x1 - x0) * (i + 1) / cells) - thickness, y0 + b - thickness), fill, -1)
            cv2.rectangle(image, (x + thickness, y1 - b + thickness), (round(x0 + (x1 - x0) * (i + 1) / cells) - thickness, y1 - thickness), fill, -1)
    cv2.rectangle(image, (x0, y0), (x1, y1), ink, thickness + 1, cv2.LINE_AA)
    cv2.rectangle(image, (x0 + b, y0 + b), (x1 - b, y1 - b), ink, thickness + 1, cv2.LINE_AA)
    return image


def _caption(cls: str, rng: random.Random) -> tuple[str, bool]:
    """The words naming a flower or season: (text, needs a CJK font)."""
    number = cls[1]
    choices = [(rng.choice(FLOWER_WORDS[cls]), False), (f"{number} {rng.choice(FLOWER_WORDS[cls])}", False),
               (FLOWER_CHARACTERS[cls], True), (f"{number}{FLOWER_CHARACTERS[cls]}", True)]
    return rng.choice(choices)


def _flower_face(art: ArtSet, cls: str, rng: random.Random, fonts: tuple[tuple[Path, ...], tuple[Path, ...]],
                 convention: Convention) -> np.ndarray:
    latin, cjk = fonts
    if convention.flower_style == "character" and cjk:
        return _character_flower(cls, rng, rng.choice(cjk), convention)
    w, h = FACE_SIZE
    # Mostly a made-up plant or no picture at all, so that only the caption tells the classes apart
    # (other sets' pictures would not do: most carry their own numeral or character).
    draw = rng.random()
    if draw < 0.3:
        picture, scale = rng.choice(art.faces[cls]), (0.6, 0.85)
    elif draw < 0.9:
        picture, scale = _plant(rng), (0.65, 0.9)
    else:
        picture, scale = np.zeros((h, w, 4), np.uint8), (0.65, 0.9)
    if convention.flower_style == "numbered":
        # The picture fills the face, a numeral in its corner: flowers in one ink, seasons in
        # another, so a made-up plant still tells f1 from s1 (else the set's own picture does).
        inks = (convention.caption_ink, convention.index_ink)
        if inks[0] == inks[1]:
            picture = rng.choice(art.faces[cls])
        face = _shrink(picture, rng.uniform(0.75, 0.92), (0.5, 1.0))
        sprite = text_rgba(cls[1], round(h * convention.index_size), w // 3, inks[cls[0] == "s"],
                           convention.index_font)
        paste_over(face, sprite, w - sprite.shape[1] - 3 if convention.index_on_right else 3, 3)
        return face
    face = _shrink(picture, rng.uniform(*scale), (0.5, 0.8 if convention.caption_on_top else 0.2))
    text, needs_cjk = _caption(cls, rng)
    if needs_cjk and not cjk:
        text, needs_cjk = rng.choice(FLOWER_WORDS[cls]), False
    font = rng.choice(cjk) if needs_cjk else (rng.choice(latin) if latin else None)
    # Large enough to read in a 64-96 px crop of a distant tile: the caption is what names the face.
    sprite = text_rgba(text, round(h * rng.uniform(0.15, 0.24)), round(w * 0.96), convention.caption_ink, font)
    x = (w - sprite.shape[1]) // 2 if rng.random() < 0.6 else rng.randint(2, max(2, w - sprite.shape[1] - 2))
    y = rng.randint(2, 10) if convention.caption_on_top else h - sprite.shape[0] - rng.randint(2, 10)
    paste_over(face, sprite, x, y)
    return face


def _character_flower(cls: str, rng: random.Random, font: Path, convention: Convention) -> np.ndarray:
    """梅蘭菊竹 / 春夏秋冬 filling a framed face, as many sets print them (no picture)."""
    w, h = FACE_SIZE
    face = np.zeros((h, w, 4), np.uint8)
    if convention.caption_on_top:  # reused as 'framed or not' so that one set does all alike
        m = round(w * 0.12)
        cv2.rectangle(face, (m, m), (w - m, h - m), (*convention.index_ink, 255), max(2, w // 40), cv2.LINE_AA)
    glyph = text_rgba(FLOWER_CHARACTERS[cls], round(h * rng.uniform(0.32, 0.45)), round(w * 0.68),
                      convention.caption_ink, font)
    paste_over(face, glyph, (w - glyph.shape[1]) // 2, (h - glyph.shape[0]) // 2)
    return face


def _indexed_face(face: np.ndarray, index: str, convention: Convention) -> np.ndarray:
    w, h = FACE_SIZE
    right = convention.index_on_right
    out = _shrink(face, convention.glyph_shrink, (0.0 if right else 1.0, 1.0))
    sprite = text_rgba(index, round(h * convention.index_size), w // 3, convention.index_ink, convention.index_font)
    paste_over(out, sprite, w - sprite.shape[1] - 3 if right else 3, 3)
    return out


def restyle(art: ArtSet, rng: random.Random) -> ArtSet:
    """One variant of `art`: new flower/season faces (picture + caption), a framed white
    dragon, and, half of the time, a corner index on every suit tile and wind."""
    fonts = system_fonts()
    convention = Convention.draw(rng, fonts[0])
    faces = dict(art.faces)
    if all(f in faces for f in FLOWER_NAMES):
        faces |= {f: (_flower_face(art, f, rng, fonts, convention),) for f in FLOWER_NAMES}
    if rng.random() < 0.7:
        faces["P"] = (_frame(rng),)
    if rng.random() < DRAWN_SHARE:
        faces |= {cls: (face,) for cls, face in drawn_faces(rng, fonts[1]).items()}
    if rng.random() < 0.5:
        for cls in art.faces:
            index = corner_index(cls)
            if index is not None:
                faces[cls] = tuple(_indexed_face(v, index, convention) for v in faces[cls])
    if art.panel:  # faces with their own panel: keep it behind what was drawn
        colour = np.array(panel_colour(art), np.float32)
        faces = {c: tuple(_on_panel(v, colour) for v in vs) for c, vs in faces.items()}
    return replace(art, faces=faces)


def drawn_set(art: ArtSet, seed: int) -> ArtSet:
    """`art` with its suits and honours drawn anew by `datasets.drawn` from Random(seed) alone: one
    fixed drawn set, the same in every scene (flowers, white dragon and backs stay `art`'s)."""
    drawn = drawn_faces(random.Random(seed), system_fonts()[1])
    if art.panel:
        colour = np.array(panel_colour(art), np.float32)
        drawn = {cls: _on_panel(face, colour) for cls, face in drawn.items()}
    return replace(art, name=f"{art.name}-drawn{seed}", faces=dict(art.faces) | {c: (f,) for c, f in drawn.items()})


def _on_panel(face: np.ndarray, colour: np.ndarray) -> np.ndarray:
    out = np.empty_like(face)
    a = face[..., 3:4].astype(np.float32) / 255
    out[..., :3] = (face[..., :3] * a + colour * (1 - a)).astype(np.uint8)
    out[..., 3] = 255
    return out
