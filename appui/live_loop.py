"""The live page's frame loop (no Streamlit, no WebRTC here).

`LiveLoop.process(frame)` runs in the video thread and returns at once: it compares a small grey
thumbnail of the frame with the view being read, hands the frame to a reader thread when the view
needs reading (only the newest frame waits; older ones are skipped), and draws the boxes of the
view's reading.  A view that changed drops its old boxes and reading on that very frame.  The
readings of a view are fused (`appui.live_fusion`: a tile kept when enough frames box it, its face
the frames' vote) and the fused tiles laid out by the reader; the panel gets that reading from the
first one on (`LiveSnapshot.tiles`).  A view is read frame after frame until its reading is sure and
unchanged (settled); then a still view is not read again until something in it moves.  What the
tiles make is `appui.live_analysis`.
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

from scoring.hand import WinContext
from vision.detections import Detections, Detector
from vision.settings import DEFAULT_SETTINGS

from .live_analysis import LiveAnalysis, WaitInView, analyse, counted_tiles, group_rank, reading_key
from .live_fusion import FusedTile, Fusion, fuse, sure
from .overlay import draw_boxes
from .settings import DEFAULT_APP_SETTINGS, DEFAULT_LIVE_SETTINGS, AppSettings, LiveSettings

__all__ = ["LiveAnalysis", "LiveLoop", "LiveSnapshot", "WaitInView", "analyse", "group_rank", "reading_key",
           "thumbnail"]


@dataclass(frozen=True)
class LiveSnapshot:
    """What the panel needs, safe to hand to another thread.

    `tiles` is the view's fused reading (or the held one), each tile a dict of the reader's keys
    (cls, xyxy, conf, group) and the fusion's: `seen` (frames that boxed it), `votes` ([face, frames]
    most first) and `alternatives` (the other faces it may be); empty until the view is read.
    Times are wall-clock seconds (`time.time()`).
    """

    tiles: tuple[dict[str, Any], ...] = ()
    issues: tuple[Any, ...] = ()  # vision.issues.ReaderIssue: the reader's doubts about `tiles`
    fps: float = 0.0
    frames: int = 0
    detections_run: int = 0
    error: str | None = None
    readings_per_s: float = 0.0
    analysed_per_s: float = 0.0  # frames a reading stands for: read, or still and kept
    view: int = 0  # counts view changes
    readings: int = 0  # readings of this view so far
    fused: int = 0  # of those, how many the shown reading fuses (the last `fuse_window`)
    sure: bool = False  # the fused reading is sure (`appui.live_fusion.sure`)
    settled: bool = False  # sure (or never to be) and unchanged: a still view is no longer read
    shown_at: float | None = None  # when the view's first reading was given to the panel
    seen_at: float | None = None  # when the view was last seen to show it (a reading or a still frame)
    view_changed_at: float = 0.0  # the first frame that changed away from the last reading
    still: bool = False
    held: bool = False
    # the camera's frame size, pixels, as the view's first frame came (the tiles' boxes are in its pixels: the
    # browser's encoder may scale the picture down and up again while a view lasts)
    frame_wh: tuple[int, int] = (0, 0)
    # with `LiveSettings.show_frames`: each fused frame's own reading, ((face, x1, y1, x2, y2), ...) a frame
    frame_readings: tuple[tuple[tuple[str, int, int, int, int], ...], ...] = ()

    def age_s(self, now: float | None = None) -> float | None:
        """How old what the panel shows is: since the view was last seen to show it."""
        if self.seen_at is None:
            return None
        return max(0.0, (time.time() if now is None else now) - self.seen_at)


@dataclass(frozen=True)
class _Reading:
    """A view's fused reading, laid out."""

    tiles: tuple[dict[str, Any], ...] = ()
    issues: tuple[Any, ...] = ()
    view: int = -1
    read_at: float = 0.0
    fused: int = 0
    sure: bool = False
    frames: tuple[tuple[tuple[str, int, int, int, int], ...], ...] = ()  # each fused frame's reading (show_frames)


def _frame_reading(dets: Detections) -> tuple[tuple[str, int, int, int, int], ...]:
    """One frame's reading as plain values: (face, x1, y1, x2, y2) a tile, whole pixels."""
    boxes = np.rint(dets.xyxy).astype(int).tolist()
    return tuple((name, x1, y1, x2, y2) for name, (x1, y1, x2, y2) in zip(dets.class_names, boxes, strict=True))


def thumbnail(frame_bgr: np.ndarray, width: int) -> np.ndarray:
    """The frame as a small grey picture (area-averaged: noise cancels, a moved tile does not)."""
    h, w = frame_bgr.shape[:2]
    small = cv2.resize(frame_bgr, (width, max(1, round(width * h / w))), interpolation=cv2.INTER_AREA)
    return (cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small).astype(np.int16)


def changed_share(a: np.ndarray, b: np.ndarray, cell_change: float) -> float:
    """The share of thumbnail cells whose grey level moved by more than `cell_change`."""
    if a.shape != b.shape:
        return 1.0
    return float((np.abs(a - b) > cell_change).mean())


def laid_out(fusion: Fusion) -> tuple[tuple[dict[str, Any], ...], tuple[Any, ...]]:
    """The fused tiles laid out by the reader (groups, its issues), each tile with what the frames saw."""
    from vision.read import read_detections

    result = read_detections(fusion.detections(), WinContext(), with_score=False)
    tiles = []
    for tile in result.tiles:
        fused = _nearest(fusion.tiles, tile["xyxy"])
        extra: dict[str, Any] = {}
        if fused is not None:
            alternatives = [f for f in (*fused.alternatives, fused.cls) if f != tile["cls"]]
            extra = {"seen": fused.seen, "votes": [list(v) for v in fused.votes], "alternatives": alternatives}
        tiles.append({**tile, **extra})
    return tuple(tiles), tuple(result.issues)


def _nearest(fused: Sequence[FusedTile], xyxy: Sequence[float]) -> FusedTile | None:
    """The fused tile whose box is the reader's tile's (the reader keeps the boxes; it may drop a tile)."""
    if not fused:
        return None
    return min(fused, key=lambda t: sum(abs(a - b) for a, b in zip(t.xyxy, xyxy, strict=True)))


@dataclass
class LiveLoop:
    """Boxes drawn on every frame from the view's fused reading; the view read until it is sure.

    Two ways to read: inline, the detector on one frame in `live_detect_every` inside `process`
    (that frame waits: tests and benchmarks); or `background=True`, a reader thread that reads the
    newest frame whenever it is free, so the video never waits for the detector.
    """

    detector: Detector
    settings: AppSettings = field(default_factory=lambda: DEFAULT_APP_SETTINGS)
    background: bool = False
    live: LiveSettings = field(default_factory=lambda: DEFAULT_LIVE_SETTINGS)

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        self._frames = 0
        self._detections = 0
        self._times: deque[float] = deque(maxlen=30)
        self._reading_times: deque[float] = deque()
        self._analysed_times: deque[float] = deque()
        self._pending: tuple[np.ndarray, int, np.ndarray, tuple[int, int]] | None = None
        self._closed = False
        self._worker: threading.Thread | None = None
        self._view = 0
        self._view_changed_at = time.time()
        self._reference: np.ndarray | None = None  # thumbnail of the frame last read (or of the view's first frame)
        self._window: deque[Detections] = deque(maxlen=max(1, self.live.fuse_window))  # the view's last readings
        self._keys: deque[tuple[tuple[str, str], ...]] = deque(maxlen=max(1, self.live.stable_readings))
        self._readings = 0  # readings of this view
        self._fused: _Reading | None = None  # the view's reading, once it may be shown
        self._settled = False
        self._slow = False  # not sure after its first readings: read only every `unsure_every_s`
        self._last_read = 0.0  # perf_counter of the last frame handed to the reader
        self._shown_at: float | None = None
        self._seen_at: float | None = None
        self._still = False
        self._held: tuple[_Reading, float | None] | None = None
        self._error: str | None = None
        self._fps = 0.0
        self._view_wh = (0, 0)  # the size of the view's first frame: its readings are kept in its pixels
        self._started = time.perf_counter()

    def process(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Decide whether the view needs reading, read it (inline or by the reader), draw the view's boxes."""
        now = time.perf_counter()
        thumb = thumbnail(frame_bgr, self.live.thumb_width)
        frame_wh = (int(frame_bgr.shape[1]), int(frame_bgr.shape[0]))
        with self._lock:
            view, read_it = self._look(thumb, now, frame_wh)
            view_wh = self._view_wh
            due = self.background or self._frames % max(1, self.settings.live_detect_every) == 0
        if read_it and due:
            if self.background:
                self._offer(frame_bgr, view, thumb, view_wh)
            else:
                self._store(self._read(frame_bgr, view_wh), view, thumb)
        self._times.append(time.perf_counter())
        with self._lock:
            self._frames += 1
            span = self._times[-1] - self._times[0]
            fps = self._fps = (len(self._times) - 1) / span if len(self._times) > 1 and span > 0 else 0.0
            shown = self._fused if self._fused is not None and self._fused.view == self._view else _Reading()
            rate = self._rate(self._reading_times, time.perf_counter())
        tiles = shown.tiles
        sx, sy = frame_wh[0] / max(view_wh[0], 1), frame_wh[1] / max(view_wh[1], 1)
        out = draw_boxes(
            frame_bgr, [(t["xyxy"][0] * sx, t["xyxy"][1] * sy, t["xyxy"][2] * sx, t["xyxy"][3] * sy) for t in tiles],
            [t["cls"] for t in tiles], [t.get("group") or "" for t in tiles],
        )
        _banner(out, f"{fps:4.1f} fps  {rate:4.1f} readings/s  {len(tiles)} tiles")
        return out

    def _look(self, thumb: np.ndarray, now: float, frame_wh: tuple[int, int]) -> tuple[int, bool]:
        """(Under the lock) the view this frame shows and whether it needs reading."""
        share = 1.0 if self._reference is None else changed_share(thumb, self._reference, self.live.cell_change)
        if share > self.live.view_change_share:
            self._view += 1
            self._view_wh = frame_wh
            if self._fused is not None:  # a burst of changes (a hand moving in) counts from its first frame
                self._view_changed_at = time.time()
            self._reference = thumb
            self._window.clear()
            self._keys.clear()
            self._readings, self._fused, self._shown_at, self._seen_at = 0, None, None, None
            self._still = self._settled = self._slow = False
            self._last_read = now
            return self._view, True
        self._still = share <= self.live.still_share and self._fused is not None
        if not self._still:
            self._settled = False  # something moved in the view: read it again
        # a view not sure is read at most every `unsure_every_s`, moving or not: its frames are then read by the
        # clock, so a tile that flickers in one frame of three is read so in about one reading of three (reading
        # every frame that differs from the last one read would read the flicker and its undoing alternately)
        if (self._still and self._settled) or (self._slow and now - self._last_read < self.live.unsure_every_s):
            self._seen_at = time.time()
            self._analysed_times.append(now)
            return self._view, False
        self._last_read = now
        return self._view, True

    def _offer(self, frame_bgr: np.ndarray, view: int, thumb: np.ndarray, view_wh: tuple[int, int]) -> None:
        with self._lock:
            self._pending = (frame_bgr, view, thumb, view_wh)  # a newer frame replaces one the reader has not taken yet
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
                pending, self._pending = self._pending, None
            if pending is not None:
                frame, view, thumb, view_wh = pending
                self._store(self._read(frame, view_wh), view, thumb)

    def _store(self, read: Detections | str, view: int, thumb: np.ndarray) -> None:
        """One frame's detections (or the error reading it) into the view's fused reading."""
        now = time.perf_counter()
        with self._lock:
            self._detections += 1
            self._reading_times.append(now)
            self._lock.notify_all()
            if isinstance(read, str):
                self._error = read
                return
            self._error = None
            if view != self._view:
                return  # the view changed while this frame was read: its boxes belong to no frame shown now
            self._window.append(read)
            self._readings += 1
            self._reference = thumb
            self._analysed_times.append(now)
            window, readings = list(self._window), self._readings
        fusion = fuse(window, self.live)
        try:
            tiles, issues = laid_out(fusion)
        except Exception as exc:  # the video must keep running; the page shows the error
            with self._lock:
                self._error = f"{type(exc).__name__}: {exc}"
            return
        key = reading_key(tiles)
        is_sure = sure(fusion, counted_tiles(key), self.live)
        with self._lock:
            if view != self._view:
                return
            self._keys.append(key)
            stable = len(self._keys) == self._keys.maxlen and len(set(self._keys)) == 1
            self._settled = stable and (is_sure or readings >= self.live.unsure_max_readings)
            self._slow = not is_sure and readings >= self.live.fuse_fast_readings
            if fusion.frames < self.live.fuse_show_min:
                return
            wall = time.time()
            frames = tuple(_frame_reading(d) for d in window) if self.live.show_frames else ()
            self._fused = _Reading(tiles, issues, view, wall, fusion.frames, is_sure, frames)
            self._seen_at = wall
            if self._shown_at is None:
                self._shown_at = wall

    def wait_for_readings(self, count: int, timeout: float) -> bool:
        """Block until `count` readings were made (tests, benchmarks); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self._detections >= count, timeout)

    def hold(self, on: bool, shown: LiveSnapshot | None = None) -> bool:
        """Keep the view's reading on the panel whatever the camera sees next (False: follow the camera again).
        `shown`: the snapshot the panel showed when the player asked (to fix a tile of it): that one is
        held, not a newer reading that came meanwhile.  Returns whether a reading is held (there may be
        none to hold yet)."""
        with self._lock:
            if not on:
                self._held = None
            elif self._held is None and shown is not None and shown.tiles:
                self._held = (_Reading(shown.tiles, shown.issues, shown.view, shown.seen_at or time.time(),
                                       shown.fused, shown.sure), shown.seen_at)
            elif self._held is None and self._fused is not None and self._fused.tiles:
                self._held = (self._fused, self._seen_at)
            return self._held is not None

    def close(self) -> None:
        """Stop the reader thread (the video ended)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
            worker = self._worker
        if worker is not None:
            worker.join(timeout=5)

    def _read(self, frame_bgr: np.ndarray, view_wh: tuple[int, int] | None = None) -> Detections | str:
        """The frame's tiles, one box each, in the pixels of a frame `view_wh` in size (the view's first frame;
        default: this one), or what went wrong, in words."""
        from vision.layout import merge_duplicates

        small, _ = _shrink(frame_bgr, self.settings.live_max_side)
        try:
            dets, _ = merge_duplicates(self.detector.detect(small), DEFAULT_SETTINGS.layout)
        except Exception as exc:  # the video must keep running; the page shows the error
            return f"{type(exc).__name__}: {exc}"
        width, height = view_wh or (frame_bgr.shape[1], frame_bgr.shape[0])
        sx, sy = width / small.shape[1], height / small.shape[0]
        return dets if sx == sy == 1.0 else dets.scaled(sx, sy)

    def _rate(self, times: deque[float], now: float) -> float:
        """Events per second over the last `rate_window_s` (or since the loop started, if that is shorter)."""
        while times and now - times[0] > self.live.rate_window_s:
            times.popleft()
        return len(times) / max(min(self.live.rate_window_s, now - self._started), 1e-3)

    def snapshot(self) -> LiveSnapshot:
        with self._lock:
            now = time.perf_counter()
            readings, analysed = self._rate(self._reading_times, now), self._rate(self._analysed_times, now)
            shown, seen_at, held = self._fused, self._seen_at, False
            if self._held is not None:
                (shown, seen_at), held = self._held, True
            return LiveSnapshot(
                tiles=shown.tiles if shown is not None else (),
                issues=shown.issues if shown is not None else (),
                fps=self._fps, frames=self._frames, detections_run=self._detections,
                error=self._error, readings_per_s=readings, analysed_per_s=analysed, view=self._view,
                readings=self._readings, fused=shown.fused if shown is not None else 0,
                sure=shown.sure if shown is not None else False, settled=self._settled and not held,
                shown_at=self._shown_at, seen_at=seen_at, view_changed_at=self._view_changed_at,
                still=self._still, held=held, frame_wh=self._view_wh,
                frame_readings=shown.frames if shown is not None else (),
            )


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


