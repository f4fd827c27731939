"""The live page's frame loop and what it makes of the tiles in view (no Streamlit, no WebRTC here).

`LiveLoop.process(frame)` runs in the video thread: the detector on one frame in
`live_detect_every` (shrunk to `live_max_side`), the layout reader on its detections, and boxes
drawn on every frame from the latest reading.  `analyse()` turns a reading into what the page
shows: the waits of a ready 13-tile hand, or the score of a complete one.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from scoring.hand import HandError, WinContext

from .correction import GROUPS, Reading
from .overlay import draw_boxes
from .settings import DEFAULT_APP_SETTINGS, AppSettings


class Detector(Protocol):
    def detect(self, image_bgr: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class LiveSnapshot:
    """The latest reading of the video, safe to hand to another thread."""

    tiles: tuple[dict[str, Any], ...] = ()
    issues: tuple[str, ...] = ()
    fps: float = 0.0
    frames: int = 0
    detections_run: int = 0
    error: str | None = None


@dataclass
class LiveLoop:
    detector: Detector
    settings: AppSettings = field(default_factory=lambda: DEFAULT_APP_SETTINGS)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot = LiveSnapshot()
        self._frames = 0
        self._detections = 0
        self._times: deque[float] = deque(maxlen=30)

    def process(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Detect (one frame in `live_detect_every`), then draw the latest boxes and the frame rate."""
        tiles, issues, error = self._snapshot.tiles, self._snapshot.issues, self._snapshot.error
        if self._frames % max(1, self.settings.live_detect_every) == 0:
            tiles, issues, error = self._read(frame_bgr)
            self._detections += 1
        self._frames += 1
        self._times.append(time.perf_counter())
        fps = (len(self._times) - 1) / (self._times[-1] - self._times[0]) if len(self._times) > 1 else 0.0
        with self._lock:
            self._snapshot = LiveSnapshot(tiles, issues, fps, self._frames, self._detections, error)
        out = draw_boxes(
            frame_bgr, [t["xyxy"] for t in tiles], [t["cls"] for t in tiles], [t.get("group") or "" for t in tiles]
        )
        _banner(out, f"{fps:4.1f} fps  {len(tiles)} tiles")
        return out

    def _read(self, frame_bgr: np.ndarray) -> tuple[tuple[dict[str, Any], ...], tuple[str, ...], str | None]:
        from vision.read import read_detections

        small, scale = _shrink(frame_bgr, self.settings.live_max_side)
        try:
            dets = self.detector.detect(small)
            result = read_detections(dets, WinContext(), with_score=False)
        except Exception as exc:  # the video must keep running; the page shows the error
            return (), (), f"{type(exc).__name__}: {exc}"
        tiles = tuple({**t, "xyxy": [v / scale for v in t["xyxy"]]} for t in result.tiles)
        return tiles, tuple(result.issues), None

    def snapshot(self) -> LiveSnapshot:
        with self._lock:
            return self._snapshot


def _banner(image: np.ndarray, text: str) -> None:
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 2)
    cv2.rectangle(image, (4, 4), (12 + tw, 12 + th + base), (0, 0, 0), -1)
    cv2.putText(image, text, (8, 8 + th), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2, cv2.LINE_AA)


def _shrink(frame: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    h, w = frame.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if scale == 1.0:
        return frame, 1.0
    return cv2.resize(frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA), scale


@dataclass(frozen=True)
class LiveAnalysis:
    """What the page shows for a reading: kind is empty | partial | ready | complete | invalid."""

    kind: str
    message: str = ""
    waits: tuple[Any, ...] = ()
    score: Any = None
    hand: Any = None


def reading_key(tiles: Sequence[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The part of a reading the analysis depends on (classes and groups, not the boxes)."""
    ordered = sorted(tiles, key=lambda t: (GROUPS.index(t.get("group") or "unplaced"), t["xyxy"][0]))
    return tuple((t["cls"], t.get("group") or "unplaced") for t in ordered)


def analyse(tiles: Sequence[dict[str, Any]], context: WinContext) -> LiveAnalysis:
    """Waits with their scores for 13 tiles; the score for a complete hand; else what is missing."""
    if not tiles:
        return LiveAnalysis("empty")
    reading = Reading.from_tiles(tiles)
    try:
        melds, standing = reading.melds_and_standing()
    except HandError as exc:
        return LiveAnalysis("invalid", str(exc))
    count = len(standing) + 3 * len(melds)
    if count == 13:
        from scoring.waits import waits

        try:
            return LiveAnalysis("ready", waits=tuple(waits(melds, standing, context)))
        except HandError as exc:
            return LiveAnalysis("invalid", str(exc))
    if count == 14:
        try:
            hand = reading.to_hand(context)
        except HandError as exc:
            return LiveAnalysis("invalid", str(exc))
        from scoring.scorer import score

        try:
            return LiveAnalysis("complete", score=score(hand), hand=hand)
        except HandError as exc:
            return LiveAnalysis("invalid", str(exc), hand=hand)
    return LiveAnalysis("partial", f"{count} tiles counted (a meld counts 3); 13 show the waits, 14 the score")
