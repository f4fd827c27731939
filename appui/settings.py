"""The app's own settings, in one frozen object (vision thresholds live in `vision.settings`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

LABELED_DIR_ENV = "MCR_LABELED_DIR"
DETECTOR_ENV = "MCR_DETECTOR"


def _default_labeled_dir() -> Path:
    """$MCR_LABELED_DIR, else `labeled/` in the data root (appui.dataroot)."""
    from .dataroot import data_root

    return Path(os.environ.get(LABELED_DIR_ENV) or data_root() / "labeled").expanduser()


def _detector_factory() -> str | None:
    return os.environ.get(DETECTOR_ENV) or None


@dataclass(frozen=True)
class AppSettings:
    # "module:callable" that returns the detector (anything with detect(image_bgr) -> Detections)
    # instead of the ONNX models in models/; env MCR_DETECTOR. E.g. appui.demo_scene:truth_detector
    detector_factory: str | None = field(default_factory=_detector_factory)
    # where "Save for training" writes images/ and labels/ (ultralytics layout); env MCR_LABELED_DIR overrides
    labeled_dir: Path = field(default_factory=_default_labeled_dir)
    # photo page: longest side of the annotated photo shown, pixels
    display_max_side: int = 1600
    # photo page: height of each tile crop in the hand strip, pixels
    crop_height: int = 72
    # photo page: width of a tile (picture and button) in the hand strip, CSS pixels; five fit a phone
    strip_tile_width: int = 60
    # photo page: the smallest button, tap area and field on a phone, CSS pixels (WCAG 2.5.5 target size)
    touch_target_px: int = 44
    # photo page: the tappable photo shows the tiles' area grown by this share of its larger side
    tap_view_margin: float = 0.06
    # photo page: a tap this close to a tile's box (CSS pixels on the screen) picks it: a fingertip's reach
    tap_reach_px: float = 22.0
    # photo page: a phone's content width, CSS pixels: lines on the tappable photo are drawn for it
    phone_width_px: int = 360
    # photo page: the tappable photo is at most this wide on a large screen, CSS pixels
    tap_view_max_css_px: int = 720
    # photo page: the tappable photo's longest side as sent to the browser, pixels
    tap_view_max_side: int = 1200
    # photo page: how many faces that make the hand win the tile editor offers as one-tap fixes
    fix_suggestions: int = 4
    # live page: read the table in a thread of its own, so the video never waits for the detector
    live_background: bool = True
    # live page, inline reading (live_background off): the detector on one frame in this many
    live_detect_every: int = 3
    # live page: frames are shrunk so the longest side is at most this before detection, pixels
    live_max_side: int = 640
    # LAN mode's access code: wrong tries allowed before each further try must wait
    access_free_tries: int = 3
    # ... the first wait, doubled after every further wrong try, up to access_max_delay_s
    access_first_delay_s: float = 2.0
    access_max_delay_s: float = 120.0
    # ... wrong tries are counted per client (its IP address); this many clients are remembered
    access_clients_kept: int = 4096
    # a browser that entered the code keeps it this long: a reload or a new tab asks again only after it
    access_remember_hours: float = 12.0


DEFAULT_APP_SETTINGS = AppSettings()
