"""The live page's frame loop and what it makes of the tiles in view (no Streamlit, no WebRTC here).

`LiveLoop.process(frame)` runs in the video thread: the detector (on a copy shrunk to
`live_max_side`) and the layout reader, either inline on one frame in `live_detect_every` or in
a reader thread of their own, and boxes drawn on every frame from the latest reading.  `analyse()` turns a reading into what the page
shows: the waits of a ready 13-tile hand, or the score of a complete one.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from scoring.hand import HandError, WinContext
from vision.detections import Detector

from .correction import GROUPS, Reading
from .overlay import draw_boxes
from .settings import DEFAULT_APP_SETTINGS, AppSettings


@dataclass(frozen=True)
class LiveSnapshot:
    """The latest reading of the video, safe to hand to another thread."""

    tiles: tuple[dict[str, Any], ...] = ()
    issues: tuple[str, ...] = ()
    fps: float = 0.0
    frames: int = 0
    detections_run: int = 0
    error: str | None = None
    readings_per_s: float = 0.0


@dataclass(frozen=True)
class _Reading:
    tiles: tuple[dict[str, Any], ...] = ()
    issues: tuple[str, ...] = ()
    error: str | None = None


@dataclass
class LiveLoop:
    """Boxes drawn on every frame from the latest reading of the table.

    Two ways to read: inline, the detector on one frame in `live_detect_every` inside `process`
    (that frame waits for it); or `background=True`, a reader thread that reads the newest frame
    whenever it is free, so the video never waits for the detector (frames in between are skipped).
    """

    detector: Detector
    settings: AppSettings = field(default_factory=lambda: DEFAULT_APP_SETTINGS)
    background: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        self._reading = _Reading()
        self._frames = 0
        self._detections = 0
        self._fps = 0.0
        self._times: deque[float] = deque(maxlen=30)
        self._reading_times: deque[float] = deque(maxlen=10)
        self._pending: np.ndarray | None = None
        self._closed = False
        self._worker: threading.Thread | None = None

    def process(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Read the table (inline or by handing the frame to the reader), then draw the latest boxes."""
        if self.background:
            self._offer(frame_bgr)
        elif self._frames % max(1, self.settings.live_detect_every) == 0:
            self._store(self._read(frame_bgr))
        self._times.append(time.perf_counter())
        with self._lock:
            self._frames += 1
            self._fps = (len(self._times) - 1) / (self._times[-1] - self._times[0]) if len(self._times) > 1 else 0.0
            tiles, fps = self._reading.tiles, self._fps
        out = draw_boxes(
            frame_bgr, [t["xyxy"] for t in tiles], [t["cls"] for t in tiles], [t.get("group") or "" for t in tiles]
        )
        _banner(out, f"{fps:4.1f} fps  {len(tiles)} tiles")
        return out

    def _offer(self, frame_bgr: np.ndarray) -> None:
        with self._lock:
            self._pending = frame_bgr  # a newer frame replaces one the reader has not taken yet
            if self._worker is None:
                self._worker = threading.Thread(target=self._read_forever, name="live-reader", daemon=True)
                self._worker.start()
            self._lock.notify()

    def _read_forever(self) -> None:
        while True:
            with self._lock:
                while self._pending is None and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                frame, self._pending = self._pending, None
            if frame is not None:
                self._store(self._read(frame))

    def _store(self, reading: _Reading) -> None:
        with self._lock:
            self._reading, self._detections = reading, self._detections + 1
            self._reading_times.append(time.perf_counter())
            self._lock.notify_all()

    def wait_for_readings(self, count: int, timeout: float) -> bool:
        """Block until `count` readings were made (tests, benchmarks); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self._detections >= count, timeout)

    def close(self) -> None:
        """Stop the reader thread (the video ended)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
            worker = self._worker
        if worker is not None:
            worker.join(timeout=5)

    def _read(self, frame_bgr: np.ndarray) -> _Reading:
        from vision.read import read_detections

        small, scale = _shrink(frame_bgr, self.settings.live_max_side)
        try:
            dets = self.detector.detect(small)
            result = read_detections(dets, WinContext(), with_score=False)
        except Exception as exc:  # the video must keep running; the page shows the error
            return _Reading(error=f"{type(exc).__name__}: {exc}")
        tiles = tuple({**t, "xyxy": [v / scale for v in t["xyxy"]]} for t in result.tiles)
        return _Reading(tiles, tuple(map(str, result.issues)))

    def snapshot(self) -> LiveSnapshot:
        with self._lock:
            r, times = self._reading, self._reading_times
            rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else 0.0
            return LiveSnapshot(r.tiles, r.issues, self._fps, self._frames, self._detections, r.error, rate)


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


def group_rank(group: str) -> tuple[int, int]:
    """Where a group sorts: GROUPS order, then melds past the fourth (`meld4`, `meld5`...) by number,
    then any other name the reader may give."""
    if group in GROUPS:
        return (0, GROUPS.index(group))
    number = group.removeprefix("meld")
    return (1, int(number)) if number.isdigit() else (2, 0)


def reading_key(tiles: Sequence[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The part of a reading the analysis depends on (classes and groups, not the boxes); any group name."""
    ordered = sorted(tiles, key=lambda t: (group_rank(t.get("group") or "unplaced"), t["xyxy"][0], t["cls"]))
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
