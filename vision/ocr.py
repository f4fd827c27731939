"""Text lines -> (text, score) with rapidocr's PP-OCR line recognizer, many lines in one run.

The calibration's reading of where a set prints its ranks (`vision.ranks`, `training.numerals`) cuts bands
from tile crops and hands them all here at once: one onnxruntime run per small batch of lines of similar shape,
each line scaled to the recognizer's height (48 px) and padded as rapidocr pads it
(to 320 px), so every line reads exactly as `RapidOCR(img, use_det=False)` reads
it one at a time, with less overhead per line.

rapidocr is imported on first use; without it `TextReaderUnavailable` says so and no
corner is read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.timing import SECOND_READINGS, stage

TextRead = tuple[str, float]  # (text, recognizer score); ("", 0.0) where nothing was read


@dataclass(frozen=True)
class Reading:
    """What a second reading concluded: the class (for a rank, its digit), how sure the recognizer was,
    and the text it read."""

    name: str
    score: float
    text: str


class TextReaderUnavailable(RuntimeError):
    """rapidocr is not installed: flowers and ranks are read by the classifier alone."""


class TextLineReader:
    """rapidocr's text-line recognizer (no text detection: the bands are the lines)."""

    def __init__(self, threads: int = 2, min_line_width: int | None = None, batch_lines: int = 4,
                 min_score: float = 0.0, spinning: bool = False) -> None:
        """`min_line_width`: pixels (at the recognizer's 48 px height) every line is padded to at least;
        None: rapidocr's own width (320), which reads exactly as `RapidOCR` does (narrower is faster,
        but this recognizer reads a line differently with less padding); `batch_lines`: lines per onnxruntime run
        (fewest ms a line on 2 cores at 2-4; 16 took 70 % longer: its activations outgrow the caches);
        texts read less surely than `min_score` count as nothing read (`RapidOCR`'s `text_score`); `spinning`:
        whether idle onnxruntime threads busy-wait (rapidocr's own session does; on 2 shared cores a
        session that does not reads a batch about a quarter faster)."""
        try:
            from rapidocr import RapidOCR
        except ImportError as error:  # the runtime lists it; a partial install still reads tiles
            raise TextReaderUnavailable(f"rapidocr is not installed ({error})") from error
        engine = RapidOCR(params={
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        })
        engine(np.full((48, 48, 3), 255, np.uint8), use_det=False, use_cls=False, use_rec=True)  # loads the model
        recognizer: Any = engine.text_rec
        self._session = recognizer.session
        model_path = getattr(recognizer.session.session, "_model_path", None)
        if not spinning and isinstance(model_path, str):
            self._session = _session_without_spinning(model_path, threads)
        self._decode = recognizer.postprocess_op
        self._channels, self._height, own_width = recognizer.rec_image_shape
        self._min_width = own_width if min_line_width is None else min_line_width
        self._batch = max(1, batch_lines)
        self._min_score = min_score

    def read_lines(self, lines: Sequence[np.ndarray], min_width: int | None = None) -> list[TextRead]:
        """What the recognizer reads on each BGR line image, in order; `min_width`: the reader's own
        padded width in this call instead (short lines such as a corner's digit read faster narrower)."""
        with stage(SECOND_READINGS):
            return self._read_lines(lines, self._min_width if min_width is None else min_width)

    def _read_lines(self, lines: Sequence[np.ndarray], min_width: int) -> list[TextRead]:
        lines = [_at_least_30_px(line) for line in lines]
        ratios = [line.shape[1] / max(1, line.shape[0]) for line in lines]
        order = np.argsort(ratios, kind="stable")
        reads: list[TextRead] = [("", 0.0)] * len(lines)
        for start in range(0, len(order), self._batch):
            chunk = order[start : start + self._batch]
            widest = max(ratios[i] for i in chunk)
            width = max(min_width, math.ceil(self._height * widest))
            batch = np.stack([self._normalised(lines[i], width) for i in chunk])
            results, _ = self._decode(self._session(batch), False,
                                      wh_ratio_list=[ratios[i] for i in chunk], max_wh_ratio=width / self._height)
            for i, (text, score) in zip(chunk, results, strict=False):
                reads[i] = (str(text), float(score)) if text and score >= self._min_score else ("", 0.0)
        return reads

    def _normalised(self, line_bgr: np.ndarray, width: int) -> np.ndarray:
        """One line as the recognizer takes it: 48 px high, aspect kept, values in [-1, 1], zero-padded
        on the right to `width`, channels first (what rapidocr's `resize_norm_img` does)."""
        h, w = line_bgr.shape[:2]
        resized_w = min(width, math.ceil(self._height * w / max(1, h)))
        resized = cv2.resize(line_bgr, (max(1, resized_w), self._height)).astype(np.float32)
        out = np.zeros((self._channels, self._height, width), np.float32)
        out[:, :, : resized.shape[1]] = resized.transpose(2, 0, 1) / 127.5 - 1.0
        return out


def _session_without_spinning(model_path: str, threads: int) -> Any:
    """The recognizer's model in an onnxruntime session whose idle threads sleep, as a callable
    batch -> output (what rapidocr's session wrapper is)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return lambda batch: session.run(None, {name: batch})[0]


def _at_least_30_px(line_bgr: np.ndarray) -> np.ndarray:
    """A line whose short side is under 30 px scaled up to 30, both sides then rounded to a multiple of
    32 (rapidocr's `increase_min_side`, which its whole-image call applies before recognizing; the
    recognizer was measured with it)."""
    h, w = line_bgr.shape[:2]
    if min(h, w) >= 30:
        return line_bgr
    ratio = 30 / min(h, w)
    size = (max(32, round(int(w * ratio) / 32) * 32), max(32, round(int(h * ratio) / 32) * 32))
    return cv2.resize(line_bgr, size)


def surest_if_agreed(found: set[tuple[Any, float, str]]) -> tuple[Any, float, str] | None:
    """Of (what, score, text) found on several lines, the surest when all found the same; else None."""
    if len({what for what, _, _ in found}) != 1:
        return None
    return max(found, key=lambda item: item[1])
