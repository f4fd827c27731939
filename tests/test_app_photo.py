"""Streamlit AppTest of the photo page: upload a generated scene, see its total, correct it, save it.

The scene is drawn with `appui.demo_scene` (procedural faces, laid out by `datasets.render`);
a `TruthDetector` put in session state stands in for the model and returns the scene's boxes,
so the page's reading, correction and scoring run for real without a trained model.
"""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import vision.read  # noqa: F401 - the pages import it lazily and show a message if they cannot: fail here instead
from appui.demo_scene import TruthDetector, demo_scene
from appui.models import DETECTOR_OVERRIDE_KEY
from scoring import parse_hand, score

APP = str(Path(__file__).resolve().parent.parent / "app.py")
HAND = "[123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=2"


@pytest.fixture(scope="module")
def scene():
    return demo_scene(parse_hand(HAND), seed=1)


def open_photo_page(detector=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if detector is not None:
        at.session_state[DETECTOR_OVERRIDE_KEY] = detector
    at.run()
    at.switch_page("appui/pages/photo.py").run()
    assert not at.exception, at.exception
    return at


def upload(at: AppTest, data: bytes, name: str = "scene.jpg") -> AppTest:
    at.file_uploader(key="photo.upload").upload(name, data, "image/jpeg").run()
    assert not at.exception, at.exception
    return at


def set_context(at: AppTest, self_drawn: bool, seat: str, prevalent: str) -> AppTest:
    """The three taps the total needs without a match: seat wind, prevalent wind, how it was won."""
    at.segmented_control(key="photo.seat").set_value(seat).run()
    at.segmented_control(key="photo.prevalent").set_value(prevalent).run()
    at.segmented_control(key="photo.won_by").set_value("self_drawn" if self_drawn else "discard").run()
    return at


def total_shown(at: AppTest) -> int:
    (metric,) = [m for m in at.metric if m.label == "Total"]
    return int(metric.value)


def doubt_lines(at: AppTest) -> list[str]:
    """What the reader doubts, as the page says it under the photo."""
    return [m.value for m in at.markdown if m.value.startswith(":orange-background[")]


def tile_buttons(at: AppTest) -> dict[int, str]:
    """Tile index -> class of the tiles the strip has a button for (its label names it in words)."""
    tiles = at.session_state["photo.photo"].reading.tiles
    return {int(b.key.rsplit(".", 1)[1]): tiles[int(b.key.rsplit(".", 1)[1])].cls
            for b in at.button if b.key and b.key.startswith("photo.tile.")}


def test_uploaded_scene_is_read_and_scored_then_a_correction_rescores(scene):
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    assert not at.error, [e.value for e in at.error]
    assert total_shown(at) == score(parse_hand(HAND)).total
    assert len(at.image) >= len(scene.tiles)  # one crop per tile
    assert [c.key for c in at.get("component_instance")] == ["photo.tap", "photo.zoom_tap"]  # the photo, its tiles zoomed

    # the E pung was really an S pung: fix its three tiles one by one
    for index in [i for i, cls in tile_buttons(at).items() if cls == "E"]:
        at.button(key=f"photo.tile.{index}").click().run()
        at.selectbox(key="photo.edit_face").set_value("S").run()
        at.button(key="photo.apply").click().run()
    corrected = HAND.replace("[EEE]", "[SSS]")
    assert total_shown(at) == score(parse_hand(corrected)).total != score(parse_hand(HAND)).total
    assert sorted(tile_buttons(at).values()).count("S") == 3


def test_mark_another_winning_tile_and_remove_and_add(scene):
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    tiles = tile_buttons(at)
    seven = next(i for i, cls in tiles.items() if cls == "7s")
    at.button(key=f"photo.tile.{seven}").click().run()
    before = total_shown(at)
    assert f"Total now: {before} fan" in [c.value for c in at.caption]  # the strip's editor, far below the total
    at.button(key="photo.mark_win").click().run()
    after = score(parse_hand("[123m] [EEE] (5555p) 89s11p +7s self-drawn seat=S prevalent=W flowers=2")).total
    (metric,) = [m for m in at.metric if m.label == "Total"]
    assert int(metric.value) == after and metric.delta == f"{after - before}"  # the change beside the new total

    at.button(key=f"photo.tile.{seven}").click().run()
    at.button(key="photo.remove").click().run()
    assert any("no winning tile" in w.value for w in at.warning), [w.value for w in at.warning]

    at.selectbox(key="photo.add_face").set_value("7s").run()
    at.selectbox(key="photo.add_group").set_value("win").run()
    at.button(key="photo.add").click().run()
    assert not at.exception
    assert total_shown(at) == score(parse_hand("[123m] [EEE] (5555p) 89s11p +7s self-drawn seat=S prevalent=W flowers=2")).total


def test_flags_change_the_photo_score_and_impossible_ones_are_disabled(scene):
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    set_context(at, self_drawn=False, seat="S", prevalent="W")
    on_discard = total_shown(at)
    assert on_discard == score(parse_hand(HAND.replace(" self-drawn", ""))).total
    assert at.checkbox(key="photo.robbing_kong").disabled is False
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    assert total_shown(at) != on_discard
    assert at.checkbox(key="photo.robbing_kong").disabled
    at.checkbox(key="photo.kong_replacement").check().run()  # the concealed kong allows it
    assert total_shown(at) == score(parse_hand(HAND + " kong-replacement")).total


def test_save_for_training_writes_the_corrected_labels_under_the_data_root(scene, tmp_path, monkeypatch):
    monkeypatch.setenv("MCR_DATA", str(tmp_path))
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    at.text_input(key="photo.save_dir").input("my-set").run()
    at.button(key="photo.save").click().run()
    assert any("Saved" in s.value for s in at.success), [e.value for e in at.error]
    (labels,) = (tmp_path / "my-set" / "labels").glob("*.txt")
    assert len(labels.read_text().splitlines()) == len(scene.tiles)
    assert len(list((tmp_path / "my-set" / "images").glob("*.jpg"))) == 1


@pytest.mark.parametrize("typed", ["../elsewhere", "/tmp/anywhere"])
def test_save_for_training_refuses_a_folder_outside_the_data_root(scene, tmp_path, monkeypatch, typed):
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    at.text_input(key="photo.save_dir").input(typed).run()
    at.button(key="photo.save").click().run()
    assert any("outside the data folder" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.success
    assert not (tmp_path / "elsewhere").exists() and not list(tmp_path.rglob("*.txt"))


def test_unreadable_image_gives_a_clear_message(scene):
    at = upload(open_photo_page(TruthDetector(scene)), b"this is not a picture", "broken.jpg")
    assert any("could not be read" in e.value for e in at.error), [e.value for e in at.error]


def test_no_model_gives_a_clear_message(scene, tmp_path, monkeypatch):
    monkeypatch.setattr("vision.settings.MODELS_DIR", tmp_path)
    at = upload(open_photo_page(), scene.jpeg())
    assert any("No tile detector" in e.value for e in at.error), [e.value for e in at.error]


class NothingDetector:
    def detect(self, image_bgr):
        from vision.detections import Detections

        return Detections.empty()


def test_a_photo_without_tiles_says_so(scene):
    at = upload(open_photo_page(NothingDetector()), scene.jpeg())
    assert any("No tiles" in w.value for w in at.warning)


class UnsureDetector(TruthDetector):
    """The truth, but one tile read with low confidence."""

    def __init__(self, scene, name: str):
        super().__init__(scene)
        self.name = name

    def detect(self, image_bgr):
        from vision.detections import Detections

        dets = super().detect(image_bgr)
        conf = dets.confidence.copy()
        conf[[i for i, name in enumerate(dets.class_names) if name == self.name]] = 0.2
        return Detections(dets.xyxy, conf, dets.class_id)


OUTSIDE = "23m789m123p789p99s +1m self-drawn seat=S prevalent=W flowers=4"  # won on 4m: no Outside Hand


@pytest.fixture(scope="module")
def outside_scene():
    return demo_scene(parse_hand(OUTSIDE), seed=2)


def test_doubts_are_shown_next_to_the_tiles_they_name_until_fixed(outside_scene):
    # an unsure 1m, the winning tile: a 4m would win too, with another total, so the tile is really in doubt
    at = upload(open_photo_page(UnsureDetector(outside_scene, "1m")), outside_scene.jpeg())
    doubts = doubt_lines(at)
    assert any("Check the 1 character 一万" in w and "(winning tile)" in w for w in doubts), doubts
    assert not any("(0.20)" in w or "at (" in w for w in doubts), doubts  # player words, not the reader's
    assert any(m.value == "**Check this tile, red on the photo**" for m in at.markdown), [m.value for m in at.markdown]
    check_buttons = [b for b in at.button if b.key and b.key.startswith("photo.check.")]
    assert [b.label for b in check_buttons] == ["1 · 1 Char"]  # numbered as on the photo, named in words
    in_doubt = [b.label for b in at.button if b.key and b.key.startswith("photo.tile.") and "in doubt" in b.help]
    assert in_doubt == ["1 Char"]
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    assert any("Rests on 1 tile(s) in doubt" in m.value for m in at.markdown), [m.value for m in at.markdown]
    before = total_shown(at)
    fixed = score(parse_hand(OUTSIDE.replace("+1m", "+4m"))).total
    said = f"as 4 characters 四万 the total is {fixed} ({fixed - before})"
    assert any(said in w for w in doubt_lines(at)), doubt_lines(at)  # which tile changes the total, and by how much

    check_buttons[0].click().run()  # opens the tile's editor under the photo, the faces it may be offered
    assert at.selectbox(key="photo.edit_face").value == "1m"
    fixes = [b.key for b in at.button if b.key and b.key.startswith("photo.fix.")]
    assert fixes == ["photo.fix.4m"], fixes
    at.button(key="photo.fix.4m").click().run()  # one tap: fixed, the editor closed, the doubt gone
    assert not at.exception, at.exception
    assert not any("characters" in w for w in doubt_lines(at)), doubt_lines(at)
    assert not [b for b in at.button if b.key and b.key.startswith("photo.check.")]
    assert not [b for b in at.button if b.key == "photo.apply"]
    (metric,) = [m for m in at.metric if m.label == "Total"]
    assert int(metric.value) == fixed and int(metric.delta) == fixed - before
    assert not any("Rests on" in m.value for m in at.markdown)


def test_a_doubt_whose_other_face_gives_the_same_total_is_folded_away(scene):
    # an unsure 9s, the winning tile of 78s: a 6s wins too, with the same fans, so it changes nothing
    at = upload(open_photo_page(UnsureDetector(scene, "9s")), scene.jpeg())
    assert not any("9 bamboo" in w for w in doubt_lines(at)), doubt_lines(at)
    assert any("the hand confirms" in e.label for e in at.expander), [e.label for e in at.expander]


def test_a_doubt_the_hand_settles_is_folded_away(scene):
    # an unsure 8s in 78s +9s: no other face there makes the hand win, so its shape confirms the 8s
    at = upload(open_photo_page(UnsureDetector(scene, "8s")), scene.jpeg())
    assert not any("8 bamboo" in w for w in doubt_lines(at)), doubt_lines(at)
    assert not [b for b in at.button if b.key and b.key.startswith("photo.issue.")]
    assert any("the hand confirms" in e.label for e in at.expander), [e.label for e in at.expander]
    assert any("8 bamboo" in c.value for c in at.caption)


def test_doubts_are_translated(outside_scene):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = UnsureDetector(outside_scene, "1m")
    at.session_state["lang"] = "zh"
    at.run()
    upload(at, outside_scene.jpeg())
    assert any("请检查" in w and "一万" in w and "四万" in w for w in doubt_lines(at)), doubt_lines(at)


class LeavesOutABox(TruthDetector):
    """The truth, and a box the detector left out as unlike the calibrated set."""

    def detect(self, image_bgr):
        from vision.detections import Detections

        dets = super().detect(image_bgr)
        return Detections(dets.xyxy, dets.confidence, dets.class_id, left_out=[[100.0, 40.0, 140.0, 96.0]])


@pytest.mark.parametrize("lang, said", [("en", "Left out 1 box(es) that look like none of your set's tiles, or like your table, at (120, 68)"),
                                        ("zh", "略去了 1 个不像你这套牌、或像你的桌面的框，位置 (120, 68)")])
def test_a_box_left_out_as_unlike_the_set_is_said_and_the_hand_still_scores(scene, lang, said):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = LeavesOutABox(scene)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page("appui/pages/photo.py").run()
    upload(at, scene.jpeg())
    shown = [w.value for w in at.warning] + [c.value for c in at.caption] + [m.value for m in at.markdown]
    assert any(said in text for text in shown), shown
    if lang == "en":
        set_context(at, True, "S", "W")
        assert total_shown(at) == score(parse_hand(HAND)).total


def test_chinese_labels_on_the_photo_page(scene):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = TruthDetector(scene)
    at.session_state["lang"] = "zh"
    at.run()
    at.switch_page("appui/pages/photo.py").run()
    upload(at, scene.jpeg())
    set_context(at, self_drawn=False, seat="E", prevalent="E")
    assert at.title[0].value == "拍照算番"
    assert {"手牌", "和牌张", "副露 1", "花牌"} <= {c.value for c in at.caption}
    assert [m.label for m in at.metric] == ["总番"]
    at.switch_page("appui/pages/live.py").run()  # widgets formatted in Chinese survive a page switch
    assert not at.exception


class BrokenDetector:
    def detect(self, image_bgr):
        raise RuntimeError("onnx session died")


def test_a_failing_detector_gives_a_message_not_a_traceback(scene):
    at = upload(open_photo_page(BrokenDetector()), scene.jpeg())
    assert any("onnx session died" in e.value for e in at.error), [e.value for e in at.error]


def test_a_photo_taken_with_the_camera_is_read_the_same_way(scene):
    at = open_photo_page(TruthDetector(scene))
    at.segmented_control(key="photo.source").set_value("camera").run()
    at.camera_input(key="photo.camera").upload("photo.jpg", scene.jpeg(), "image/jpeg").run()
    assert not at.exception, at.exception
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    assert total_shown(at) == score(parse_hand(HAND)).total


def test_moving_a_tile_to_another_group_rescores(scene):
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    before = total_shown(at)
    index = next(i for i, cls in tile_buttons(at).items() if cls == "E")
    at.button(key=f"photo.tile.{index}").click().run()
    group = at.selectbox(key="photo.edit_group").value
    at.selectbox(key="photo.edit_group").set_value("hand").run()
    at.button(key="photo.apply").click().run()
    assert any("has 2 tiles: a set has 3 (chow, pung) or 4 (kong)" in w.value for w in at.warning), [w.value for w in at.warning]
    assert not [m for m in at.metric if m.label == "Total"]
    at.button(key=f"photo.tile.{index}").click().run()  # the fix closed the editor: open it again
    at.selectbox(key="photo.edit_group").set_value(group).run()
    at.button(key="photo.apply").click().run()
    assert total_shown(at) == before


def test_a_new_photo_starts_from_the_context_the_page_shows(scene):
    """The stale-context bug: after a self-drawn, last-of-the-wall hand, the next photo showed a reset
    panel while the total still used the old flags; and the winds of the last photo were kept without
    a word (a photo with S/N, the next one E/W scored 10 for 11).  Now each photo asks all again: seat
    and prevalent wind, how it was won (no total before them), no special case ticked."""
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    assert not [m for m in at.metric if m.label == "Total"]  # asked before any total
    assert any("seat wind and the prevalent wind" in i.value for i in at.info), [i.value for i in at.info]
    at.segmented_control(key="photo.seat").set_value("S").run()
    at.segmented_control(key="photo.prevalent").set_value("W").run()
    assert not [m for m in at.metric if m.label == "Total"]
    assert any("How was it won" in i.value for i in at.info)
    at.segmented_control(key="photo.won_by").set_value("self_drawn").run()
    at.checkbox(key="photo.last_of_wall").check().run()
    first = total_shown(at)
    assert first == score(parse_hand(HAND + " last-of-wall")).total

    upload(at, scene.jpeg(quality=80), "next.jpg")  # the next photo (same tiles, other bytes)
    shown = {
        "won_by": at.segmented_control(key="photo.won_by").value,
        "last_of_wall": at.checkbox(key="photo.last_of_wall").value,
        "seat": at.segmented_control(key="photo.seat").value,
        "prevalent": at.segmented_control(key="photo.prevalent").value,
    }
    assert shown == {"won_by": None, "last_of_wall": False, "seat": None, "prevalent": None}
    assert not [m for m in at.metric if m.label == "Total"]  # no total from the old winds or flags

    set_context(at, self_drawn=False, seat="E", prevalent="W")
    on_discard = HAND.replace(" self-drawn", "").replace("seat=S", "seat=E")
    assert total_shown(at) == score(parse_hand(on_discard)).total
    assert at.segmented_control(key="photo.discarder").value is None  # asked, not guessed
    assert at.segmented_control(key="photo.discarder").options == ["S 南", "W 西", "N 北"]
    at.segmented_control(key="photo.discarder").set_value("S").run()
    assert not at.exception


def test_a_wrong_correction_says_which_tile_to_look_at(scene):
    at = upload(open_photo_page(TruthDetector(scene)), scene.jpeg())
    set_context(at, self_drawn=True, seat="S", prevalent="W")
    index = next(i for i, cls in tile_buttons(at).items() if cls == "8s")
    at.button(key=f"photo.tile.{index}").click().run()
    at.selectbox(key="photo.edit_face").set_value("5m").run()
    at.button(key="photo.apply").click().run()
    (error,) = [e.value for e in at.error]
    assert "do not make a winning hand" in error and "5 characters" in error, error
    assert "seat=" not in error and "+9s" not in error  # no notation dump
    hint = at.button(key=f"photo.hint.{index}")
    hint.click().run()
    assert at.selectbox(key="photo.edit_face").value == "5m"  # the editor opens on the tile to look at


def test_no_tiles_says_what_to_do(scene):
    at = upload(open_photo_page(NothingDetector()), scene.jpeg())
    assert any("from above" in w.value and "try again" in w.value for w in at.warning), [w.value for w in at.warning]


def test_tiles_counted_as_flowers_tell_the_player_to_remove_a_die_in_both_languages() -> None:
    from appui.i18n import t

    english, chinese = (t("issue_stray_as_flowers", language, names="3p") for language in ("en", "zh"))
    assert "3p" in english and "remove a die" in english
    assert "3p" in chinese and "骰子" in chinese


def test_every_reader_issue_has_a_sentence_in_both_languages_with_its_values_filled() -> None:
    """A new issue code without its page sentence would fall back to the reader's English in a Chinese page."""
    from appui.i18n import _LABELS
    from appui.photo import issue_text
    from vision.issues import IssueCode, ReaderIssue

    for code in IssueCode:
        assert f"issue_{code.value}" in _LABELS, code
    said = ReaderIssue(IssueCode.BACK_AS_FLOWER, (3,), {"name": "back", "x": 10.0, "y": 20.0, "conf": 0.6,
                                                        "read_as": "f2"})
    english, chinese = (issue_text(said, language) for language in ("en", "zh"))
    assert english != str(said) and "{" not in english and "check it" in english
    assert "{" not in chinese and "请检查" in chinese
