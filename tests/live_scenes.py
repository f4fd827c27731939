"""Scenes for the live page's browser test: standing rows, a finished hand, scattered tiles, an empty
table; a Y4M video showing them in turn for Chromium's fake camera; and a detector that knows which
scene a frame shows, so the live loop runs end to end without a model.

The app loads the detector with `MCR_DETECTOR=live_scenes:scene_detector` (this folder on
PYTHONPATH) and `MCR_LIVE_SCENES=<folder written by write_scenes>`.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from appui.demo_scene import demo_scene, glyph_art
from appui.live_loop import thumbnail
from scoring.notation import parse_hand, parse_tiles
from tileset.classes import CLASS_ID
from vision.detections import Detections

if TYPE_CHECKING:
    from datasets.art import ArtSet

SCENES_ENV = "MCR_LIVE_SCENES"
WIDTH, HEIGHT = 640, 480
TABLE_BGR = (60, 105, 35)  # green felt: no overlay colour is near it
TILE_W, TILE_H = 40, 56
MATCH_THUMB = 32
SURE_CONF, UNSURE_CONF = 0.95, 0.4  # the scene detector's confidence in a tile, and in one the scene marks unsure


@dataclass(frozen=True)
class Scene:
    name: str
    image_bgr: np.ndarray
    tiles: tuple[tuple[str, tuple[float, float, float, float]], ...]  # (class, xyxy)
    unsure: frozenset[int] = frozenset()  # tiles the scene detector reads with little confidence (indices)


def _table() -> np.ndarray:
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    image[:] = TABLE_BGR
    return image


def _paste(image: np.ndarray, name: str, x: int, y: int, art: ArtSet | None = None,
           size: tuple[int, int] = (TILE_W, TILE_H)) -> tuple[float, float, float, float]:
    """A tile face at (x, y): the glyph set's, or `art`'s (a glyph-only set on an ivory panel)."""
    w, h = size
    art = art or glyph_art()
    face = cv2.resize(art.faces[name][0], (w, h), interpolation=cv2.INTER_AREA)
    region = image[y:y + h, x:x + w]
    if not art.panel:
        region[:] = (232, 242, 246)
        cv2.rectangle(region, (0, 0), (w - 1, h - 1), (150, 160, 165), 1)
    alpha = face[..., 3:4].astype(np.float32) / 255
    region[:] = (alpha * face[..., :3] + (1 - alpha) * region).astype(np.uint8)
    return (float(x), float(y), float(x + w), float(y + h))


def row_scene(name: str, text: str, art: ArtSet | None = None, size: tuple[int, int] = (TILE_W, TILE_H)) -> Scene:
    """The tiles of `text` standing side by side in one row, as a player sees their own hand."""
    names = [str(t) for t in parse_tiles(text)]
    image = _table()
    gap = 2
    x0 = (WIDTH - len(names) * (size[0] + gap)) // 2
    y = HEIGHT // 2 - size[1] // 2
    tiles = tuple((n, _paste(image, n, x0 + i * (size[0] + gap), y, art, size)) for i, n in enumerate(names))
    return Scene(name, image, tiles)


def scattered_scene(name: str, text: str, seed: int = 3) -> Scene:
    """The tiles of `text` lying apart all over the table (discards, tiles pushed aside)."""
    rng = random.Random(seed)
    image = _table()
    placed: list[tuple[int, int]] = []
    tiles = []
    for n in (str(t) for t in parse_tiles(text)):
        for _ in range(500):
            x, y = rng.randrange(10, WIDTH - TILE_W - 10), rng.randrange(50, HEIGHT - TILE_H - 10)
            if all(abs(x - px) > TILE_W + 25 or abs(y - py) > TILE_H + 25 for px, py in placed):
                break
        placed.append((x, y))
        tiles.append((n, _paste(image, n, x, y)))
    return Scene(name, image, tuple(tiles))


def groups_scene(name: str, groups: list[str], standing: str, group_gap: int = 40) -> Scene:
    """Small groups of tiles in a row well apart (the reader makes a meld group of each: meld0, meld1,
    ... past the four a hand can have) above a short standing row."""
    image = _table()
    tiles = []
    x = 8
    for group in groups:
        for n in (str(t) for t in parse_tiles(group)):
            tiles.append((n, _paste(image, n, x, 120)))
            x += TILE_W + 1
        x += group_gap
    x = 60
    for n in (str(t) for t in parse_tiles(standing)):
        tiles.append((n, _paste(image, n, x, 330)))
        x += TILE_W + 1
    return Scene(name, image, tuple(tiles))


def finished_scene(name: str, hand_text: str, unsure: tuple[str, ...] = ()) -> Scene:
    """A finished hand laid out as the photo page expects (melds, standing row, winning tile apart); the
    tiles named in `unsure` are read with little confidence (the reader doubts them)."""
    scene = demo_scene(parse_hand(hand_text), seed=1, width=WIDTH, height=HEIGHT)
    tiles = tuple((t.cls, (float(t.xyxy[0]), float(t.xyxy[1]), float(t.xyxy[2]), float(t.xyxy[3]))) for t in scene.tiles)
    return Scene(name, scene.image_bgr, tiles, frozenset(i for i, (cls, _) in enumerate(tiles) if cls in unsure))


def empty_scene(name: str = "empty") -> Scene:
    return Scene(name, _table(), ())


def write_scenes(folder: Path, scenes: list[Scene]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for scene in scenes:
        cv2.imwrite(str(folder / f"{scene.name}.png"), scene.image_bgr)
        index.append({"name": scene.name, "tiles": [
            {"cls": c, "xyxy": list(b), "conf": UNSURE_CONF if i in scene.unsure else SURE_CONF}
            for i, (c, b) in enumerate(scene.tiles)
        ]})
    (folder / "scenes.json").write_text(json.dumps(index))


class SceneDetector:
    """The known boxes of whichever scene the frame looks most like (grey thumbnails compared)."""

    def __init__(self, folder: Path) -> None:
        self.scenes = []
        for entry in json.loads((folder / "scenes.json").read_text()):
            image = cv2.imread(str(folder / f"{entry['name']}.png"))
            tiles = entry["tiles"]
            boxes = Detections.from_lists([t["xyxy"] for t in tiles], [t.get("conf", SURE_CONF) for t in tiles],
                                          [CLASS_ID[t["cls"]] for t in tiles])
            self.scenes.append((entry["name"], thumbnail(image, MATCH_THUMB), boxes))

    def which(self, image_bgr: np.ndarray) -> str:
        return self._nearest(image_bgr)[0]

    def _nearest(self, image_bgr: np.ndarray) -> tuple[str, np.ndarray, Detections]:
        thumb = thumbnail(image_bgr, MATCH_THUMB)
        return min(self.scenes, key=lambda s: float(np.abs(s[1] - thumb).mean()) if s[1].shape == thumb.shape else 1e9)

    def detect(self, image_bgr: np.ndarray) -> Detections:
        _, _, boxes = self._nearest(image_bgr)
        return boxes.scaled(image_bgr.shape[1] / WIDTH, image_bgr.shape[0] / HEIGHT)


def scene_detector() -> SceneDetector:
    """Detector factory for `MCR_DETECTOR=live_scenes:scene_detector`."""
    folder = os.environ.get(SCENES_ENV)
    if not folder:
        raise ValueError(f"set {SCENES_ENV} to a folder written by live_scenes.write_scenes")
    return SceneDetector(Path(folder))


def write_video(path: Path, plan: list[tuple[Scene, float]], fps: int = 15) -> float:
    """A Y4M video (4:2:0) showing each scene of `plan` for its seconds; Chromium's fake camera loops it.
    Returns the loop's length in seconds."""
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        frames = 0
        for scene, seconds in plan:
            i420 = cv2.cvtColor(scene.image_bgr, cv2.COLOR_BGR2YUV_I420).tobytes()
            for _ in range(round(seconds * fps)):
                f.write(b"FRAME\n")
                f.write(i420)
                frames += 1
    return frames / fps
