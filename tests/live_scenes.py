"""Scenes for the live page's browser test: standing rows, a finished hand, scattered tiles, an empty
table, real photos with their labels; a Y4M video showing them in turn for Chromium's fake camera; and a
detector that knows which scene a frame shows, so the live loop runs end to end without a model.

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
    # (tile, face, k): the scene detector reads tile `tile` as `face` in all but one of every k readings
    misread: tuple[int, str, int] | None = None


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


def finished_scene(name: str, hand_text: str, unsure: tuple[str, ...] = (), misread_win: tuple[str, int] | None = None,
                   ) -> Scene:
    """A finished hand laid out as the photo page expects (melds, standing row, winning tile apart); the
    tiles named in `unsure` are read with little confidence (the reader doubts them); `misread_win` (face, k):
    the winning tile is read as `face` in all but one of every k readings."""
    hand = parse_hand(hand_text)
    scene = demo_scene(hand, seed=1, width=WIDTH, height=HEIGHT)
    tiles = tuple((t.cls, (float(t.xyxy[0]), float(t.xyxy[1]), float(t.xyxy[2]), float(t.xyxy[3]))) for t in scene.tiles)
    misread = None
    if misread_win is not None:
        win = max((i for i, (cls, _) in enumerate(tiles) if cls == str(hand.win_tile)), key=lambda i: tiles[i][1][0])
        misread = (win, misread_win[0], misread_win[1])
    return Scene(name, scene.image_bgr, tiles, frozenset(i for i, (cls, _) in enumerate(tiles) if cls in unsure), misread)


def empty_scene(name: str = "empty", size_wh: tuple[int, int] = (WIDTH, HEIGHT)) -> Scene:
    image = np.zeros((size_wh[1], size_wh[0], 3), np.uint8)
    image[:] = TABLE_BGR
    return Scene(name, image, ())


def label_path(image: Path) -> Path:
    """Where a photo's YOLO labels are, as ultralytics finds them: its path with the last `images` folder
    read as `labels`, and `.txt` (`real/japanese-layout/labels/x.txt`, `real/chinese-v4/labels/test/x.txt`)."""
    parts = list(image.parts)
    at = len(parts) - 1 - parts[::-1].index("images")
    parts[at] = "labels"
    return Path(*parts).with_suffix(".txt")


def real_scene(image: Path) -> Scene:
    """A real photo and its labelled tiles (YOLO labels, `label_path`, canonical class ids)."""
    from tileset.classes import CLASS_NAMES

    image_bgr = cv2.imread(str(image))
    if image_bgr is None:
        raise ValueError(f"cannot read {image}")
    h, w = image_bgr.shape[:2]
    tiles = []
    for line in label_path(image).read_text().splitlines():
        if line.strip():
            c, cx, cy, bw, bh = line.split()[:5]
            x, y, half_w, half_h = float(cx) * w, float(cy) * h, float(bw) * w / 2, float(bh) * h / 2
            tiles.append((CLASS_NAMES[int(c)], (x - half_w, y - half_h, x + half_w, y + half_h)))
    return Scene(image.stem, image_bgr, tuple(tiles))


def standing_rows(folder: Path, min_tiles: int = 7, band: float = 0.06) -> list[Path]:
    """The photos of `folder` whose labelled tiles stand in one row: at least `min_tiles`, every centre within
    `band` of the photo's height of their median (a player's standing hand, as the live page's camera sees it)."""
    found = []
    for image in sorted(folder.glob("*.jpg")):
        label = label_path(image)
        rows = [line.split() for line in label.read_text().splitlines() if line.strip()] if label.exists() else []
        centres = [float(r[2]) for r in rows]
        if len(centres) >= min_tiles and all(abs(c - float(np.median(centres))) <= band for c in centres):
            found.append(image)
    return found


def write_scenes(folder: Path, scenes: list[Scene]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for scene in scenes:
        cv2.imwrite(str(folder / f"{scene.name}.png"), scene.image_bgr)
        index.append({"name": scene.name, "misread": scene.misread, "tiles": [
            {"cls": c, "xyxy": list(b), "conf": UNSURE_CONF if i in scene.unsure else SURE_CONF}
            for i, (c, b) in enumerate(scene.tiles)
        ]})
    (folder / "scenes.json").write_text(json.dumps(index))


class SceneDetector:
    """The known boxes of whichever scene the frame looks most like (grey thumbnails compared); a scene's
    `misread` tile read as its other face in all but one of every k readings of that scene."""

    def __init__(self, folder: Path) -> None:
        self.scenes = []
        self.calls: dict[str, int] = {}
        for entry in json.loads((folder / "scenes.json").read_text()):
            image = cv2.imread(str(folder / f"{entry['name']}.png"))
            tiles = entry["tiles"]
            boxes = Detections.from_lists([t["xyxy"] for t in tiles], [t.get("conf", SURE_CONF) for t in tiles],
                                          [CLASS_ID[t["cls"]] for t in tiles])
            misread = tuple(entry["misread"]) if entry.get("misread") else None
            self.scenes.append((entry["name"], thumbnail(image, MATCH_THUMB), boxes, misread))

    def which(self, image_bgr: np.ndarray) -> str:
        return str(self._nearest(image_bgr)[0])

    def _nearest(self, image_bgr: np.ndarray) -> tuple:
        thumb = thumbnail(image_bgr, MATCH_THUMB)
        return min(self.scenes, key=lambda s: float(np.abs(s[1] - thumb).mean()) if s[1].shape == thumb.shape else 1e9)

    def detect(self, image_bgr: np.ndarray) -> Detections:
        name, _, boxes, misread = self._nearest(image_bgr)
        n = self.calls[name] = self.calls.get(name, -1) + 1
        if misread is not None and n % misread[2] != 0:
            boxes = boxes.with_class(misread[0], CLASS_ID[misread[1]])
        return boxes.scaled(image_bgr.shape[1] / WIDTH, image_bgr.shape[0] / HEIGHT)


def scene_detector() -> SceneDetector:
    """Detector factory for `MCR_DETECTOR=live_scenes:scene_detector`."""
    folder = os.environ.get(SCENES_ENV)
    if not folder:
        raise ValueError(f"set {SCENES_ENV} to a folder written by live_scenes.write_scenes")
    return SceneDetector(Path(folder))


def write_video(path: Path, plan: list[tuple[Scene, float]], fps: int = 15) -> float:
    """A Y4M video (4:2:0) showing each scene of `plan` for its seconds, at the scenes' size (all one size);
    Chromium's fake camera loops it.  Returns the loop's length in seconds."""
    sizes = {scene.image_bgr.shape[:2] for scene, _ in plan}
    if len(sizes) != 1:
        raise ValueError(f"the scenes of one video must be one size, not {sorted(sizes)}")
    ((height, width),) = sizes
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        frames = 0
        for scene, seconds in plan:
            i420 = cv2.cvtColor(scene.image_bgr, cv2.COLOR_BGR2YUV_I420).tobytes()
            for _ in range(round(seconds * fps)):
                f.write(b"FRAME\n")
                f.write(i420)
                frames += 1
    return frames / fps


def tiles_right(read: list, truth: tuple[tuple[str, tuple[float, float, float, float]], ...],
                min_iou: float = 0.3) -> tuple[int, int, int]:
    """(right, wrong, missed) of a reading ([face, x1, y1, x2, y2] a tile) against a scene's labelled tiles:
    a tile is right when its box lies on a labelled one (IoU >= `min_iou`, one to one) with its face.  0.3, not
    the usual 0.5: the japanese-layout labels cover a standing tile's top too, and a box of its face alone lies
    on them at 0.4 to 0.6 from frame to frame; tiles side by side overlap far less than 0.3."""
    from vision.boxes import match_boxes

    if not read or not truth:
        return 0, 0, len(truth)
    pairs = match_boxes(np.array([r[1:5] for r in read], np.float32), np.array([b for _, b in truth], np.float32), min_iou)
    right = sum(read[i][0] == truth[j][0] for i, j in pairs)
    return right, len(pairs) - right, len(truth) - len(pairs)


def in_scene_pixels(read: list, frame: str, scene: Scene) -> list:
    """A reading of the camera's `frame` ("WxH", as the live page gives it) in the pixels of `scene`'s photo
    (the browser's encoder may send a smaller frame than the camera's)."""
    width, height = (int(v) for v in frame.split("x"))
    sx, sy = scene.image_bgr.shape[1] / max(width, 1), scene.image_bgr.shape[0] / max(height, 1)
    return [[face, x1 * sx, y1 * sy, x2 * sx, y2 * sy] for face, x1, y1, x2, y2 in read]


def scene_of(read: list, scenes: list[Scene]) -> Scene | None:
    """The scene a reading is of: the one whose labelled tiles it reads right most, then lies on most (photos of
    one set taken alike put their rows in the same places); None when it lies on none."""
    best = max(scenes, key=lambda s: (tiles_right(read, s.tiles)[0], sum(tiles_right(read, s.tiles)[:2])), default=None)
    return best if best is not None and sum(tiles_right(read, best.tiles)[:2]) else None
