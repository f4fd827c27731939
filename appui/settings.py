"""The app's own settings, in one frozen object (vision thresholds live in `vision.settings`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

LABELED_DIR_ENV = "MCR_LABELED_DIR"
DETECTOR_ENV = "MCR_DETECTOR"
LIVE_FRAMES_ENV = "MCR_LIVE_FRAMES"


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
    # photo page: the zoomed strip under the photo, every tile a tap target: this many tiles a row (7 on a 390 px
    # phone: 51 CSS px each, over the 44 px a fingertip needs; the tiles on the photo itself are 17-41 px wide)
    zoom_columns: int = 7
    # ... a tile's cell in the strip's picture, pixels wide (4:3 tall), and the strip's widest on a large screen, CSS px
    zoom_cell_px: int = 96
    zoom_max_css_px: int = 448
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


@dataclass(frozen=True)
class LiveSettings:
    """The live page's own thresholds: the view's change, the fusion of its frames, when it is sure,
    the rates, the panel's refresh, the camera asked for (the frame size and reader thread are in
    `AppSettings`)."""

    # each frame is compared with the view being read through a grey thumbnail this many cells wide
    # (10 pixels a cell at 640: one tile swapped for another changes a few cells)
    thumb_width: int = 64
    # a thumbnail cell changed when its grey level moved by more than this (0-255): camera noise,
    # averaged over a cell, stays well under it
    cell_change: float = 8.0
    # the view changed when more than this share of the cells changed: its boxes and reading are dropped at once
    # (a row of 13 standing tiles covers about a tenth of a 640x480 view; one tile swapped, under 1 %)
    view_change_share: float = 0.03
    # the view is still when at most this share changed: a sure reading is kept and nothing is read
    still_share: float = 0.0
    # the last this many readings of a view are fused into its reading (appui.live_fusion)
    fuse_window: int = 12
    # ... a box of one frame is the same tile as another frame's when they overlap this much (IoU)
    fuse_iou: float = 0.5
    # ... a tile is kept when at least this share of the fused readings box it
    fuse_keep_share: float = 0.4
    # the panel is given the view's reading once this many readings of it are fused (the first one: the
    # panel shows it at once, and says it is still reading until it is sure)
    fuse_show_min: int = 1
    # the fused reading is sure once it stands on this many readings, every tile boxed by this share of
    # them, read as one face by this share, with at least this confidence (DoubtSettings.unsure_conf's
    # measure), and it counts 13 tiles or more
    sure_readings: int = 3
    sure_seen_share: float = 0.8
    sure_face_share: float = 0.9
    sure_conf: float = 0.5
    # ... and it is settled (nothing read while the view stays still) once sure and unchanged over this many
    # readings; a still view never sure is settled after `unsure_max_readings` readings, its doubts shown
    stable_readings: int = 3
    unsure_max_readings: int = 60
    # the first this many readings of a view come as fast as the reader can; after them a view not sure is read at
    # most every `unsure_every_s` seconds: the reader is mostly free for the next view, and the browser's video
    # encoder and the panel keep the cores (a starved encoder sends the camera's picture at a quarter of its size)
    fuse_fast_readings: int = 4
    unsure_every_s: float = 0.25
    # readings/s and analysed frames/s are counted over the last this many seconds
    rate_window_s: float = 2.0
    # the side panel is redrawn this often, seconds (its lag behind the video is at most this plus a reading)
    panel_every_s: float = 0.2
    # the camera is asked for its own picture about this wide, no height asked, never cropped or scaled
    # (getUserMedia resizeMode "none": a 16:9, 4:3 or square camera sends the whole of one of its own modes)
    camera_ideal_width: int = 960
    # standing tiles: "draws that help" names the faces when there are at most this many, else counts them
    draws_named_max: int = 12
    # the panel also carries each fused frame's own reading (for the browser tests and benchmarks to measure
    # fusion against single frames); env MCR_LIVE_FRAMES=1
    show_frames: bool = field(default_factory=lambda: os.environ.get(LIVE_FRAMES_ENV) == "1")


DEFAULT_LIVE_SETTINGS = LiveSettings()


@dataclass(frozen=True)
class DoubtSettings:
    """Which tiles the photo and the live page doubt (`appui.doubts`)."""

    # a tile read with less confidence (the finder's times the face's) than this is unsure: the faces it may
    # be are tried on the hand.  The shipped models on the real photos (japanese-layout, chinese-v4 test and
    # 80 of val: 3 730 tiles read right, 24 wrong): below 0.5 are 54 % of the wrong faces and 0.7 % of the
    # right ones; 0.9 takes in 98 % of the right ones (the finder's own confidence is mostly 0.7-0.9)
    unsure_conf: float = 0.5
    # a doubt names at most this many faces the tile may be, with what each gives
    faces_named: int = 2


DEFAULT_DOUBT_SETTINGS = DoubtSettings()
