"""The readings of many frames of one still view fused into one reading (no Streamlit, no threads).

Each frame's detections (one box per tile, in the frame's pixels) are matched to the tiles of the
frames before by how much their boxes overlap.  A tile is kept when enough of the frames box it
(`LiveSettings.fuse_keep_share`); its face is the frames' vote (most frames, then the most summed
confidence), its box the median of theirs.  A face the frames disagree on is kept as the tile's
runner-up and lowers its confidence by the share of frames that read it otherwise, so the reader
that lays the fused tiles out treats it as it treats any unsure tile, and the doubts name it.

`fuse(frames)` -> `Fusion`; `Fusion.detections()` is what the layout reader reads; `sure(...)` says
whether more frames could still change the reading.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tileset.classes import CLASS_ID, CLASS_NAMES
from vision.boxes import match_boxes
from vision.detections import Detections

from .settings import DEFAULT_LIVE_SETTINGS, LiveSettings


@dataclass(frozen=True)
class FusedTile:
    """One tile as many frames saw it."""

    xyxy: tuple[float, float, float, float]  # the median of the frames' boxes
    cls: str  # the face most frames read
    conf: float  # the mean confidence of the frames that read `cls`, times their share of `seen`
    seen: int  # frames that boxed it
    votes: tuple[tuple[str, int], ...]  # each face the frames read, with how many read it; most first
    runner_up: str | None  # the second face of the vote, else the classifier's runner-up most frames gave

    @property
    def agreement(self) -> float:
        """The share of the frames that boxed it that read it as `cls`."""
        return self.votes[0][1] / self.seen if self.seen else 0.0

    @property
    def alternatives(self) -> tuple[str, ...]:
        """The other faces it may be: those some frames read, then the classifier's runner-up."""
        others = [face for face, _ in self.votes[1:]]
        if self.runner_up is not None and self.runner_up not in others and self.runner_up != self.cls:
            others.append(self.runner_up)
        return tuple(others)


@dataclass(frozen=True)
class Fusion:
    """The fused reading of `frames` frames: its tiles, left to right as found."""

    frames: int
    tiles: tuple[FusedTile, ...]

    def detections(self) -> Detections:
        """The fused tiles as the layout reader takes them (the runner-up as its second reading)."""
        if not self.tiles:
            return Detections.empty()
        return Detections.from_lists(
            [t.xyxy for t in self.tiles], [t.conf for t in self.tiles], [CLASS_ID[t.cls] for t in self.tiles],
            [CLASS_ID[t.runner_up] if t.runner_up is not None else -1 for t in self.tiles],
        )

    def disagreeing(self) -> list[int]:
        """The tiles whose face the frames disagree on."""
        return [i for i, t in enumerate(self.tiles) if len(t.votes) > 1]


@dataclass
class _Track:
    boxes: list[np.ndarray]
    faces: list[int]
    confs: list[float]
    runner_ups: list[int]
    last_frame: int

    def box(self) -> np.ndarray:
        return np.median(np.stack(self.boxes), axis=0)


def fuse(frames: Sequence[Detections], settings: LiveSettings = DEFAULT_LIVE_SETTINGS) -> Fusion:
    """The frames' readings (oldest first, one box per tile each, all in one frame's pixels) fused."""
    tracks: list[_Track] = []
    for n, dets in enumerate(frames):
        if not len(dets):
            continue
        runner_ups = dets.runner_up if dets.runner_up is not None else np.full(len(dets), -1)
        matched: dict[int, int] = {}
        if tracks:
            matched = dict(match_boxes(dets.xyxy, np.stack([t.box() for t in tracks]), settings.fuse_iou))
        for i in range(len(dets)):
            k = matched.get(i)
            if k is None:
                tracks.append(_Track([], [], [], [], n))
                k = len(tracks) - 1
            track = tracks[k]
            track.boxes.append(dets.xyxy[i].astype(np.float64))
            track.faces.append(int(dets.class_id[i]))
            track.confs.append(float(dets.confidence[i]))
            track.runner_ups.append(int(runner_ups[i]))
            track.last_frame = n
    need = max(1, math.ceil(settings.fuse_keep_share * len(frames) - 1e-9))
    kept = [_fused(t) for t in tracks if len(t.faces) >= need]
    kept.sort(key=lambda t: (t.xyxy[0], t.xyxy[1]))
    return Fusion(len(frames), tuple(kept))


def _fused(track: _Track) -> FusedTile:
    counts = Counter(track.faces)
    weight: dict[int, float] = {}
    for face, conf in zip(track.faces, track.confs, strict=True):
        weight[face] = weight.get(face, 0.0) + conf
    order = sorted(counts, key=lambda f: (-counts[f], -weight[f], f))
    face = order[0]
    seen = len(track.faces)
    confs = [c for f, c in zip(track.faces, track.confs, strict=True) if f == face]
    runner_up = order[1] if len(order) > 1 else None
    if runner_up is None:
        theirs = Counter(r for f, r in zip(track.faces, track.runner_ups, strict=True) if f == face and r >= 0)
        runner_up = theirs.most_common(1)[0][0] if theirs else None
    box = track.box()
    return FusedTile(
        xyxy=(float(box[0]), float(box[1]), float(box[2]), float(box[3])),
        cls=CLASS_NAMES[face],
        conf=float(np.mean(confs)) * counts[face] / seen,
        seen=seen,
        votes=tuple((CLASS_NAMES[f], counts[f]) for f in order),
        runner_up=CLASS_NAMES[runner_up] if runner_up is not None else None,
    )


def unsure_tiles(fusion: Fusion, settings: LiveSettings = DEFAULT_LIVE_SETTINGS) -> list[int]:
    """The tiles more frames could still change: boxed by too few of the frames, read otherwise by too
    many, or read with too little confidence."""
    return [
        i for i, t in enumerate(fusion.tiles)
        if t.seen < settings.sure_seen_share * fusion.frames or t.agreement < settings.sure_face_share
        or t.conf < settings.sure_conf
    ]


def sure(fusion: Fusion, counted: int, settings: LiveSettings = DEFAULT_LIVE_SETTINGS) -> bool:
    """Whether the fused reading is sure: enough frames, every tile sure (`unsure_tiles`), and at least
    the 13 tiles of a hand (`counted`: standing tiles plus three for each meld)."""
    return fusion.frames >= settings.sure_readings and counted >= 13 and not unsure_tiles(fusion, settings)
