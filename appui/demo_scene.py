"""A tiny procedurally drawn tile set and scenes made from it, for tests, demos and the live benchmark.

The faces are the tile's name in its suit colour on a cream panel (no artwork, no licence
questions); `datasets.render.render_scene` lays them out as in photo-layout.md.
`TruthDetector` returns a scene's known boxes, so the pages can be exercised without a model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from datasets.classes import CLASS_ID, FACE_NAMES
from scoring.hand import Hand
from vision.detections import Detections

GLYPH_COLOURS_BGR = {"m": (40, 40, 190), "p": (160, 80, 20), "s": (50, 130, 40), "z": (30, 30, 30), "f": (150, 50, 130)}


def _face(name: str, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    face = np.zeros((h, w, 4), np.uint8)
    face[..., :3] = (214, 236, 244)
    face[..., 3] = 255
    kind = name[-1] if name[-1] in "mps" else ("f" if name[0] in "fs" and len(name) == 2 else "z")
    colour = GLYPH_COLOURS_BGR[kind]
    scale = 2.6 if len(name) == 1 else 1.9
    (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_DUPLEX, scale, 5)
    cv2.putText(face, name, ((w - tw) // 2, (h + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, (*colour, 255), 5, cv2.LINE_AA)
    cv2.rectangle(face, (6, 6), (w - 7, h - 7), (*colour, 255), 2)
    return face


@lru_cache(maxsize=1)
def glyph_art():  # type: ignore[no-untyped-def]
    """An ArtSet with one drawn face per class (42 faces; backs come from the renderer)."""
    from datasets.art import FACE_SIZE, ArtSet

    return ArtSet("demo-glyphs", {name: (_face(name, FACE_SIZE),) for name in FACE_NAMES}, panel=True)


@dataclass(frozen=True)
class DemoScene:
    image_bgr: np.ndarray
    hand: Hand
    tiles: tuple  # datasets.scene.PlacedTile

    def jpeg(self, quality: int = 92) -> bytes:
        ok, data = cv2.imencode(".jpg", self.image_bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        return data.tobytes()

    def detections(self) -> Detections:
        return Detections.from_lists(
            [t.xyxy for t in self.tiles], [0.95] * len(self.tiles), [CLASS_ID[t.cls] for t in self.tiles]
        )


def demo_scene(hand: Hand, seed: int = 0, width: int = 1280, height: int = 960, *, effects: bool = False) -> DemoScene:
    """`hand` rendered with the glyph set, laid out flat enough for the layout reader."""
    from datasets.render import render_scene

    image, tiles = render_scene(hand, glyph_art(), random.Random(seed), width, height, effects=effects)
    return DemoScene(image, hand, tuple(tiles))


class TruthDetector:
    """A stand-in detector that knows the scene: returns its boxes, scaled to the image it is given."""

    def __init__(self, scene: DemoScene) -> None:
        self.scene = scene

    def detect(self, image_bgr: np.ndarray) -> Detections:
        dets = self.scene.detections()
        sy = image_bgr.shape[0] / self.scene.image_bgr.shape[0]
        sx = image_bgr.shape[1] / self.scene.image_bgr.shape[1]
        xyxy = dets.xyxy * np.array([sx, sy, sx, sy], np.float32)
        return Detections(xyxy, dets.confidence, dets.class_id)
