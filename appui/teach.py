"""The "Teach my tiles" page: one photo of the calibration layout (or up to three, from other angles)
teaches the models a club's own set.

Camera or upload; each photo with each tile named by its row and place; what does not fit (a row or
a place missing or extra) and, for a photo in no particular order, the faces assigned one of each
for the player to confirm; a "Learn this set" button with a progress bar (`training.calibrate`, every
photo that shows the layout); the figures before and after; the versions of the models folder with
switch and back.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import streamlit as st

from . import jobs
from .dataroot import data_root
from .i18n import t, translator
from .models import get_detector
from .overlay import fit

PREFIX = "teach."
READ = PREFIX + "read"
RESULT = PREFIX + "result"
KEPT = PREFIX + "kept"  # camera shots kept while the player takes another from another angle
PHOTOS = PREFIX + "photos"  # the keys of the photos the last result was learned from
WATCHING = PREFIX + "watching"  # the learning run this session started or asked for: its result is shown here
JOINED = PREFIX + "joined"  # when the run this session watched was started elsewhere (another tab, a first click)
LEARN_COMMAND_KEY = PREFIX + "learn_command"  # tests replace `python -m vision calibrate` with a stand-in
LEARN_JOB, LEARN_KIND = "learn", "calibrate"  # one learning at a time, whichever page started it
MAX_PHOTOS = 3  # the layout's spec: "two or three from other angles help"
BONUS_CHOICES = ("all", "f1,f2,f3,f4", "s1,s2,s3,s4", "none")
REPO_ROOT = Path(__file__).resolve().parent.parent
STEP = re.compile(r"\[calibrate (\d)/5\]")
SPEC = REPO_ROOT / "docs" / "spec" / "calibration-layout.md"  # the layout in full, shown on the page

def tr(key: str, **values: Any) -> str:
    """The page's label `teach_<key>` (appui.i18n) in the page's language."""
    return t(f"teach_{key}", **values)


@dataclass(frozen=True)
class TeachRead:
    key: str
    image_bgr: np.ndarray
    photo_path: str  # the photo as uploaded, kept for learning
    bonus: str
    reading: Any  # vision.calibration_layout.LayoutReading
    unordered: Any = None  # the one-of-each reading, once asked for
    error: str = ""


def _models_root() -> Path:
    from vision import settings as vision_settings

    return Path(vision_settings.MODELS_DIR)


def bonus_of(choice: str) -> tuple[str, ...] | None:
    from tileset.calibration import parse_bonus

    return None if choice == "all" else parse_bonus(choice)


def widget_key(name: str, photo: int) -> str:
    """A per-photo widget's key: the first photo's is the page's own (`teach.confirm`), the others numbered."""
    return PREFIX + name if photo == 0 else f"{PREFIX}{name}.{photo + 1}"


def _photo_inputs() -> list[bytes]:
    """The photos to read, at most `MAX_PHOTOS`, each once: uploaded together, or camera shots kept one by one."""
    source = st.segmented_control(tr("source"), ["upload", "camera"], default="upload", required=True,
                                  format_func=translator("teach_"), key=PREFIX + "source")
    if source == "camera":
        kept: list[bytes] = st.session_state.setdefault(KEPT, [])
        shot = st.camera_input(tr("camera"), key=PREFIX + "camera")
        photos = kept + ([shot.getvalue()] if shot is not None else [])
        left, right = st.columns(2)
        if shot is not None and shot.getvalue() not in kept and len(kept) < MAX_PHOTOS - 1:
            left.button(tr("keep"), key=PREFIX + "keep", on_click=kept.append, args=(shot.getvalue(),))
        if kept:
            st.caption(tr("kept", n=len(kept)))
            right.button(tr("start_over"), key=PREFIX + "start_over", on_click=kept.clear)
    else:
        files = st.file_uploader(tr("upload"), type=["jpg", "jpeg", "png", "webp", "bmp", "heic", "heif"], key=PREFIX + "upload",
                                 accept_multiple_files=True)
        photos = [f.getvalue() for f in files or []]
    photos = list(dict.fromkeys(photos))  # the same photo twice is one photo
    if len(photos) > MAX_PHOTOS:
        st.warning(tr("too_many", n=MAX_PHOTOS))
    return photos[:MAX_PHOTOS]


def read_teach_photo(image_bytes: bytes, bonus: str, detector: Any) -> TeachRead:
    """The photo decoded as the runtime decodes it and its calibration layout read (no learning yet)."""
    from vision.calibration_layout import read_layout_photo
    from vision.images import decode_image

    key = hashlib.sha1(image_bytes + bonus.encode()).hexdigest()
    folder = data_root() / "teach"  # the app writes only under its data folder
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key[:16]}.jpg"
    path.write_bytes(image_bytes)
    try:
        decoded = decode_image(image_bytes, reduce_to=1600)
    except ValueError as error:
        return TeachRead(key, np.zeros((1, 1, 3), np.uint8), str(path), bonus, None, error=str(error))
    reading = read_layout_photo(detector, decoded.bgr, bonus_of(bonus))
    return TeachRead(key, decoded.bgr, str(path), bonus, reading)


def unordered_reading(read: TeachRead, detector: Any) -> Any:
    """Every face-up tile named jointly, one of each face (`vision.calibration_layout.read_unordered`)."""
    from vision.calibration_layout import read_unordered

    return read_unordered(detector, read.image_bgr, bonus_of(read.bonus))


RIGHT, UNSURE, WRONG = (40, 170, 40), (0, 150, 240), (30, 30, 220)  # BGR: the boxes' colours (`LEGEND`)


def unsure_below() -> float:
    """A tile read with less confidence than this is "unsure" (the reader's own bound, `LayoutSettings`)."""
    from vision.settings import LayoutSettings

    return LayoutSettings().low_confidence


def box_colour(expected: str, read_as: str, confidence: float) -> tuple[int, int, int]:
    """Green: read as its place's face; orange: so, but unsure; red: read as another face (or not found)."""
    if read_as != expected:
        return WRONG
    return UNSURE if confidence < unsure_below() else RIGHT


def annotated(image_bgr: np.ndarray, reading: Any) -> np.ndarray:
    """The photo with each tile boxed: its place (row.place) and name, coloured by `box_colour`."""
    return _boxed(image_bgr, [(tile.row, tile.place, tile.expected, tile.xyxy,
                               box_colour(tile.expected, tile.read_as, tile.confidence)) for tile in reading.tiles])


def annotated_after(image_bgr: np.ndarray, tiles: Sequence[dict[str, Any]]) -> np.ndarray:
    """The photo with each tile boxed as the new version reads it (`training.calibrate.tile_readings`)."""
    return _boxed(image_bgr, [(tile["row"], tile["place"], tile["expected"], tuple(tile["xyxy"]),
                               box_colour(tile["expected"], tile["after"], tile["after_confidence"]))
                              for tile in tiles])


def _boxed(image_bgr: np.ndarray, boxes: Sequence[tuple[int, int, str, Sequence[float], tuple[int, int, int]]]
           ) -> np.ndarray:
    out = image_bgr.copy()
    scale = max(1.0, max(out.shape[:2]) / 1000)
    for row, place, expected, xyxy, colour in boxes:
        x0, y0, x1, y1 = (round(v) for v in xyxy)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, max(1, int(2 * scale)))
        cv2.putText(out, f"{row}.{place} {expected}", (x0, max(12, y0 - 4)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, colour, max(1, int(scale)), cv2.LINE_AA)
    return out


@dataclass(frozen=True)
class TileOutcome:
    """What learning changed on one photo's tiles: those read wrong before and right now, those it still reads
    wrong or unsure (each "face (confidence)" or "face read as other")."""

    learned: tuple[str, ...]
    unsure: tuple[str, ...]


def tile_outcome(tiles: Sequence[dict[str, Any]]) -> TileOutcome:
    """The learned and still-unsure tiles of one photo's `tiles` (the result's "tiles" of that photo)."""
    learned, unsure = [], []
    for tile in tiles:
        place = f"{tile['row']}.{tile['place']} {tile['expected']}"
        if tile["after"] == tile["expected"] and tile["before"] != tile["expected"]:
            learned.append(f"{place} ({tr('was', face=tile['before'])})")
        if tile["after"] != tile["expected"]:
            unsure.append(f"{place} ({tr('read_as', face=tile['after'])})")
        elif tile["after_confidence"] < unsure_below():
            unsure.append(f"{place} ({tile['after_confidence']:.2f})")
    return TileOutcome(tuple(learned), tuple(unsure))


def learn_command(photos: Sequence[tuple[TeachRead, Any]], models_root: Path) -> list[str]:
    """`python -m vision calibrate` for these photos, each with the reading the page shows: learning runs in
    its own process (it edits ONNX graphs, which the app itself never needs); when the person confirmed a
    one-of-each reading of any photo, every photo's tiles go with it as the page shows them."""
    first = photos[0][0]
    command = [sys.executable, "-m", "vision", "calibrate", *(read.photo_path for read, _ in photos),
               "--models", str(models_root), "--name", "app"]
    if first.bonus != "all":
        command += ["--bonus", first.bonus]
    if any(reading is not read.reading for read, reading in photos):
        tiles = Path(first.photo_path).with_suffix(".tiles.json")
        tiles.write_text(json.dumps([[{"row": tile.row, "place": tile.place, "expected": tile.expected,
                                       "read_as": tile.read_as, "confidence": tile.confidence, "xyxy": list(tile.xyxy)}
                                      for tile in reading.tiles]
                                     for _, reading in photos]))
        command += ["--tiles", str(tiles)]
    return command


def _since(state: jobs.JobState) -> str:
    return time.strftime("%H:%M:%S", time.localtime(state.started))


def _learn(photos: Sequence[tuple[TeachRead, Any]]) -> None:
    """Start learning, once: a second click, or a second tab, while it runs is told so and watches that run."""
    argv = st.session_state.get(LEARN_COMMAND_KEY) or learn_command(photos, _models_root())
    try:
        state = jobs.start(data_root(), LEARN_JOB, LEARN_KIND, argv, cwd=REPO_ROOT)
    except jobs.AlreadyRunning as running:
        state = running.state
        if state.kind != LEARN_KIND:
            st.warning(tr("other_running", since=_since(state)))
            return
        st.warning(tr("running", since=_since(state)))
        st.session_state[JOINED] = _since(state)
    except jobs.JobError as error:
        st.session_state[RESULT] = {"error": str(error)}
        return
    st.session_state[WATCHING] = state.token


def _watch() -> None:
    """The learning run this session started or asked for, or one running now from another tab: its progress
    until it ends, then its result."""
    state = jobs.status(data_root(), LEARN_JOB)
    if state is None:
        return
    if state.token != st.session_state.get(WATCHING):
        if not (state.running and state.kind == LEARN_KIND):
            return
        st.info(tr("running", since=_since(state)))
        st.session_state[WATCHING] = state.token
        st.session_state[JOINED] = _since(state)
    bar = st.progress(0.0, text=tr("learning"))
    while state.running:
        for line in reversed(state.log_lines()):  # the last "[calibrate k/5] ..." says how far it is
            if step := STEP.match(line):
                bar.progress(int(step.group(1)) / 5, text=line.strip()[:120])
                break
        time.sleep(jobs.POLL_S)
        state = jobs.status(data_root(), LEARN_JOB) or state
    bar.empty()
    st.session_state.pop(WATCHING, None)
    result = state.result()
    if state.exit_code not in (0, None) or result is None:
        errors = [line for line in state.log_lines() if line.startswith("error") or line.startswith("  ")]
        st.session_state[RESULT] = {"error": "\n".join(errors) or tr("stopped", code=state.exit_code)}
    else:
        st.session_state[RESULT] = result
        from appui import models as app_models

        app_models._load_detector.clear()  # the next photo is read with the version now in use
        if result.get("promoted"):
            st.session_state.pop(READ, None)  # the photos shown again as the version now in use reads them
    st.rerun()  # the page again, its "Learn" button no longer held back by the run that ended


def _show_result() -> None:
    result = st.session_state.get(RESULT)
    if not result:
        return
    if joined := st.session_state.pop(JOINED, None):
        st.info(tr("joined", since=joined))
    if "error" in result:
        st.error(result["error"])
        return
    if result["promoted"]:
        st.success(tr("promoted", version=result["version"], seconds=result["seconds"]))
    else:
        st.warning(tr("not_promoted", version=result["version"], reason=result["reason"]))
    left, right = st.columns(2)
    left.metric(tr("before"), f"{result['before']['read_accuracy']:.1%}")
    left.metric(tr("after"), f"{result['after']['read_accuracy']:.1%}",
                delta=f"{result['after']['read_accuracy'] - result['before']['read_accuracy']:+.1%}")
    if "base_read_accuracy" in result["after"]:
        right.metric(tr("base"), f"{result['after']['base_read_accuracy']:.1%}",
                     delta=f"{result['after']['base_read_accuracy'] - result['before']['base_read_accuracy']:+.1%}")
    _show_tiles(result)


def _show_tiles(result: dict[str, Any]) -> None:
    """Per photo learned from: the tiles learned and those still read unsure or wrong, and the photo boxed as the
    new version reads it, with the legend."""
    reads: dict[str, TeachRead] = st.session_state.get(READ) or {}
    shown = [reads[key] for key in st.session_state.get(PHOTOS) or [] if key in reads and reads[key].reading]
    for number, tiles in enumerate(result.get("tiles") or []):
        outcome = tile_outcome(tiles)
        if len(result["tiles"]) > 1:
            st.markdown(f"**{tr('photo_n', n=number + 1)}**")
        st.markdown(tr("learned", tiles=", ".join(outcome.learned) or tr("none")))
        st.markdown(tr("still_unsure", tiles=", ".join(outcome.unsure) or tr("none")))
        if number < len(shown) and shown[number].image_bgr.shape[0] > 1:
            st.image(cv2.cvtColor(fit(annotated_after(shown[number].image_bgr, tiles), 1400), cv2.COLOR_BGR2RGB),
                     caption=tr("after_caption"))
    if result.get("tiles"):
        st.caption(tr("legend", sure=f"{unsure_below():.1f}"))


def _spec() -> None:
    """The layout's spec (`docs/spec/calibration-layout.md`), folded away."""
    try:
        text = SPEC.read_text(encoding="utf-8")
    except OSError:
        return
    with st.expander(tr("spec", file=SPEC.relative_to(REPO_ROOT).as_posix())):
        st.markdown(text)


def _versions() -> None:
    from .widgets import model_versions

    model_versions(_models_root(), PREFIX, expanded=True, on_change=_changed)


def _changed() -> None:
    """The version in use changed: the photo is read again, with it."""
    from appui import models as app_models

    app_models._load_detector.clear()
    st.session_state.pop(READ, None)


def render() -> None:
    st.title(t("page_teach"))
    st.caption(tr("intro"))
    _spec()
    bonus = st.selectbox(tr("bonus"), BONUS_CHOICES, key=PREFIX + "bonus", format_func=lambda c: tr(
        {"all": "bonus_all", "f1,f2,f3,f4": "bonus_f", "s1,s2,s3,s4": "bonus_s", "none": "bonus_none"}[c]))
    photos = _photo_inputs()
    if photos:
        detector, why = get_detector()
        if detector is None:
            st.error(tr("no_models", why=why))
        else:
            _photos(photos, bonus, detector)
    _watch()
    _show_result()
    _versions()


def _photos(photos: list[bytes], bonus: str, detector: Any) -> None:
    """Each photo read and shown; the "Learn" button for those that show the layout, once each is confirmed."""
    keys = [hashlib.sha1(image_bytes + bonus.encode()).hexdigest() for image_bytes in photos]
    reads: dict[str, TeachRead] = st.session_state.get(READ) or {}
    reads = {key: reads.get(key) or read_teach_photo(image_bytes, bonus, detector)
             for key, image_bytes in zip(keys, photos, strict=False)}
    st.session_state[READ] = reads
    if st.session_state.get(PHOTOS) != keys:  # other photos: the last result was not learned from these
        st.session_state[PHOTOS] = keys
        st.session_state.pop(RESULT, None)
    usable, confirmed, left_out = [], [], []
    for number, key in enumerate(keys):
        if len(keys) > 1:
            st.subheader(tr("photo_n", n=number + 1))
        reading, is_confirmed = _photo(number, key, detector)
        if reading is None:
            left_out.append(str(number + 1))
        else:
            usable.append((reads[key], reading))
            confirmed.append(is_confirmed)
    if not usable:
        return
    if left_out:
        st.warning(tr("left_out", which=", ".join(left_out)))
    if len(keys) > 1:
        st.caption(tr("learn_from", n=len(usable)))
    from .access import confirm_again

    if not confirm_again(PREFIX + "learn_code"):  # LAN mode: learning makes a new version in use for everyone
        return
    state = jobs.status(data_root(), LEARN_JOB)
    running = state is not None and state.running
    if state is not None and state.running and state.kind != LEARN_KIND:
        st.info(tr("other_running", since=_since(state)))
    if st.button(tr("learn"), type="primary", key=PREFIX + "learn", disabled=not all(confirmed) or running):
        _learn(usable)


def _photo(number: int, key: str, detector: Any) -> tuple[Any, bool]:
    """One photo's reading shown; it (or its one-of-each reading) when it shows the layout, else None; and
    whether it is confirmed (a one-of-each reading must be)."""
    read: TeachRead = st.session_state[READ][key]
    if read.error:
        st.error(tr("unreadable", why=read.error))
        return None, False
    reading = read.reading
    if not reading.ok:
        st.error(tr("problems"))
        for problem in reading.problems:
            st.markdown(f"- {problem}")
        if st.checkbox(tr("unordered"), key=widget_key("unordered", number), help=tr("unordered_help")):
            if read.unordered is None:
                read = replace(read, unordered=unordered_reading(read, detector))
                st.session_state[READ][key] = read
            reading = read.unordered
            if not reading.ok:
                for problem in reading.problems:
                    st.markdown(f"- {problem}")
    st.image(cv2.cvtColor(fit(annotated(read.image_bgr, reading), 1400), cv2.COLOR_BGR2RGB))
    st.caption(tr("legend", sure=f"{unsure_below():.1f}"))
    if not reading.ok:
        return None, False
    right = sum(tile.read_as == tile.expected for tile in reading.tiles)
    st.info(tr("all_placed", n=len(reading.tiles), right=right))
    confirmed = reading is read.reading or st.checkbox(tr("confirm"), key=widget_key("confirm", number))
    return reading, confirmed
