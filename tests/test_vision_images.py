"""Reading photos: EXIF orientation, reduced decoding of big JPEGs, and bad files with clear errors."""

from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.images import ImageError, decode_image, load_image, reduction_for
from vision.settings import DetectorSettings


def _marked_image(w: int = 60, h: int = 40) -> np.ndarray:
    """RGB picture with a red block in the top-left corner."""
    rgb = np.zeros((h, w, 3), np.uint8)
    rgb[: h // 4, : w // 4] = (255, 0, 0)
    return rgb


def _jpeg_bytes(rgb: np.ndarray, orientation: int = 1, quality: int = 95) -> bytes:
    buffer = io.BytesIO()
    image = Image.fromarray(rgb)
    exif = Image.Exif()
    if orientation != 1:
        exif[0x0112] = orientation
    image.save(buffer, "JPEG", quality=quality, exif=exif.tobytes())
    return buffer.getvalue()


def _red_centre(bgr: np.ndarray) -> tuple[float, float]:
    ys, xs = np.nonzero((bgr[..., 2] > 180) & (bgr[..., 0] < 80))
    return xs.mean() / bgr.shape[1], ys.mean() / bgr.shape[0]


def test_plain_jpeg_is_bgr_and_unrotated():
    bgr = load_image(_jpeg_bytes(_marked_image()))
    assert bgr.shape == (40, 60, 3)
    cx, cy = _red_centre(bgr)
    assert cx < 0.25 and cy < 0.25


@pytest.mark.parametrize(
    "orientation, shape, corner",
    [
        (3, (40, 60), "bottom-right"),  # turned 180
        (6, (60, 40), "top-right"),  # camera held upright: picture turned 90 cw on display
        (8, (60, 40), "bottom-left"),  # turned 90 ccw
    ],
)
def test_exif_orientation_is_applied(orientation, shape, corner, tmp_path):
    path = tmp_path / "photo.jpg"
    path.write_bytes(_jpeg_bytes(_marked_image(), orientation))
    decoded = decode_image(path)
    assert decoded.bgr.shape[:2] == shape
    assert decoded.original_wh == (shape[1], shape[0])
    cx, cy = _red_centre(decoded.bgr)
    expected = {"top-right": (cx > 0.75 and cy < 0.25), "bottom-right": (cx > 0.75 and cy > 0.75),
                "bottom-left": (cx < 0.25 and cy > 0.75)}
    assert expected[corner], (cx, cy)


def test_big_jpeg_is_decoded_reduced_with_exif_and_full_size_reported():
    rgb = np.zeros((1200, 1600, 3), np.uint8)
    rgb[:300, :400] = (255, 0, 0)
    decoded = decode_image(_jpeg_bytes(rgb, orientation=6), reduce_to=400)
    assert decoded.original_wh == (1200, 1600)  # portrait after orientation
    assert decoded.bgr.shape[:2] == (400, 300)  # 1/4 scale
    assert decoded.scale_xy == (4.0, 4.0)
    cx, cy = _red_centre(decoded.bgr)
    assert cx > 0.75 and cy < 0.25


@pytest.mark.parametrize("long_side, wanted, factor", [(4032, 1600, 2), (4032, 1000, 4), (4032, 400, 8),
                                                       (1000, 1600, 1), (3200, 1600, 2)])
def test_reduction_factor_keeps_at_least_the_wanted_size(long_side, wanted, factor):
    assert reduction_for(long_side, wanted) == factor


def test_png_with_alpha_and_greyscale_become_three_channel_bgr():
    for mode in ("RGBA", "L", "P", "I;16"):
        buffer = io.BytesIO()
        Image.new(mode, (8, 6)).save(buffer, "PNG")
        assert load_image(buffer.getvalue()).shape == (6, 8, 3)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height (no real pixel data): must be refused before decoding."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


def test_absurd_dimensions_are_refused_clearly():
    with pytest.raises(ImageError, match=r"image too large.*10000000000 pixels"):
        load_image(_png_header_only(100_000, 100_000))


def test_limits_come_from_settings(tmp_path):
    small_limit = DetectorSettings(max_pixels=1000, max_file_bytes=10_000)
    with pytest.raises(ImageError, match="too large"):
        load_image(_jpeg_bytes(_marked_image(60, 40)), small_limit)
    big_file = tmp_path / "big.jpg"
    big_file.write_bytes(_jpeg_bytes(np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8)))
    with pytest.raises(ImageError, match="file too large"):
        load_image(big_file, small_limit)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty file"),
        (b"%PDF-1.4 not a picture", "not an image"),
        ("truncated", "unreadable image"),
    ],
)
def test_bad_files_raise_image_error_with_reason(tmp_path, content, message):
    path = tmp_path / "bad.jpg"
    if content == "truncated":
        content = _jpeg_bytes(np.random.default_rng(1).integers(0, 255, (64, 64, 3), np.uint8))[:300]
    path.write_bytes(content)
    with pytest.raises(ImageError, match=message):
        load_image(path)


def test_missing_path_and_folder(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="not a file"):
        load_image(tmp_path)



@pytest.mark.parametrize("orientation", range(1, 9))
def test_reduced_decode_matches_full_decode_for_every_orientation(orientation):
    """The fast path (OpenCV, DCT-scaled) and Pillow's exif_transpose agree on all 8 EXIF orientations."""
    rgb = np.zeros((400, 600, 3), np.uint8)
    rgb[:100, :150] = (255, 0, 0)  # red top-left
    rgb[:100, -150:] = (0, 255, 0)  # green top-right
    rgb[-100:, :150] = (0, 0, 255)  # blue bottom-left
    data = _jpeg_bytes(rgb, orientation)
    full = decode_image(data).bgr
    reduced = decode_image(data, reduce_to=150)  # 1/4 scale
    assert reduced.bgr.shape[0] * 4 == full.shape[0] and reduced.bgr.shape[1] * 4 == full.shape[1]
    assert reduced.original_wh == (full.shape[1], full.shape[0])
    shrunk = cv2.resize(full, reduced.bgr.shape[1::-1], interpolation=cv2.INTER_AREA)
    assert np.abs(shrunk.astype(int) - reduced.bgr.astype(int)).mean() < 6


def test_truncated_big_jpeg_is_reported_not_half_read():
    data = _jpeg_bytes(np.random.default_rng(2).integers(0, 255, (800, 800, 3), np.uint8))
    with pytest.raises(ImageError, match="unreadable"):
        decode_image(data[: len(data) // 2], reduce_to=200)


def _png_bytes(pixels: np.ndarray) -> bytes:
    ok, encoded = cv2.imencode(".png", pixels)
    assert ok
    return encoded.tobytes()


def test_sixteen_bit_greyscale_png_is_scaled_not_read_as_white():
    grey = np.zeros((40, 60), np.uint16)
    grey[:, 30:] = 40_000  # right half light grey, left half black
    grey[:10, :10] = 10_000
    bgr = load_image(_png_bytes(grey))
    assert bgr.shape == (40, 60, 3) and bgr.dtype == np.uint8
    assert bgr[20, 5].max() == 0
    assert abs(int(bgr[20, 50, 0]) - 40_000 // 257) <= 1
    assert abs(int(bgr[5, 5, 0]) - 10_000 // 257) <= 1


def test_sixteen_bit_colour_png_keeps_its_colours():
    bgr16 = np.zeros((20, 20, 3), np.uint16)
    bgr16[..., 2] = 65535  # pure red
    bgr = load_image(_png_bytes(bgr16))
    assert tuple(bgr[10, 10]) == (0, 0, 255)


def test_big_png_is_decoded_reduced_with_full_size_reported():
    rgb = np.zeros((800, 1200, 3), np.uint8)
    rgb[:200, :300] = (0, 0, 255)  # red top-left, as BGR
    decoded = decode_image(_png_bytes(rgb), reduce_to=300)
    assert decoded.bgr.shape[:2] == (200, 300)  # 1/4
    assert decoded.original_wh == (1200, 800) and decoded.scale_xy == (4.0, 4.0)
    cx, cy = _red_centre(decoded.bgr)
    assert cx < 0.25 and cy < 0.25


def test_jpeg_beyond_the_full_decode_limit_comes_reduced_even_when_asked_whole():
    decoded = decode_image(_jpeg_bytes(_marked_image(600, 400)), DetectorSettings(max_full_decode_pixels=100_000))
    assert decoded.bgr.shape[:2] == (200, 300)  # 240 000 pixels > 100 000: halved by the JPEG decoder
    assert decoded.original_wh == (600, 400)


def test_png_beyond_the_full_decode_limit_is_refused_clearly():
    rgb = np.full((400, 600, 3), 90, np.uint8)
    with pytest.raises(ImageError, match=r"too large to read: 600x400.*PNG.*JPEG is read reduced"):
        decode_image(_png_bytes(rgb), DetectorSettings(max_full_decode_pixels=100_000), reduce_to=100)


def test_a_png_too_large_to_read_is_refused_before_its_pixels_are_decoded(monkeypatch):
    """Refusing must not cost the memory it protects: nothing decodes the pixels first (Pillow's getexif
    on a PNG loads them all)."""
    loads = []
    monkeypatch.setattr(Image.Image, "load", lambda self: loads.append(self.size))
    with pytest.raises(ImageError, match="too large to read"):
        decode_image(_png_bytes(np.full((400, 600, 3), 90, np.uint8)), DetectorSettings(max_full_decode_pixels=100_000))
    assert loads == []


def test_png_exif_orientation_is_applied():
    buffer = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(_marked_image()).save(buffer, "PNG", exif=exif.tobytes())
    decoded = decode_image(buffer.getvalue())
    assert decoded.bgr.shape[:2] == (60, 40)
    cx, cy = _red_centre(decoded.bgr)
    assert cx > 0.75 and cy < 0.25
