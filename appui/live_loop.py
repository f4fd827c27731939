"""The live page's frame loop and what it makes of the tiles in view (no Streamlit, no WebRTC here).

`LiveLoop.process(frame)` runs in the video thread and returns at once: it compares a small grey
thumbnail of the frame with the view being read, hands the frame to a reader thread when the view
needs reading (only the newest frame waits; older ones are skipped), and draws the boxes of the
latest reading of this view.  A view that changed drops its old boxes and reading on that very
frame; a still view keeps its settled reading and is not read again.  Readings are voted: the
panel is given a reading only once `vote_agree` of the last `vote_window` readings of the view
agree on the tiles (`LiveSnapshot.tiles`).  `analyse()` turns a reading into what the page shows.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from scoring.hand import Hand, HandError, Meld, WinContext
from scoring.shanten import Discard, best_discards, shanten, useful_tiles
from scoring.tiles import ALL_TILES, Tile
from scoring.waits import Wait
from tileset.classes import BACK, is_flower
from tileset.groups import GROUPS, HAND, MAX_MELDS, UNPLACED, WIN
from vision.detections import Detector
from vision.layout import build_hand, type_group

from .overlay import draw_boxes
from .settings import DEFAULT_APP_SETTINGS, DEFAULT_LIVE_SETTINGS, AppSettings, LiveSettings


@dataclass(frozen=True)
class LiveSnapshot:
    """What the panel needs, safe to hand to another thread.

    `tiles` is the steady reading of the view (or the held one), empty while readings disagree;
    times are wall-clock seconds (`time.time()`).
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
    votes: int = 0  # readings of this view in the vote
    agreeing: int = 0  # of those, how many agree with the steady reading (or the likeliest one)
    steady_at: float | None = None  # when the reading was agreed
    seen_at: float | None = None  # when the view was last seen to show it (a reading or a still frame)
    view_changed_at: float = 0.0  # the first frame that changed away from the last steady reading
    still: bool = False
    held: bool = False

    def age_s(self, now: float | None = None) -> float | None:
        """How old what the panel shows is: since the view was last seen to show it."""
        if self.seen_at is None:
            return None
        return max(0.0, (time.time() if now is None else now) - self.seen_at)


@dataclass(frozen=True)
class _Reading:
    tiles: tuple[dict[str, Any], ...] = ()
    issues: tuple[Any, ...] = ()
    error: str | None = None
    view: int = -1
    read_at: float = 0.0

    @property
    def multiset(self) -> tuple[str, ...]:
        return tuple(sorted(t["cls"] for t in self.tiles))


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


@dataclass
class LiveLoop:
    """Boxes drawn on every frame from the latest reading of the view; readings voted for the panel.

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
        self._pending: tuple[np.ndarray, int, np.ndarray] | None = None
        self._closed = False
        self._worker: threading.Thread | None = None
        self._view = 0
        self._view_changed_at = time.time()
        self._reference: np.ndarray | None = None  # thumbnail of the frame last read (or of the view's first frame)
        self._latest = _Reading()  # boxes drawn on the video: the latest reading of this view
        self._votes: deque[_Reading] = deque(maxlen=max(1, self.live.vote_window))
        self._steady: _Reading | None = None
        self._seen_at: float | None = None
        self._still = False
        self._held: tuple[_Reading, float | None] | None = None
        self._error: str | None = None
        self._fps = 0.0
        self._steady_at: float | None = None
        self._started = time.perf_counter()

    def process(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Decide whether the view needs reading, read it (inline or by the reader), draw the latest boxes."""
        now = time.perf_counter()
        thumb = thumbnail(frame_bgr, self.live.thumb_width)
        with self._lock:
            view, read_it = self._look(thumb, now)
            due = self.background or self._frames % max(1, self.settings.live_detect_every) == 0
        if read_it and due:
            if self.background:
                self._offer(frame_bgr, view, thumb)
            else:
                self._store(self._read(frame_bgr), view, thumb)
        self._times.append(time.perf_counter())
        with self._lock:
            self._frames += 1
            span = self._times[-1] - self._times[0]
            fps = self._fps = (len(self._times) - 1) / span if len(self._times) > 1 and span > 0 else 0.0
            latest = self._latest if self._latest.view == self._view else _Reading()
            rate = self._rate(self._reading_times, time.perf_counter())
        tiles = latest.tiles
        out = draw_boxes(
            frame_bgr, [t["xyxy"] for t in tiles], [t["cls"] for t in tiles], [t.get("group") or "" for t in tiles]
        )
        _banner(out, f"{fps:4.1f} fps  {rate:4.1f} readings/s  {len(tiles)} tiles")
        return out

    def _look(self, thumb: np.ndarray, now: float) -> tuple[int, bool]:
        """(Under the lock) the view this frame shows and whether it needs reading."""
        share = 1.0 if self._reference is None else changed_share(thumb, self._reference, self.live.cell_change)
        if share > self.live.view_change_share:
            self._view += 1
            if self._steady is not None:  # a burst of changes (a hand moving in) counts from its first frame
                self._view_changed_at = time.time()
            self._reference = thumb
            self._latest = _Reading()
            self._votes.clear()
            self._steady, self._seen_at, self._still = None, None, False
            return self._view, True
        self._still = share <= self.live.still_share and self._steady is not None
        if self._still:
            self._seen_at = time.time()
            self._analysed_times.append(now)
            return self._view, False
        return self._view, True

    def _offer(self, frame_bgr: np.ndarray, view: int, thumb: np.ndarray) -> None:
        with self._lock:
            self._pending = (frame_bgr, view, thumb)  # a newer frame replaces one the reader has not taken yet
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
                frame, view, thumb = pending
                self._store(self._read(frame), view, thumb)

    def _store(self, reading: _Reading, view: int, thumb: np.ndarray) -> None:
        now = time.perf_counter()
        with self._lock:
            self._detections += 1
            self._reading_times.append(now)
            self._lock.notify_all()
            if reading.error is not None:
                self._error = reading.error
                return
            self._error = None
            if view != self._view:
                return  # the view changed while this frame was read: its boxes belong to no frame shown now
            reading = _Reading(reading.tiles, reading.issues, None, view, time.time())
            self._latest, self._reference = reading, thumb
            self._analysed_times.append(now)
            self._votes.append(reading)
            key, count = Counter(r.multiset for r in self._votes).most_common(1)[0]
            if count >= self.live.vote_agree:
                newest = next(r for r in reversed(self._votes) if r.multiset == key)
                if self._steady is None or self._steady.multiset != key:
                    self._steady_at = time.time()
                self._steady = newest
                self._seen_at = newest.read_at

    def wait_for_readings(self, count: int, timeout: float) -> bool:
        """Block until `count` readings were made (tests, benchmarks); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self._detections >= count, timeout)

    def hold(self, on: bool, shown: LiveSnapshot | None = None) -> bool:
        """Keep the steady reading on the panel whatever the camera sees next (False: follow the camera again).
        `shown`: the snapshot the panel showed when the player asked (to fix a tile of it): that one is
        held, not a newer reading that came meanwhile.  Returns whether a reading is held (there may be
        none to hold yet)."""
        with self._lock:
            if not on:
                self._held = None
            elif self._held is None and shown is not None and shown.tiles:
                self._held = (_Reading(shown.tiles, shown.issues, None, shown.view, shown.seen_at or time.time()),
                              shown.seen_at)
            elif self._held is None and self._steady is not None:
                self._held = (self._steady, self._seen_at)
            return self._held is not None

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
        return _Reading(tiles, tuple(result.issues))

    def _rate(self, times: deque[float], now: float) -> float:
        """Events per second over the last `rate_window_s` (or since the loop started, if that is shorter)."""
        while times and now - times[0] > self.live.rate_window_s:
            times.popleft()
        return len(times) / max(min(self.live.rate_window_s, now - self._started), 1e-3)

    def snapshot(self) -> LiveSnapshot:
        with self._lock:
            now = time.perf_counter()
            readings, analysed = self._rate(self._reading_times, now), self._rate(self._analysed_times, now)
            counts = Counter(r.multiset for r in self._votes)
            shown, seen_at, held = self._steady, self._seen_at, False
            if self._held is not None:
                (shown, seen_at), held = self._held, True
            agreeing = counts.get(shown.multiset, 0) if shown is not None else max(counts.values(), default=0)
            return LiveSnapshot(
                tiles=shown.tiles if shown is not None else (),
                issues=shown.issues if shown is not None else (),
                fps=self._fps, frames=self._frames, detections_run=self._detections,
                error=self._error, readings_per_s=readings, analysed_per_s=analysed, view=self._view,
                votes=len(self._votes), agreeing=agreeing,
                steady_at=self._steady_at if shown is not None else None,
                seen_at=seen_at, view_changed_at=self._view_changed_at, still=self._still, held=held,
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


@dataclass(frozen=True)
class WaitInView:
    """A winning tile of the hand in view, with its scores and the copies nobody shows."""

    wait: Wait
    unseen: int  # of its four copies, those not in view (the hand's own tiles and any on the table)


@dataclass(frozen=True)
class LiveAnalysis:
    """What the page shows for a steady reading.

    kind: empty | standing (shanten, the discards or draws that help) | ready (13 tiles, the waits)
    | finished (14 tiles that win: the hand, and its score once the context is known) | invalid
    (`message`: why, from the scorer).  Tiles in meld groups that make no set count as standing tiles;
    tiles set aside (unplaced) count only as seen.
    """

    kind: str
    message: str = ""
    counted: int = 0  # standing tiles plus three for each meld
    melds: tuple[Meld, ...] = ()
    standing: tuple[Tile, ...] = ()
    flowers: int = 0
    shanten: int | None = None
    discards: tuple[Discard, ...] = ()
    draws: tuple[Tile, ...] = ()  # draws that bring the hand closer
    unseen: tuple[int, ...] = (4,) * 34  # per tile index: copies not in view (in the hand, melds or on the table)
    waits: tuple[WaitInView, ...] = ()
    hand: Hand | None = None
    score: Any = None
    win_guessed: bool = False  # no tile set apart: the rightmost standing tile taken as the winning tile


def reading_key(tiles: Sequence[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The part of a reading the analysis depends on (classes and groups, not the boxes); any group name."""
    ordered = sorted(tiles, key=lambda t: (group_rank(t.get("group") or "unplaced"), t["xyxy"][0], t["cls"]))
    return tuple((t["cls"], t.get("group") or "unplaced") for t in ordered)


def group_rank(group: str) -> tuple[int, int]:
    """Where a group sorts: GROUPS order, then melds past the fourth (`meld4`, `meld5`...) by number,
    then any other name the reader may give."""
    if group in GROUPS:
        return (0, GROUPS.index(group))
    number = group.removeprefix("meld")
    return (1, int(number)) if number.isdigit() else (2, 0)


def _in_view(key: Sequence[tuple[str, str]]) -> tuple[tuple[Meld, ...], list[str], str | None, int, Counter[str]]:
    """Melds, standing tiles (left to right), the tile set apart as winning, flowers, and every face seen."""
    melds: list[Meld] = []
    standing: list[str] = []
    wins: list[str] = []
    flowers = 0
    seen: Counter[str] = Counter()
    meld_groups: dict[str, list[str]] = {}
    for cls, group in key:
        if is_flower(cls):
            flowers += group != UNPLACED
            continue
        if group.startswith("meld"):  # a concealed kong shows backs
            meld_groups.setdefault(group, []).append(cls)
        if cls == BACK:
            continue
        seen[cls] += 1
        if group == HAND:
            standing.append(cls)
        elif group == WIN:
            wins.append(cls)
    for classes in meld_groups.values():
        typed = type_group(tuple(classes))
        if isinstance(typed, Meld) and len(melds) < MAX_MELDS:
            melds.append(typed)
        else:
            standing.extend(c for c in classes if c != BACK)  # scattered tiles are no meld
    win = wins[-1] if len(wins) == 1 else None
    if len(wins) > 1:
        standing.extend(wins)
    return tuple(melds), standing, win, flowers, seen


def analyse(key: Sequence[tuple[str, str]], context: WinContext | None) -> LiveAnalysis:
    """What the tiles of a reading (`reading_key`) make: how far from ready, the waits, or the finished hand.

    `context` None: the way of winning is not known yet, a finished hand gets no score.
    The waits are scored with `context`'s winds (or East, East).
    """
    melds, standing_cls, win, flowers, seen = _in_view(key)
    if not melds and not standing_cls and win is None:
        return LiveAnalysis("empty", flowers=flowers)
    all_standing = standing_cls + ([win] if win else [])
    tiles = tuple(Tile.parse(c) for c in all_standing)
    counted = len(tiles) + 3 * len(melds)
    base = LiveAnalysis("standing", counted=counted, melds=melds, standing=tiles, flowers=flowers)
    if any(c > 4 for c in seen.values()):
        name, count = max(seen.items(), key=lambda kv: kv[1])
        return replace(base, kind="invalid", message=f"{name} appears {count} times; a set has only 4 of each tile")
    away = shanten(tiles, len(melds))
    unseen = tuple(max(0, 4 - seen[t.name]) for t in ALL_TILES)
    base = replace(base, shanten=away, unseen=unseen)
    if counted > 14:
        return replace(base, message="too_many")
    if counted == 14 and away == -1:
        return _finished(base, standing_cls, win, context)
    if counted == 13 and away == 0:
        from scoring.waits import waits

        ways = replace(context or WinContext(), flowers=flowers)
        try:
            found = waits(melds, tiles, ways)
        except HandError as exc:
            return replace(base, kind="invalid", message=str(exc))
        return replace(base, kind="ready", waits=tuple(WaitInView(w, unseen[w.tile.index]) for w in found))
    if len(tiles) % 3 == 2:
        return replace(base, discards=tuple(best_discards(tiles, len(melds))))
    return replace(base, draws=useful_tiles(tiles, len(melds)))


def _finished(base: LiveAnalysis, standing: list[str], win: str | None, context: WinContext | None) -> LiveAnalysis:
    guessed = win is None
    if win is None:
        standing, win = standing[:-1], standing[-1]  # left to right: the rightmost is the last one drawn
    try:
        hand = build_hand(base.melds, standing, win, base.flowers, context or WinContext())
    except HandError as exc:
        return replace(base, kind="invalid", message=str(exc))
    if context is None:
        return replace(base, kind="finished", hand=hand, win_guessed=guessed)
    from scoring.scorer import score

    try:
        return replace(base, kind="finished", hand=hand, score=score(hand), win_guessed=guessed)
    except HandError as exc:
        return replace(base, kind="invalid", message=str(exc), hand=hand)
