"""A tiny procedurally drawn tile set and scenes made from it, for tests, demos and the live benchmark.

The faces are the tile's name in its suit colour on a cream panel (no artwork, no licence
questions); `datasets.render.render_scene` lays them out as in photo-layout.md.
`TruthDetector` returns a scene's known boxes, so the pages can be exercised without a model.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scoring.hand import Hand
from tileset.classes import CLASS_ID, FACE_NAMES
from vision.detections import Detections

if TYPE_CHECKING:
    from datasets.art import ArtSet

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
def glyph_art() -> ArtSet:
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


TRUTH_ENV = "MCR_DEMO_TRUTH"


class TruthDetector:
    """A stand-in detector that knows the scene: returns its labelled boxes, scaled to the image it is given."""

    def __init__(self, scene: DemoScene | None = None, *, boxes: Detections | None = None,
                 size_wh: tuple[int, int] | None = None) -> None:
        if scene is not None:
            boxes, size_wh = scene.detections(), (scene.image_bgr.shape[1], scene.image_bgr.shape[0])
        if boxes is None or size_wh is None:
            raise ValueError("a TruthDetector needs a scene, or boxes with the image size")
        self.boxes, self.size_wh = boxes, size_wh

    @staticmethod
    def from_truth_file(path: str | Path) -> TruthDetector:
        """From a truth JSON as `datasets.synth` writes it (width, height, tiles with cls, xyxy and, if given, conf)."""
        data = json.loads(Path(path).read_text())
        tiles = data["tiles"]
        boxes = Detections.from_lists([t["xyxy"] for t in tiles], [float(t.get("conf", 0.95)) for t in tiles],
                                     [CLASS_ID[t["cls"]] for t in tiles])
        return TruthDetector(boxes=boxes, size_wh=(int(data["width"]), int(data["height"])))

    def detect(self, image_bgr: np.ndarray) -> Detections:
        return self.boxes.scaled(image_bgr.shape[1] / self.size_wh[0], image_bgr.shape[0] / self.size_wh[1])


def truth_detector() -> TruthDetector:
    """Detector factory for `MCR_DETECTOR=appui.demo_scene:truth_detector`: replays `$MCR_DEMO_TRUTH`."""
    path = os.environ.get(TRUTH_ENV)
    if not path:
        raise ValueError(f"set {TRUTH_ENV} to a scene's truth JSON to use the truth detector")
    return TruthDetector.from_truth_file(path)


def write_truth(scene: DemoScene, path: str | Path) -> None:
    """The scene's truth JSON (the `datasets.synth` form, enough for `TruthDetector.from_truth_file`)."""
    height, width = scene.image_bgr.shape[:2]
    Path(path).write_text(json.dumps({
        "width": width, "height": height, "hand": scene.hand.to_json(),
        "tiles": [{"cls": t.cls, "xyxy": list(t.xyxy), "group": t.group} for t in scene.tiles],
    }))
