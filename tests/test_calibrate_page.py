"""AppTest of the "Teach my tiles" page: the layout read from a photo, its problems, the one-of-each
fallback, and the versions with switch and back (a stand-in detector answers fixed tiles)."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import vision.settings
from appui.models import DETECTOR_OVERRIDE_KEY
from datasets.scene import plan_calibration
from tileset.calibration import calibration_rows
from tileset.classes import CLASS_ID
from vision.detections import Detections
from vision.registry import Registry

APP = str(Path(__file__).resolve().parent.parent / "app.py")


class FixedTiles:
    """Answers the same tiles for any photo."""

    def __init__(self, names: list[str], boxes: np.ndarray) -> None:
        self.dets = Detections.from_lists(boxes, [0.9] * len(names), [CLASS_ID[n] for n in names])

    def detect(self, image_bgr: np.ndarray) -> Detections:
        return self.dets


def layout(drop: str = "") -> FixedTiles:
    plan = plan_calibration(calibration_rows(), random.Random(4), 1600, 1200)
    tiles = [t for t in plan.tiles if t.cls != drop]
    return FixedTiles([t.cls for t in tiles], np.array([t.xyxy for t in tiles], np.float32))


def grid() -> FixedTiles:
    """All 42 faces, in 6 rows of 7: no calibration layout, but one of each."""
    names = [n for row in calibration_rows() for n in row]
    random.Random(0).shuffle(names)
    boxes = np.array([[100 + (k % 7) * 70, 100 + (k // 7) * 100, 160 + (k % 7) * 70, 185 + (k // 7) * 100]
                      for k in range(len(names))], np.float32)
    return FixedTiles(names, boxes)


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(vision.settings, "MODELS_DIR", tmp_path)
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    version = Registry(tmp_path).new_version_dir("calibrated")
    (version / "card.json").write_text('{"metrics": {"read_accuracy": 1.0}, "evaluated_on": "1 calibration photo"}')
    return tmp_path


def open_page(detector) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = detector
    at.run()
    at.switch_page("appui/pages/teach.py").run()
    assert not at.exception, at.exception
    _ok, jpeg = cv2.imencode(".jpg", np.full((1200, 1600, 3), 120, np.uint8))
    at.file_uploader(key="teach.upload").upload("layout.jpg", jpeg.tobytes(), "image/jpeg").run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    return " ".join([e.value for e in at.error] + [m.value for m in at.markdown] + [i.value for i in at.info])


def test_a_complete_layout_can_be_learned(models: Path) -> None:
    at = open_page(layout())
    assert len(list((models / "data" / "teach").glob("*.jpg"))) == 1, "the photo is kept under the data folder"
    assert "All 42 tiles found in their places: 42 read right" in texts(at)
    assert not at.button(key="teach.learn").disabled


def test_a_missing_tile_is_named_and_nothing_can_be_learned(models: Path) -> None:
    at = open_page(layout(drop="6s"))
    shown = texts(at)
    assert "does not show the layout" in shown and "place 6 (6s) missing" in shown
    assert not [b for b in at.button if b.key == "teach.learn"]


def test_one_of_each_in_no_order_is_offered_and_must_be_confirmed(models: Path) -> None:
    at = open_page(grid())
    assert "does not show the layout" in texts(at)
    at.checkbox(key="teach.unordered").check().run()
    assert not at.exception, at.exception
    assert "All 42 tiles found in their places: 42 read right" in texts(at)
    assert at.button(key="teach.learn").disabled
    at.checkbox(key="teach.confirm").check().run()
    assert not at.button(key="teach.learn").disabled


class ByPhoto:
    """Answers the tiles of the layout for a photo whose top-left pixel is bright, one tile short otherwise."""

    def __init__(self) -> None:
        self.whole, self.short = layout(), layout(drop="6s")

    def detect(self, image_bgr: np.ndarray) -> Detections:
        return (self.whole if image_bgr[0, 0].mean() > 128 else self.short).detect(image_bgr)


def jpeg_of(grey: int) -> bytes:
    _ok, jpeg = cv2.imencode(".jpg", np.full((1200, 1600, 3), grey, np.uint8))
    return jpeg.tobytes()


def test_several_photos_are_read_each_and_only_those_showing_the_layout_are_learned(models: Path,
                                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import appui.teach

    at = open_page(ByPhoto())
    kept_before = len(list((models / "data" / "teach").glob("*.jpg")))
    photos = [("a.jpg", jpeg_of(200), "image/jpeg"), ("b.jpg", jpeg_of(60), "image/jpeg"),
              ("a-again.jpg", jpeg_of(200), "image/jpeg")]
    at.file_uploader(key="teach.upload").set_value(photos).run()
    assert not at.exception, at.exception
    assert [s.value for s in at.subheader] == ["Photo 1", "Photo 2"], "the same photo twice is read once"
    shown = texts(at)
    assert "All 42 tiles found in their places" in shown and "place 6 (6s) missing" in shown
    assert "photo(s) 2, which do not show the layout" in " ".join(w.value for w in at.warning)
    assert len(list((models / "data" / "teach").glob("*.jpg"))) == kept_before + 2
    commands = []

    def learn(photos) -> None:
        commands.append(appui.teach.learn_command(photos, models))

    monkeypatch.setattr(appui.teach, "_learn", learn)
    at.button(key="teach.learn").click().run()
    assert not at.exception, at.exception
    (command,) = commands
    assert sum(arg.endswith(".jpg") for arg in command) == 1, "only the photo that shows the layout"


def test_camera_shots_are_kept_one_by_one_and_start_over_clears_them(models: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = layout()
    at.run()
    at.switch_page("appui/pages/teach.py").run()
    at.segmented_control(key="teach.source").set_value("camera").run()
    at.camera_input(key="teach.camera").set_value(("shot.jpg", jpeg_of(150), "image/jpeg")).run()
    assert not at.exception, at.exception
    assert not at.subheader, "one photo: no numbering"
    at.button(key="teach.keep").click().run()
    at.camera_input(key="teach.camera").set_value(("shot.jpg", jpeg_of(90), "image/jpeg")).run()
    assert not at.exception, at.exception
    assert [s.value for s in at.subheader] == ["Photo 1", "Photo 2"]
    assert "Learning uses 2 photo(s)." in [c.value for c in at.caption]
    at.button(key="teach.start_over").click().run()
    assert [s.value for s in at.subheader] == [], "only the camera's own photo is left"


def test_more_than_three_photos_use_the_first_three(models: Path) -> None:
    at = open_page(layout())
    at.file_uploader(key="teach.upload").set_value(
        [(f"{k}.jpg", jpeg_of(100 + k), "image/jpeg") for k in range(4)]).run()
    assert not at.exception, at.exception
    assert [s.value for s in at.subheader] == ["Photo 1", "Photo 2", "Photo 3"]
    assert "Only the first 3 photos are used." in [w.value for w in at.warning]


def test_versions_switch_and_back(models: Path) -> None:
    at = open_page(layout())
    (name,) = [v.name for v in Registry(models).versions() if v.name != "shipped"]
    at.selectbox(key="teach.version").set_value(name).run()
    at.button(key="teach.use").click().run()
    assert Registry(models).active_name() == name
    assert [s.value for s in at.success] == [f"Now using {name}."]
    at.button(key="teach.goback").click().run()
    assert not at.exception, at.exception
    assert Registry(models).active_name() == "shipped"


def test_lan_mode_asks_the_code_again_to_learn_or_switch(models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from appui.access import GRANTED_KEY

    monkeypatch.setenv("MCR_LAN", "1")
    monkeypatch.setenv("MCR_ACCESS_CODE", "731904")
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = layout()
    at.session_state[GRANTED_KEY] = True  # signed in: the page opens, its changes for everyone still ask again
    at.run()
    at.switch_page("appui/pages/teach.py").run()
    _ok, jpeg = cv2.imencode(".jpg", np.full((1200, 1600, 3), 120, np.uint8))
    at.file_uploader(key="teach.upload").upload("layout.jpg", jpeg.tobytes(), "image/jpeg").run()
    assert not at.exception, at.exception
    assert not [b for b in at.button if b.key in ("teach.learn", "teach.use", "teach.goback")]
    at.text_input(key="teach.learn_code").input("000000").run()
    assert not [b for b in at.button if b.key == "teach.learn"]
    at.text_input(key="teach.learn_code").input("731904").run()
    at.text_input(key="teach.model_code").input("731904").run()
    assert {b.key for b in at.button} >= {"teach.learn", "teach.use", "teach.goback"}


def stand_in_calibrate(tmp_path: Path, seconds: float) -> tuple[list[str], Path]:
    """A stand-in for `python -m vision calibrate`: notes each start in a file, says its step, waits, answers."""
    import json
    import sys

    starts = tmp_path / "starts.txt"
    script = tmp_path / "calibrate.py"
    answer = {"version": "club-1", "promoted": True, "seconds": seconds, "before": {"read_accuracy": 0.5},
              "after": {"read_accuracy": 1.0}}
    script.write_text("import sys, time\n"
                      f"open({str(starts)!r}, 'a').write('start\\n')\n"
                      "print('[calibrate 2/5] learning the faces', file=sys.stderr, flush=True)\n"
                      f"time.sleep({seconds})\n"
                      f"print({json.dumps(json.dumps(answer))})\n")
    return [sys.executable, str(script)], starts


def test_learn_this_set_runs_once_for_two_clicks_or_two_tabs(models: Path, tmp_path: Path) -> None:
    """Learning is running (the first click, or another tab, started it: `appui.jobs.start` is what the
    button calls); a click here is told so and shows that run's result; the stand-in was started once."""
    from appui import jobs
    from appui.dataroot import data_root

    command, starts = stand_in_calibrate(tmp_path, 2.0)
    tab = open_page(layout())
    tab.session_state["teach.learn_command"] = command
    jobs.start(data_root(), "learn", "calibrate", command)
    tab.button(key="teach.learn").click().run(timeout=60)
    assert not tab.exception, tab.exception
    assert starts.read_text() == "start\n", "one learning run"
    assert any(i.value.startswith("Learning was already running when asked here (started at ") for i in tab.info)
    assert "Learned: version club-1 is now in use (2 s)." in [s.value for s in tab.success]
    assert not tab.button(key="teach.learn").disabled, "ended: the button is back"
    tab.button(key="teach.learn").click().run(timeout=60)
    assert starts.read_text() == "start\nstart\n", "a click after the end learns again"
    assert not [i for i in tab.info if "already running" in i.value], "this run was started here"
    assert "Learned: version club-1 is now in use (2 s)." in [s.value for s in tab.success]


def test_after_learning_the_page_lists_the_tiles_learned_and_those_still_unsure(models: Path, tmp_path: Path) -> None:
    """The result's tiles (`training.calibrate.tile_readings`): those read wrong before and right now are listed as
    learned, those read unsure (under the reader's `low_confidence`) or wrong as still unsure; the photo is shown
    again boxed as the new version reads it, and the boxes' colours have a legend, before and after."""
    import json
    import sys

    def tile(place: int, expected: str, before: str, after: str, confidence: float) -> dict:
        x = 100 + 70 * place
        return {"row": 1, "place": place, "expected": expected, "before": before, "before_confidence": 0.6,
                "after": after, "after_confidence": confidence, "xyxy": [x, 100, x + 60, 185]}

    answer = {"version": "club-2", "promoted": True, "seconds": 40.0, "before": {"read_accuracy": 0.5},
              "after": {"read_accuracy": 0.9},
              "tiles": [[tile(1, "1m", "7m", "1m", 0.97), tile(2, "2m", "2m", "2m", 0.31), tile(3, "3m", "3m", "5m", 0.8),
                         tile(4, "4m", "4m", "4m", 0.99)]]}
    script = tmp_path / "calibrate.py"
    script.write_text(f"print({json.dumps(json.dumps(answer))})\n")
    at = open_page(layout())
    assert any(c.value.startswith("Boxes: green, read as its place's face; orange, so but unsure (confidence under 0.5)")
               for c in at.caption), "the legend under the photo as read before learning"
    at.session_state["teach.learn_command"] = [sys.executable, str(script)]
    read_before = dict(at.session_state["teach.read"])
    at.button(key="teach.learn").click().run(timeout=60)
    assert not at.exception, at.exception
    assert "Learned: version club-2 is now in use (40 s)." in [s.value for s in at.success]
    assert all(at.session_state["teach.read"][key] is not read for key, read in read_before.items()), (
        "promoted: the photo is read again by the version now in use (its boxes no longer as before)")
    said = [m.value for m in at.markdown]
    assert "Learned (read wrong before, right now): 1.1 1m (was 7m)" in said
    assert "Still unsure or wrong: 1.2 2m (0.31), 1.3 3m (read as 5m)" in said
    assert [i for i in at.get("image") if "Read by the new version" in i.captions], "the photo as the new version reads it"
    assert sum(c.value.startswith("Boxes: green") for c in at.caption) == 2, "a legend before and after"


def test_the_box_colours_and_the_tiles_learned() -> None:
    from appui.teach import RIGHT, UNSURE, WRONG, box_colour, tile_outcome

    assert box_colour("1m", "1m", 0.9) == RIGHT and box_colour("1m", "1m", 0.2) == UNSURE
    assert box_colour("1m", "2m", 0.99) == WRONG and box_colour("1m", "none", 0.0) == WRONG
    outcome = tile_outcome([{"row": 2, "place": 5, "expected": "5p", "before": "none", "before_confidence": 0.0,
                             "after": "5p", "after_confidence": 0.95, "xyxy": [0, 0, 1, 1]}])
    assert outcome.learned == ("2.5 5p (was none)",) and outcome.unsure == ()
