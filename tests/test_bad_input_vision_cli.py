"""`python -m vision detect` batches: a file name that is not UTF-8 does not end the batch."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

import vision.__main__ as cli
from vision.detections import Detections


class _ReadsFilesOnly:
    """Stands in for the models: reads each file, finds no tiles."""

    def detect_file(self, source: str) -> tuple[Detections, tuple[int, int]]:
        from vision.images import ImageError

        try:
            size = len(Path(source).read_bytes())
        except OSError as error:
            raise ImageError(f"cannot read: {error.strerror}") from None
        return Detections.empty(), (size, 1)


def _odd_name_then_another(folder: Path) -> tuple[bytes, Path]:
    """A 5-byte file whose name is not UTF-8, and a 3-byte file after it."""
    odd = os.path.join(os.fsencode(folder), b"h\xffnd.jpg")
    with open(odd, "wb") as handle:
        handle.write(b"12345")
    later = folder / "later.jpg"
    later.write_bytes(b"123")
    return odd, later


def _strict_stdout(monkeypatch: pytest.MonkeyPatch) -> tuple[io.BytesIO, io.TextIOWrapper]:
    """stdout that refuses what is not UTF-8, and the bytes it got."""
    raw = io.BytesIO()
    strict = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", strict)
    return raw, strict


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_a_name_that_is_not_utf8_does_not_end_the_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.detector import TileDetector

    monkeypatch.setattr(TileDetector, "load", classmethod(lambda cls, *a, **k: _ReadsFilesOnly()))
    odd, later = _odd_name_then_another(tmp_path)
    raw, strict = _strict_stdout(monkeypatch)
    code = cli.main(["detect", os.fsdecode(odd), str(later)])
    strict.flush()
    lines = [json.loads(line) for line in raw.getvalue().decode("ascii").splitlines()]
    assert code == 0
    assert [os.fsencode(line["image"]) for line in lines] == [odd, os.fsencode(later)], "the name survives"
    assert [line["width"] for line in lines] == [5, 3], "the file after the odd name was read too"


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_vision_read_goes_on_past_a_name_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.read as read_cli

    monkeypatch.setattr(read_cli, "load_detector", lambda *a, **k: _ReadsFilesOnly())
    odd, later = _odd_name_then_another(tmp_path)
    raw, strict = _strict_stdout(monkeypatch)
    read_cli.main([os.fsdecode(odd), str(later)])
    strict.flush()
    lines = [json.loads(line) for line in raw.getvalue().decode("utf-8").splitlines()]
    assert [os.fsencode(line["image"]) for line in lines] == [odd, os.fsencode(later)], "both photos have their line"
    assert all(line["hand"] is None and line["issues"] for line in lines), "no tiles: no hand, and a reason"


class _ClosedPipe(io.StringIO):
    """stdout after `| head -1` has read its line and gone."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise ValueError("no file descriptor")


def test_vision_read_ends_quietly_when_the_reader_goes_away(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.read as read_cli

    monkeypatch.setattr(read_cli, "load_detector", lambda *a, **k: _ReadsFilesOnly())
    photos = [tmp_path / f"p{k}.jpg" for k in range(3)]
    for photo in photos:
        photo.write_bytes(b"123")
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert read_cli.main([str(p) for p in photos]) == 0
