"""The photo page with the shipped models (skipped when models/ holds none): a rendered scene of a
freely licensed tile set is read by the real detector and the page scores or explains, never crashes."""

import random
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from vision.settings import MODELS_DIR

if not (MODELS_DIR / "detector.onnx").exists():
    pytest.skip(f"no shipped model in {MODELS_DIR} (detector.onnx): the vision helper trains it", allow_module_level=True)
SHARED_ART = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "art"
if not SHARED_ART.is_dir():
    pytest.skip(f"no tile artwork at {SHARED_ART} to render a scene the model can read", allow_module_level=True)

from appui.demo_scene import DemoScene  # noqa: E402
from datasets.art import load_art  # noqa: E402
from datasets.render import render_scene  # noqa: E402
from scoring import parse_hand, score  # noqa: E402

APP = str(Path(__file__).resolve().parent.parent / "app.py")
HAND = "[123m] [EEE] 456p 78s 11s +9s flowers=1"


@pytest.fixture(scope="module")
def scene():
    art = next(a for a in load_art(SHARED_ART) if a.name == "gl-mahjongtile")  # Unlicense artwork, flowers borrowed
    image, tiles = render_scene(parse_hand(HAND), art, random.Random(3), 1600, 1200)
    return DemoScene(image, parse_hand(HAND), tuple(tiles))


@pytest.mark.slow
def test_real_model_reads_a_rendered_scene_on_the_photo_page(scene):
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("appui/pages/photo.py").run()
    at.file_uploader(key="photo.upload").upload("scene.jpg", scene.jpeg(), "image/jpeg").run()
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if c.value.startswith("Tiles found"))
    found = int(caption.split(": ")[1].split(" ")[0])
    assert found >= 0.8 * len(scene.tiles), (found, len(scene.tiles))
    for key, value in (("photo.seat", "E"), ("photo.prevalent", "E"), ("photo.won_by", "discard")):
        at.segmented_control(key=key).set_value(value).run()  # asked before any total
    totals = [int(m.value) for m in at.metric if m.label == "Total"]
    cannot = [w.value for w in at.warning if "Cannot score" in w.value]
    not_winning = [e.value for e in at.error if "do not make a winning hand" in e.value]
    assert totals or cannot or not_winning
    if totals and not [m for m in at.markdown if m.value.startswith(":orange-background[")]:  # no doubt
        assert totals[0] == score(parse_hand(HAND)).total
