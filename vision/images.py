"""Photo files and bytes -> BGR pixels, EXIF-oriented, with clear errors for what cannot be read.

Big photos are decoded reduced when the caller asks (`reduce_to`): a JPEG by its
decoder's DCT scaling, other formats by OpenCV's reduced decoding; the size of
the original photo is kept (`DecodedImage.original_wh`) so boxes found in the
reduced pixels map back to full-size ones. 16-bit images are scaled to 8 bits
(not clipped to white).

HEIC/HEIF (an iPhone's photos) are read through Pillow with pillow-heif's opener, registered on
first use; without pillow-heif such a photo is "a format that cannot be read".

Runtime dependencies only: OpenCV, Pillow (with pillow-heif), numpy.
"""

from __future__ import annotations

import functools
import io
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.settings import DetectorSettings
from vision.timing import DECODE, stage

DEFAULT = DetectorSettings()
EXIF_ORIENTATION = 0x0112
_SWAPS_AXES = {5, 6, 7, 8}  # EXIF orientations that turn the picture by 90 degrees
_CV2_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
_CV2_FORMATS = {"PNG", "BMP", "TIFF", "WEBP", "PPM"}  # formats OpenCV decodes itself (reduced, 16-bit)
_WIDE_MODES = {"I;16", "I;16B", "I;16L", "I;16N", "I", "F"}  # Pillow modes with more than 8 bits a channel


@functools.cache
def register_heif() -> bool:
    """Let Pillow open HEIC/HEIF photos (pillow-heif); False when pillow-heif is not installed."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:
        return False
    register_heif_opener()
    return True


class ImageError(ValueError):
    """An image that cannot be read; the message says why, for the user."""


@dataclass(frozen=True)
class DecodedImage:
    """Pixels (BGR, EXIF-oriented) and how they relate to the original photo."""

    bgr: np.ndarray
    original_wh: tuple[int, int]  # after EXIF orientation

    @property
    def scale_xy(self) -> tuple[float, float]:
        """Original pixels per decoded pixel, along x and y."""
        h, w = self.bgr.shape[:2]
        return self.original_wh[0] / w, self.original_wh[1] / h


def _open(source: str | Path | bytes, settings: DetectorSettings) -> tuple[Image.Image, bytes]:
    """The image header parsed (no pixels decoded yet) and the file's bytes; size limits checked."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        path = Path(source)
        if not path.exists():
            raise ImageError(f"no such file: {path}")
        if not path.is_file():
            raise ImageError(f"not a file: {path}")
        size = path.stat().st_size
        if size > settings.max_file_bytes:
            raise ImageError(f"file too large: {size} bytes (limit {settings.max_file_bytes})")
        data = path.read_bytes()
    if not data:
        raise ImageError("empty file")
    register_heif()
    try:
        with warnings.catch_warnings():  # our own limit below says it more plainly
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, ImportError):  # ImportError: ultralytics, once imported, retries via pi_heif
        raise ImageError("not an image, or a format that cannot be read") from None
    except Image.DecompressionBombError as error:
        raise ImageError(f"image too large: {error}") from None
    except (OSError, ValueError) as error:
        raise ImageError(f"unreadable image: {error}") from None
    width, height = image.size
    if width <= 0 or height <= 0:
        raise ImageError(f"image has no pixels ({width}x{height})")
    if width * height > settings.max_pixels:
        raise ImageError(
            f"image too large: {width}x{height} = {width * height / 1e6:.0f} megapixels "
            f"(limit {settings.max_pixels / 1e6:.0f})"
        )
    return image, data


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation (1..8) of an opened image, 1 when it has none or a broken one."""
    try:
        if image.format == "PNG":  # Pillow's getexif() decodes a whole PNG to look for EXIF after its pixels
            raw = image.info.get("exif")
            if not raw:
                return 1
            exif = Image.Exif()
            exif.load(raw)
        else:
            exif = image.getexif()
        return int(exif.get(EXIF_ORIENTATION, 1))
    except Exception:  # a broken EXIF block is no reason to refuse the picture
        return 1


def reduction_for(long_side: int, wanted_long_side: int) -> int:
    """The largest reduction (1, 2, 4, 8) that keeps the long side >= wanted."""
    factor = 1
    while factor < 8 and long_side / (factor * 2) >= wanted_long_side:
        factor *= 2
    return factor


def apply_exif_orientation(pixels: np.ndarray, orientation: int) -> np.ndarray:
    """Turn/flip decoded pixels as EXIF orientation 1..8 says (what `ImageOps.exif_transpose` does)."""
    if orientation == 2:
        pixels = pixels[:, ::-1]
    elif orientation == 3:
        pixels = pixels[::-1, ::-1]
    elif orientation == 4:
        pixels = pixels[::-1]
    elif orientation == 5:
        pixels = pixels.swapaxes(0, 1)
    elif orientation == 6:
        pixels = cv2.rotate(pixels, cv2.ROTATE_90_CLOCKWISE)
    elif orientation == 7:
        pixels = pixels[::-1, ::-1].swapaxes(0, 1)
    elif orientation == 8:
        pixels = cv2.rotate(pixels, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return np.ascontiguousarray(pixels)


def _decode_jpeg_reduced(data: bytes, factor: int, orientation: int) -> np.ndarray | None:
    """libjpeg-turbo DCT-scaled decode through OpenCV (BGR, no colour conversion), or None.

    OpenCV returns whatever it could decode of a truncated file; such files
    (no end-of-image marker) are left to Pillow, which reports them.
    """
    if not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        return None
    flags = _CV2_REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    return None if pixels is None else apply_exif_orientation(pixels, orientation)


def _decode_with_opencv(data: bytes, factor: int, orientation: int) -> np.ndarray | None:
    """A PNG, BMP, TIFF or WebP decoded by OpenCV: 8-bit BGR (16-bit channels scaled, not clipped),
    reduced by `factor` while decoding; None when OpenCV cannot read it (Pillow tries then)."""
    flags = (_CV2_REDUCED[factor] if factor > 1 else cv2.IMREAD_COLOR) | cv2.IMREAD_IGNORE_ORIENTATION
    try:
        pixels = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    except cv2.error:
        return None
    if pixels is None or pixels.dtype != np.uint8 or pixels.ndim != 3:
        return None
    return apply_exif_orientation(pixels, orientation)


def _eight_bit_rgb(image: Image.Image) -> np.ndarray:
    """Pillow pixels as 8-bit RGB; 16-bit and 32-bit greys scaled by their bit depth (not clipped)."""
    if image.mode not in _WIDE_MODES:
        return np.asarray(image.convert("RGB"))
    grey = np.asarray(image).astype(np.float64)
    top = 65535.0 if image.mode.startswith("I;16") or grey.max(initial=0) > 255 else 255.0
    grey8 = np.clip(grey / top * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return np.repeat(grey8[..., None], 3, axis=2)


def decode_image(
    source: str | Path | bytes, settings: DetectorSettings = DEFAULT, reduce_to: int | None = None
) -> DecodedImage:
    """Read an image file or bytes into BGR pixels, EXIF-oriented.

    With `reduce_to`, an image larger than that (long side) is decoded at 1/2, 1/4
    or 1/8 scale while decoding (a JPEG by DCT scaling, many times faster than
    decoding it whole; other formats by OpenCV, reduced after decoding);
    `original_wh` still gives the full size. Beyond `DetectorSettings.max_full_decode_pixels`,
    a JPEG is always decoded reduced, below that, and other formats are refused: their
    decoders hold the whole picture first (a 115-megapixel PNG took 0.9-1.7 GB).
    """
    with stage(DECODE):
        return _decoded(source, settings, reduce_to)


def _decoded(source: str | Path | bytes, settings: DetectorSettings, reduce_to: int | None) -> DecodedImage:
    image, data = _open(source, settings)
    width, height = image.size
    orientation = _orientation(image)
    original_wh = (height, width) if orientation in _SWAPS_AXES else (width, height)
    factor = reduction_for(max(width, height), reduce_to) if reduce_to else 1
    if image.format == "JPEG":
        while factor < 8 and width * height / factor**2 > settings.max_full_decode_pixels:
            factor *= 2
        if factor > 1 and image.mode in {"RGB", "L", "YCbCr"}:
            pixels = _decode_jpeg_reduced(data, factor, orientation)
            if pixels is not None:
                return DecodedImage(pixels, original_wh)
    elif width * height > settings.max_full_decode_pixels:  # decoders of other formats hold it whole first
        raise ImageError(
            f"image too large to read: {width}x{height} = {width * height / 1e6:.0f} megapixels as {image.format} "
            f"(limit {settings.max_full_decode_pixels / 1e6:.0f} megapixels; a JPEG is read reduced at any size)"
        )
    elif image.format in _CV2_FORMATS and (factor > 1 or image.mode in _WIDE_MODES):
        pixels = _decode_with_opencv(data, factor, orientation)
        if pixels is not None:
            return DecodedImage(pixels, original_wh)
    try:
        if factor > 1:
            image.draft("RGB", (math.ceil(width / factor), math.ceil(height / factor)))
        image.load()
        if orientation != 1:
            image = ImageOps.exif_transpose(image)
        rgb = _eight_bit_rgb(image)
    except (OSError, ValueError, SyntaxError) as error:
        raise ImageError(f"unreadable image data: {error}") from None
    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    if factor > 1 and max(bgr.shape[:2]) > 1.5 * math.ceil(max(width, height) / factor):  # draft() did not reduce
        bgr = cv2.resize(bgr, (max(1, round(bgr.shape[1] / factor)), max(1, round(bgr.shape[0] / factor))),
                         interpolation=cv2.INTER_AREA)
    return DecodedImage(bgr, original_wh)


def load_image(source: str | Path | bytes, settings: DetectorSettings = DEFAULT) -> np.ndarray:
    """Full-resolution BGR pixels, EXIF-oriented; `ImageError` with a clear message when unreadable
    (a JPEG of more than `DetectorSettings.max_full_decode_pixels` comes reduced)."""
    return decode_image(source, settings).bgr
