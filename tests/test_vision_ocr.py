"""The batched text-line reader reads each line exactly as rapidocr reads it alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

pytest.importorskip("rapidocr")  # a third-party package: the runtime works without it

from vision.ocr import TextLineReader


def _line(text: str, width: int, height: int) -> np.ndarray:
    band = np.full((height, width, 3), 235, np.uint8)
    cv2.putText(band, text, (4, height - 8), cv2.FONT_HERSHEY_SIMPLEX, height / 40, (30, 30, 30), 2, cv2.LINE_AA)
    return band


def test_lines_read_in_one_batch_read_as_rapidocr_reads_each_alone():
    from rapidocr import RapidOCR

    lines = [_line("WINTER", 150, 40), _line("6", 30, 24), _line("PLUM", 90, 28), _line("", 60, 20),
             np.ascontiguousarray(_line("SPRING", 140, 36)[::-1, ::-1])]
    alone = []
    engine = RapidOCR(params={"Global.log_level": "error"})
    for line in lines:
        result = engine(line, use_det=False, use_cls=False, use_rec=True)
        text, score = (result.txts or ("",))[0], (result.scores or (0.0,))[0]
        alone.append((text, score) if text else ("", 0.0))
    batched = TextLineReader(batch_lines=3).read_lines(lines)
    assert [text for text, _ in batched] == [text for text, _ in alone]
    np.testing.assert_allclose([score for _, score in batched], [score for _, score in alone], atol=1e-4)
    assert batched[0][0] == "WINTER" and batched[2][0] == "PLUM"


def test_no_lines_no_reads():
    assert TextLineReader().read_lines([]) == []


def test_a_narrower_padding_in_one_call_still_reads_short_lines_and_never_cuts_a_long_one():
    reader = TextLineReader()
    digits = [_line(str(d), 34, 30) for d in (3, 6, 7)]
    assert [text for text, _ in reader.read_lines(digits, min_width=128)] == ["3", "6", "7"]
    wide = _line("SPRING", 200, 30)  # wider than 128 px at the recognizer's height: padded to its own width
    assert reader.read_lines([wide], min_width=128)[0][0] == reader.read_lines([wide])[0][0] == "SPRING"
