"""HEIC/HEIF photos (an iPhone's default) are read like any other: pixels in BGR, turned as the photo
says, reduced on request with the original size kept (vision.images with pillow-heif's opener).
The HEIC files are written here by pillow-heif's encoder."""

from __future__ import annotations

import io

import numpy as np
import pillow_heif
import pytest
from PIL import Image

from vision.images import ImageError, decode_image, load_image, register_heif

RED_RGB, BLUE_RGB, GREEN_RGB = (220, 20, 20), (20, 20, 220), (20, 200, 20)


def heic_bytes(orientation: int = 1) -> bytes:
    """A 320x240 HEIC: left half red, right half blue, a green band across the top."""
    rgb = np.zeros((240, 320, 3), np.uint8)
    rgb[:, :160], rgb[:, 160:], rgb[:40] = RED_RGB, BLUE_RGB, GREEN_RGB
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    pillow_heif.from_pillow(Image.fromarray(rgb)).save(out, quality=95, exif=exif.tobytes())
    data = out.getvalue()
    assert data[4:12] in (b"ftypheic", b"ftypmif1")  # a real HEIF container
    return data


def near(pixel: np.ndarray, rgb: tuple[int, int, int]) -> bool:
    return bool(np.abs(pixel.astype(int) - np.array(rgb[::-1])).max() < 25)  # BGR


def test_a_heic_photo_is_read_into_bgr_pixels():
    assert register_heif()
    decoded = decode_image(heic_bytes())
    assert decoded.bgr.shape == (240, 320, 3) and decoded.bgr.dtype == np.uint8
    assert decoded.original_wh == (320, 240)
    assert near(decoded.bgr[120, 40], RED_RGB) and near(decoded.bgr[120, 280], BLUE_RGB)
    assert near(decoded.bgr[10, 160], GREEN_RGB)


def test_a_heic_file_by_its_path(tmp_path):
    path = tmp_path / "IMG_0001.HEIC"
    path.write_bytes(heic_bytes())
    assert load_image(path).shape == (240, 320, 3)


def test_a_turned_heic_photo_comes_upright():
    decoded = decode_image(heic_bytes(orientation=6))  # taken with the phone turned: 90 degrees clockwise to view
    assert decoded.bgr.shape == (320, 240, 3) and decoded.original_wh == (240, 320)
    assert near(decoded.bgr[5, 5], RED_RGB)  # the bottom-left corner is now the top-left
    assert near(decoded.bgr[160, 230], GREEN_RGB)  # the green band runs down the right side


def test_a_big_heic_is_read_reduced_with_its_original_size():
    decoded = decode_image(heic_bytes(), reduce_to=100)
    assert decoded.bgr.shape == (120, 160, 3) and decoded.original_wh == (320, 240)
    assert decoded.scale_xy == (2.0, 2.0)


def test_a_truncated_heic_is_a_clear_error():
    with pytest.raises(ImageError):
        decode_image(heic_bytes()[:200])
