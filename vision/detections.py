"""Detections: one frozen object of parallel arrays, the data between vision stages.

Boxes are `xyxy` in pixels of the original image (after EXIF orientation);
`class_id` indexes `tileset.classes.CLASS_NAMES`; `runner_up` is each tile's
second most likely class (-1 when there is none: a one-model detector, a back, except one whose face a
calibrated classifier reads as its set's flower: then that flower).
`left_out` are the boxes of the photo a rule left out as no tile (`vision.rules`, `unlike_strays`): not among
the detections, but the photo's reading names them to the player; each filtering keeps them as they are.
Filtering returns a new object. `Detector` is what produces them from a photo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

from tileset.classes import CLASS_NAMES


@dataclass(frozen=True)
class Detections:
    xyxy: np.ndarray  # (N, 4) float32, pixels
    confidence: np.ndarray  # (N,) float32
    class_id: np.ndarray  # (N,) int64, canonical class ids
    runner_up: np.ndarray | None = None  # (N,) int64, second most likely class ids, -1 for none
    left_out: np.ndarray | None = None  # (M, 4) float32 pixels: the photo's boxes a rule left out as no tile

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        object.__setattr__(self, "left_out", np.asarray(
            () if self.left_out is None else self.left_out, np.float32).reshape(-1, 4))
        runner_up = self.runner_up
        if runner_up is None:
            runner_up = np.full(n, -1, np.int64)
            object.__setattr__(self, "runner_up", runner_up)
        if (self.xyxy.shape != (n, 4) or self.confidence.shape != (n,) or self.class_id.shape != (n,)
                or runner_up.shape != (n,)):
            raise ValueError("Detections arrays must be (N,4), (N,), (N,), (N,)")

    @staticmethod
    def empty() -> Detections:
        return Detections(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    @staticmethod
    def from_lists(xyxy: Any, confidence: Any, class_id: Any, runner_up: Any = None) -> Detections:
        return Detections(
            np.asarray(xyxy, np.float32).reshape(-1, 4),
            np.asarray(confidence, np.float32).reshape(-1),
            np.asarray(class_id, np.int64).reshape(-1),
            None if runner_up is None else np.asarray(runner_up, np.int64).reshape(-1),
        )

    @property
    def _runner_ups(self) -> np.ndarray:
        """`runner_up`, which `__post_init__` always sets (None is only the constructor's default)."""
        return cast(np.ndarray, self.runner_up)

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Any) -> Detections:
        """Boolean mask, index array or slice -> a new Detections."""
        if isinstance(index, (int, np.integer)):
            index = [index]
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index], self._runner_ups[index],
                          self.left_out)

    @property
    def class_names(self) -> list[str]:
        return [CLASS_NAMES[i] for i in self.class_id]

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    @property
    def wh(self) -> np.ndarray:
        return np.stack([self.xyxy[:, 2] - self.xyxy[:, 0], self.xyxy[:, 3] - self.xyxy[:, 1]], axis=1)

    def scaled(self, sx: float, sy: float) -> Detections:
        """The same detections with x coordinates times `sx` and y times `sy` (another image size)."""
        scale = np.array([sx, sy, sx, sy], np.float32)
        return Detections(self.xyxy * scale, self.confidence, self.class_id, self.runner_up,
                          cast(np.ndarray, self.left_out) * scale)

    def with_class(self, index: int, class_id: int) -> Detections:
        """The same detections with tile `index` read as `class_id` (its runner-up becomes the old reading)."""
        classes, runner_up = self.class_id.copy(), self._runner_ups.copy()
        runner_up[index], classes[index] = classes[index], class_id
        return Detections(self.xyxy, self.confidence, classes, runner_up, self.left_out)

    def to_json(self) -> list[dict[str, Any]]:
        """The `tiles` list of the `vision detect` contract."""
        return [
            {"cls": CLASS_NAMES[c], "xyxy": [round(float(v), 1) for v in box], "conf": round(float(p), 4)}
            for box, p, c in zip(self.xyxy, self.confidence, self.class_id, strict=False)
        ]


class Detector(Protocol):
    """What reads a photo's tiles (BGR pixels -> Detections in its pixels): `vision.detector.TileDetector`,
    or a stand-in in tests and tools."""

    def detect(self, image_bgr: np.ndarray) -> Detections: ...
