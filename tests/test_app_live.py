"""The live page's frame loop and analysis (appui.live_loop), and the page itself under AppTest."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import vision.read  # noqa: F401 - the pages import it lazily and show a message if they cannot: fail here instead
from appui.demo_scene import TruthDetector, demo_scene
from appui.live_loop import LiveLoop, analyse, reading_key
from appui.settings import AppSettings, LiveSettings
from scoring import WinContext, parse_hand, score
from scoring.tiles import Tile
from scoring.waits import waits
from tileset.classes import CLASS_NAMES
from tileset.groups import GROUPS

SCATTER_GROUPS = GROUPS + tuple(f"meld{k}" for k in range(4, 10))
THREE_OF_FIVE = LiveSettings(fuse_window=5, sure_readings=3, stable_readings=3)

HAND = "[123m] [EEE] (5555p) 78s11p +9s flowers=2"


@pytest.fixture(scope="module")
def scene():
    return demo_scene(parse_hand(HAND), seed=1, width=640, height=480)


class CountingDetector(TruthDetector):
    calls = 0

    def detect(self, image_bgr):
        CountingDetector.calls += 1
        return super().detect(image_bgr)


def test_loop_detects_one_frame_in_n_and_boxes_every_frame(scene):
    detector = CountingDetector(scene)
    loop = LiveLoop(detector, AppSettings(live_detect_every=3), live=THREE_OF_FIVE)
    frames = [loop.process(scene.image_bgr) for _ in range(7)]
    snap = loop.snapshot()
    assert CountingDetector.calls == 3  # frames 0, 3, 6
    assert (snap.frames, snap.detections_run, len(snap.tiles)) == (7, 3, len(scene.tiles))
    assert all(f.shape == scene.image_bgr.shape for f in frames)
    assert all(np.abs(f.astype(int) - scene.image_bgr).sum() > 0 for f in frames)  # boxes drawn on each
    assert snap.fps > 0 and snap.error is None


class SlowDetector(TruthDetector):
    """The truth, after a pause, remembering which threads called it."""

    def __init__(self, scene, pause_s):
        super().__init__(scene)
        self.pause_s, self.threads = pause_s, set()

    def detect(self, image_bgr):
        import threading
        import time

        self.threads.add(threading.current_thread().name)
        time.sleep(self.pause_s)
        return super().detect(image_bgr)


def test_background_reader_keeps_the_video_from_waiting(scene):
    import time

    detector = SlowDetector(scene, pause_s=0.3)
    loop = LiveLoop(detector, background=True)
    try:
        started = time.perf_counter()
        first = loop.process(scene.image_bgr)
        assert time.perf_counter() - started < 0.2  # the frame did not wait for the 0.3 s detector
        assert len(loop.snapshot().tiles) == 0 and first.shape == scene.image_bgr.shape
        frames = 1
        while not loop.snapshot().tiles and frames < 200:  # readings must agree before the panel gets one
            loop.process(scene.image_bgr)
            frames += 1
            time.sleep(0.02)
        snap = loop.snapshot()
        assert len(snap.tiles) == len(scene.tiles) and snap.frames == frames
        assert snap.detections_run < snap.frames  # frames arriving while it read were skipped
        assert detector.threads == {"live-reader"}
    finally:
        loop.close()
    assert loop._worker is not None and not loop._worker.is_alive()


def test_loop_maps_boxes_back_from_the_shrunk_frame(scene):
    big = np.repeat(np.repeat(scene.image_bgr, 2, axis=0), 2, axis=1)  # 1280x960
    loop = LiveLoop(TruthDetector(scene), AppSettings(live_max_side=640, live_detect_every=1))
    for _ in range(3):  # three agreeing readings
        loop.process(big)
    got = sorted(tuple(round(v) for v in t["xyxy"]) for t in loop.snapshot().tiles)
    want = sorted(tuple(round(v * 2) for v in t.xyxy) for t in scene.tiles)
    assert np.allclose(got, want, atol=2)


def test_a_failing_detector_is_reported_not_raised(scene):
    class Broken:
        def detect(self, image_bgr):
            raise RuntimeError("model exploded")

    loop = LiveLoop(Broken())
    out = loop.process(scene.image_bgr)
    assert out.shape == scene.image_bgr.shape
    assert "model exploded" in loop.snapshot().error


def read_tiles(scene):
    loop = LiveLoop(TruthDetector(scene), AppSettings(live_detect_every=1))
    for _ in range(3):  # three agreeing readings
        loop.process(scene.image_bgr)
    return list(loop.snapshot().tiles)


def test_complete_hand_in_view_is_scored_only_with_a_context(scene):
    key = reading_key(read_tiles(scene))
    unknown = analyse(key, None)
    assert unknown.kind == "finished" and unknown.score is None and unknown.hand is not None
    analysis = analyse(key, WinContext())
    assert analysis.kind == "finished" and not analysis.win_guessed
    assert analysis.score.total == score(parse_hand(HAND)).total
    drawn = analyse(key, WinContext(self_drawn=True))
    assert drawn.score.total == score(parse_hand(HAND + " self-drawn")).total


def test_ready_hand_in_view_shows_its_waits_and_the_copies_unseen(scene):
    tiles = [t for t in read_tiles(scene) if t["group"] != "win"]  # the 9s taken away: 78s waits on 6s and 9s
    analysis = analyse(reading_key(tiles), WinContext())
    assert analysis.kind == "ready" and analysis.shanten == 0
    assert [w.wait.tile.name for w in analysis.waits] == ["6s", "9s"]
    assert [w.unseen for w in analysis.waits] == [4, 4]
    hand = parse_hand(HAND)
    expected = waits(hand.melds, hand.concealed, WinContext(flowers=2))
    assert [w.wait.discard.total for w in analysis.waits] == [w.discard.total for w in expected]
    on_table = [*tiles, {"cls": "9s", "xyxy": [600.0, 10.0, 630.0, 50.0], "group": "unplaced"}]  # a 9s discarded
    assert [w.unseen for w in analyse(reading_key(on_table), WinContext()).waits] == [4, 3]


def key_of(text, group="hand"):
    from scoring.notation import parse_tiles

    return tuple((str(tile), group) for tile in parse_tiles(text))


def test_a_standing_hand_of_any_size_gets_its_shanten_never_a_layout_error():
    nine = analyse(key_of("123m456p78sE"), WinContext())
    assert nine.kind == "standing" and nine.shanten is not None and nine.message == ""
    assert analyse(key_of("147m258p369s"), None).shanten == 1  # a knitted straight, its pair to come
    eleven = analyse(key_of("123m456p78sEWN"), None)  # 11 tiles: discards
    assert eleven.kind == "standing" and eleven.discards and eleven.discards[0].shanten == eleven.shanten
    assert {d.tile.name for d in eleven.discards} == {"1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "E", "W", "N"}
    assert {d.tile.name for d in eleven.discards if d.shanten == 1} == {"E", "W", "N"}
    ten = analyse(key_of("123m456p78s9sE"), None)
    assert ten.kind == "standing" and ten.draws and not ten.discards
    too_many = analyse(key_of("123m456p789s11p22p33p"), None)
    assert too_many.message == "too_many" and too_many.counted == 15


def test_thirteen_standing_tiles_with_the_rightmost_set_apart_are_a_waiting_hand():
    """The reader may set the rightmost standing tile apart as the winning tile: 13 tiles still wait."""
    key = (*key_of("123m456p789s1mEE"), ("S", "win"))
    analysis = analyse(key, None)
    assert analysis.kind == "standing" and analysis.shanten == 1 and not analysis.waits
    ready = analyse((*key_of("123m456p789s1mEE"), ("E", "win")), None)
    assert ready.kind == "ready" and [w.wait.tile.name for w in ready.waits] == ["1m", "4m"]


def test_scattered_tiles_in_meld_groups_are_no_melds():
    broken = (*key_of("23m", "meld0"), ("9m", "meld0"), *key_of("123p456p789sEE"))
    analysis = analyse(broken, None)
    assert analysis.kind == "standing" and analysis.melds == () and len(analysis.standing) == 14


def test_a_fifth_copy_is_a_clear_message():
    analysis = analyse(key_of("11111m"), None)
    assert analysis.kind == "invalid" and "1m" in analysis.message


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(CLASS_NAMES), st.sampled_from(SCATTER_GROUPS)), max_size=20))
def test_any_reading_in_any_groups_is_analysed_without_an_error(pairs):
    """Scattered tiles: up to ten meld groups, flowers, backs anywhere."""
    tiles = [{"cls": cls, "xyxy": [40.0 * i, 0.0, 40.0 * i + 30, 40.0], "group": group} for i, (cls, group) in enumerate(pairs)]
    for context in (None, WinContext()):
        analysis = analyse(reading_key(tiles), context)
        assert analysis.kind in ("empty", "standing", "ready", "finished", "invalid")


def test_reading_key_ignores_box_jitter(scene):
    tiles = read_tiles(scene)
    moved = [dict(t, xyxy=[v + 1.5 for v in t["xyxy"]]) for t in tiles]
    assert reading_key(tiles) == reading_key(moved)


def test_live_page_without_a_model_says_so(tmp_path, monkeypatch):
    """(The WebRTC component itself needs a real server: tests/test_app_browser.py covers it.)"""
    monkeypatch.setattr("vision.settings.MODELS_DIR", tmp_path)
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60).run()
    at.switch_page("appui/pages/live.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Live table"
    assert any("No tile detector" in e.value for e in at.error), [e.value for e in at.error]


def test_main_fans_name_the_biggest_fans_first():
    from appui.widgets import main_fans

    result = score(parse_hand("[123m] [EEE] 456p 78s 11s +9s seat=S prevalent=W"))
    assert main_fans(result, zh=False) == "Mixed Straight, Pung of Terminals or Honors"
    assert main_fans(result, zh=True, limit=1) == "花龙"
    assert main_fans(None, zh=False) == ""


def _reading_panel(tiles, state=None, issues=()):
    import streamlit as st

    from appui.live import Winds, show_reading
    from appui.live_loop import LiveSnapshot

    for name, value in (state or {}).items():
        st.session_state.setdefault(name, value)  # given once: the page's own changes stand on later runs
    snap = LiveSnapshot(tiles=tuple(tiles), issues=tuple(issues), fps=14.5, frames=30, detections_run=10,
                        readings_per_s=3.0, analysed_per_s=14.0, readings=5, fused=5, sure=True, settled=True,
                        seen_at=0.0)
    show_reading(snap, Winds("S", "E"))


def panel(tiles, state=None, issues=()):
    at = AppTest.from_function(_reading_panel, args=(tiles, state, issues), default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def test_reading_panel_lists_the_waits_of_13_tiles_with_their_scores(scene):
    tiles = [t for t in read_tiles(scene) if t["group"] != "win"]
    at = panel(tiles)
    assert [m.value for m in at.metric] == ["Ready"]
    rows = at.table[0].value.to_dict("records")
    hand = parse_hand(HAND)
    expected = waits(hand.melds, hand.concealed, WinContext(seat_wind=Tile.parse("S"), flowers=2))
    assert [r["Tile"] for r in rows] == ["六条 6s", "九条 9s"]
    assert [int(r["Unseen"]) for r in rows] == [4, 4]
    assert [int(r["On a discard"]) for r in rows] == [w.discard.total for w in expected]
    assert [int(r["Self-drawn"]) for r in rows] == [w.self_drawn.total for w in expected]
    assert any("14.0 frames/s" in c.value for c in at.caption)


def row_of(text):
    """Standing tiles in a row, as the reader gives them."""
    return [{"cls": cls, "xyxy": [45.0 * i, 100.0, 45.0 * i + 40, 160.0], "group": group}
            for i, (cls, group) in enumerate(key_of(text))]


def test_reading_panel_of_nine_tiles_shows_the_shanten_and_no_layout_error():
    at = panel(row_of("123m456p7sEW"))
    assert [(m.label, m.value) for m in at.metric] == [("From ready", "2")]
    assert not at.error and not at.warning
    shown = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    for layout_error in ("the group", "winning tile", "not a chow", "meld 1", "tiles plus"):
        assert layout_error not in shown.lower(), shown


def test_a_finished_hand_shows_no_total_until_won_by_is_answered(scene):
    tiles = read_tiles(scene)
    at = panel(tiles)
    assert not at.metric  # no total from a guess
    assert any("How was it won" in i.value for i in at.info)
    at = panel(tiles, {"live.won_by": "self_drawn", "live.finished_seen": reading_key(tiles)})
    expected = score(parse_hand(HAND + " self-drawn seat=S")).total
    assert [m.value for m in at.metric] == [str(expected)]


def _unread(readings):
    from appui.live import Winds, show_reading
    from appui.live_loop import LiveSnapshot

    show_reading(LiveSnapshot(readings=readings), Winds("E", "E"))


def test_a_new_view_says_it_is_reading_and_only_a_read_one_says_no_tiles():
    at = AppTest.from_function(_unread, args=(0,), default_timeout=60).run()
    assert not at.exception and "Reading the tiles in view…" in texts(at) and "No tiles" not in texts(at)
    read = AppTest.from_function(_unread, args=(2,), default_timeout=60).run()
    assert "No tiles in view." in texts(read)


@pytest.mark.parametrize("groups", [5, 6, 8, 11])
def test_reading_key_takes_any_number_of_meld_groups(groups):
    """Scattered tiles make the reader form meld4, meld5...: the key orders them without an error."""
    tiles = [{"cls": "3p", "xyxy": [50.0 * k, 0.0, 50.0 * k + 40, 56.0], "group": f"meld{k}"} for k in reversed(range(groups))]
    tiles.append({"cls": "E", "xyxy": [0.0, 100.0, 40.0, 156.0], "group": "hand"})
    key = reading_key(tiles)
    assert [g for _, g in key] == ["hand"] + [f"meld{k}" for k in range(groups)]
    assert reading_key(list(reversed(tiles))) == key


# --- a steady reading: votes, a changed view, a still view, hold -----------------------------


class SequenceDetector:
    """Answers the given scenes' boxes in turn (the last one for ever after), counting its calls."""

    def __init__(self, *scenes):
        self.scenes, self.calls = list(scenes), 0

    def detect(self, image_bgr):
        scene = self.scenes[min(self.calls, len(self.scenes) - 1)]
        self.calls += 1
        return TruthDetector(scene).detect(image_bgr)


@pytest.fixture(scope="module")
def other_scene():
    return demo_scene(parse_hand("[789p] 123m456s99sEE +E"), seed=4, width=640, height=480)


def box_pixels(frame, scene_image):
    """Pixels the loop changed outside its banner (the top-left text strip): the boxes it drew."""
    changed = np.abs(frame.astype(int) - scene_image).sum(axis=2) > 0
    changed[:40, :] = False
    return int(changed.sum())


class FlakyDetector(TruthDetector):
    """The scene's boxes as a webcam's frames give them: call n leaves out the tiles `missing(n)` names and
    reads tile `misread[0]` as `misread[1]` on the calls in `misread[2]`."""

    def __init__(self, scene, missing, misread=None):
        super().__init__(scene)
        self.missing, self.misread, self.calls = missing, misread, 0

    def detect(self, image_bgr):
        from tileset.classes import CLASS_ID

        boxes = super().detect(image_bgr)
        n, self.calls = self.calls, self.calls + 1
        if self.misread is not None and n in self.misread[2]:
            boxes = boxes.with_class(self.misread[0], CLASS_ID[self.misread[1]])
        keep = np.array([i not in self.missing(n) for i in range(len(boxes))])
        return boxes[keep]


def test_a_still_view_is_read_until_sure_and_its_frames_fused(scene):
    """Each frame misses two tiles of a still view and three frames read its 9s as a 6s: the panel
    gets the first frame's reading at once, then the frames fused: every tile (more than any frame saw),
    the 9s as most frames read it with the 6s as what it may be; the view is read on while the frames
    disagree, and no more once they agree."""
    count = len(scene.tiles)
    nine = next(i for i, t in enumerate(scene.tiles) if t.cls == "9s")
    others = [i for i in range(count) if i != nine]
    detector = FlakyDetector(scene, lambda n: {others[n % len(others)], others[(n + 5) % len(others)]},
                             (nine, "6s", {1, 4, 7}))
    loop = LiveLoop(detector, AppSettings(live_detect_every=1), live=LiveSettings(unsure_every_s=0.0))
    loop.process(scene.image_bgr)
    first = loop.snapshot()
    assert len(first.tiles) == count - 2 and not first.sure and not first.settled and first.shown_at is not None
    for _ in range(5):
        loop.process(scene.image_bgr)
    fused = loop.snapshot()
    assert len(fused.tiles) == count and fused.fused == 6 and not fused.sure  # every tile, though each frame missed two
    (nine_read,) = [t for t in fused.tiles if t["votes"][0][0] == "9s" or t["cls"] == "9s"]
    assert nine_read["cls"] == "9s" and nine_read["votes"] == [["9s", 4], ["6s", 2]] and nine_read["alternatives"] == ["6s"]
    frames = 6
    while not loop.snapshot().settled and frames < 40:
        loop.process(scene.image_bgr)
        frames += 1
    assert detector.calls == frames > 12  # read on while the misread frames are among the fused ones
    settled = loop.snapshot()
    assert settled.sure and settled.settled and reading_key(settled.tiles) == reading_key(read_tiles(scene))
    for _ in range(5):
        loop.process(scene.image_bgr)
    assert detector.calls == frames and loop.snapshot().still  # settled: the still view is not read again


def test_a_still_view_never_sure_is_read_at_most_so_many_times(scene):
    """Nine tiles of a hand, fewer than a hand's shape needs: never sure, read `unsure_max_readings` times."""
    detector = FlakyDetector(scene, lambda n: set(range(9, len(scene.tiles))))
    loop = LiveLoop(detector, AppSettings(live_detect_every=1), live=LiveSettings(unsure_max_readings=8, unsure_every_s=0))
    for _ in range(20):
        loop.process(scene.image_bgr)
    snap = loop.snapshot()
    assert detector.calls == 8 and snap.settled and not snap.sure and len(snap.tiles) == 9


def test_a_still_view_not_sure_is_read_slower_after_its_first_readings(scene):
    import time

    detector = FlakyDetector(scene, lambda n: set(range(9, len(scene.tiles))))
    loop = LiveLoop(detector, AppSettings(live_detect_every=1), live=LiveSettings(fuse_fast_readings=4, unsure_every_s=0.3))
    for _ in range(20):
        loop.process(scene.image_bgr)
    assert detector.calls == 4 and not loop.snapshot().settled  # four readings at once, the next only later
    time.sleep(0.35)
    loop.process(scene.image_bgr)
    loop.process(scene.image_bgr)
    assert detector.calls == 5


def test_a_view_not_sure_is_read_by_the_clock_even_where_a_tile_flickers(scene):
    """A tile that flickers (a hand passing over it, a reflection) in one frame of three changes the view a little:
    after its first readings the view not sure is still read at most every `unsure_every_s`, not at every frame that
    differs from the last one read (which would read the flicker and its undoing alternately: half the votes)."""
    import time

    detector = FlakyDetector(scene, lambda n: set(range(9, len(scene.tiles))))
    loop = LiveLoop(detector, AppSettings(live_detect_every=1), live=LiveSettings(fuse_fast_readings=4, unsure_every_s=0.3))
    flicker = scene.image_bgr.copy()
    x1, y1, x2, y2 = (round(v) for v in scene.tiles[0].xyxy)
    flicker[y1:y2, x1:x2] = 255 - flicker[y1:y2, x1:x2]
    for k in range(21):
        loop.process(flicker if k % 3 == 2 else scene.image_bgr)
    snap = loop.snapshot()
    assert snap.view == 1 and detector.calls == 4 and not snap.settled  # one view; four readings, the next later
    time.sleep(0.35)
    loop.process(flicker)
    loop.process(scene.image_bgr)
    assert detector.calls == 5


def test_a_still_view_keeps_its_reading_and_is_not_read_again(scene):
    detector = SequenceDetector(scene)
    loop = LiveLoop(detector, AppSettings(live_detect_every=1), live=THREE_OF_FIVE)
    for _ in range(10):
        loop.process(scene.image_bgr)
    snap = loop.snapshot()
    assert detector.calls == 3  # three agreeing readings, then the still view is kept
    assert snap.still and len(snap.tiles) == len(scene.tiles) and snap.analysed_per_s > snap.readings_per_s
    noisy = np.clip(scene.image_bgr.astype(int) + np.random.default_rng(0).integers(-3, 4, scene.image_bgr.shape), 0, 255)
    loop.process(noisy.astype(np.uint8))  # camera noise is no change
    assert detector.calls == 3 and loop.snapshot().still


def test_a_changed_view_drops_its_old_boxes_on_that_very_frame(scene, other_scene):
    detector = SequenceDetector(scene, scene, scene, other_scene)
    loop = LiveLoop(detector, AppSettings(live_detect_every=3), live=THREE_OF_FIVE)  # inline, one frame in three
    for _ in range(7):
        loop.process(scene.image_bgr)
    before = loop.snapshot()
    assert len(before.tiles) == len(scene.tiles) and box_pixels(loop.process(scene.image_bgr), scene.image_bgr) > 500
    frame = loop.process(other_scene.image_bgr)  # frame 8: not a reading frame, yet the old boxes are gone
    after = loop.snapshot()
    assert box_pixels(frame, other_scene.image_bgr) == 0
    assert after.view == before.view + 1 and after.tiles == () and after.seen_at is None


def test_a_view_change_while_reading_throws_that_reading_away(scene, other_scene):
    """Background: a reading of the old view that ends after the view changed draws nothing."""
    import time

    class SlowSeeing(SlowDetector):
        def detect(self, image_bgr):
            boxes = super().detect(image_bgr)
            return boxes if np.array_equal(image_bgr, scene.image_bgr) else boxes[:0]

    loop = LiveLoop(SlowSeeing(scene, pause_s=0.3), background=True)
    try:
        loop.process(scene.image_bgr)
        time.sleep(0.05)
        empty = np.full_like(scene.image_bgr, 90)
        loop.process(empty)  # the view changes while the scene is read
        assert loop.wait_for_readings(1, timeout=10)  # the scene's reading is in; the empty table's takes 0.3 s more
        assert loop.snapshot().readings == 0  # it counts for no view
        assert box_pixels(loop.process(empty), empty) == 0
        assert loop.wait_for_readings(2, timeout=10)
        assert box_pixels(loop.process(empty), empty) == 0
    finally:
        loop.close()


def test_hold_keeps_the_reading_on_the_panel_until_released(scene, other_scene):
    loop = LiveLoop(SequenceDetector(scene, scene, scene, other_scene), AppSettings(live_detect_every=1),
                    live=THREE_OF_FIVE)
    assert not loop.hold(True)  # nothing to hold yet
    for _ in range(3):
        loop.process(scene.image_bgr)
    assert loop.hold(True)
    for _ in range(4):
        loop.process(other_scene.image_bgr)
    held = loop.snapshot()
    assert held.held and reading_key(held.tiles) == reading_key(read_tiles(scene))
    loop.hold(False)
    followed = loop.snapshot()
    assert not followed.held and len(followed.tiles) == len(other_scene.tiles)


def test_a_row_of_tiles_taken_away_is_a_changed_view_one_tile_swapped_is_not():
    """A standing row fills a tenth of the view: taking it away drops its boxes on that frame; one tile
    swapped is read again with the boxes kept meanwhile."""
    from live_scenes import empty_scene, row_scene

    row, swapped, empty = row_scene("row", "1234m456p789sEEE"), row_scene("swap", "1234m456p789sEES"), empty_scene()

    class Known:
        def detect(self, image_bgr):
            scene = row if np.array_equal(image_bgr, row.image_bgr) else swapped if np.array_equal(image_bgr, swapped.image_bgr) else empty
            return TruthDetector(boxes=_boxes(scene), size_wh=(640, 480)).detect(image_bgr)

    loop = LiveLoop(Known(), AppSettings(live_detect_every=1))
    for _ in range(3):
        loop.process(row.image_bgr)
    view = loop.snapshot().view
    assert loop.snapshot().still
    loop.process(swapped.image_bgr)
    assert loop.snapshot().view == view and not loop.snapshot().still  # read again, same view
    out = LiveLoop(Known(), AppSettings(live_detect_every=3))
    for _ in range(4):
        out.process(row.image_bgr)
    assert box_pixels(out.process(empty.image_bgr), empty.image_bgr) == 0
    assert out.snapshot().view == 2


def _boxes(scene):
    from tileset.classes import CLASS_ID
    from vision.detections import Detections

    return Detections.from_lists([b for _, b in scene.tiles], [0.95] * len(scene.tiles), [CLASS_ID[c] for c, _ in scene.tiles])


# --- a finished hand: the reader's doubts, a tile fixed by hand, the win recorded in the match ----

MISREAD = "23m456m789m11p123s"  # won on a 1m: a pure straight; the tile was a 4m: far less


def misread_hand(doubted_index=13):
    """The standing row and a winning 1m set apart, tile `doubted_index` (13: the winning tile) read with
    little confidence, the others surely, and the reader's doubt about it."""
    from vision.issues import IssueCode, ReaderIssue

    tiles = [*row_of(MISREAD), {"cls": "1m", "xyxy": [700.0, 100.0, 740.0, 160.0], "group": "win"}]
    tiles = [dict(tile, conf=0.31 if i == doubted_index else 0.99) for i, tile in enumerate(tiles)]
    doubted = tiles[doubted_index]
    issue = ReaderIssue(IssueCode.LOW_CONFIDENCE, (doubted_index,),
                        {"name": doubted["cls"], "x": doubted["xyxy"][0] + 20, "y": 130.0, "conf": 0.31})
    return tiles, (issue,)


def won_on_a_discard(tiles):
    return {"live.won_by": "discard", "live.finished_seen": reading_key(tiles)}


def total_of(notation):
    return score(parse_hand(notation + " seat=S")).total


def texts(at):
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def test_a_low_confidence_tile_is_doubted_beside_the_total_and_framed_among_the_tiles():
    tiles, issues = misread_hand()
    at = panel(tiles, won_on_a_discard(tiles), issues)
    assert [m.value for m in at.metric] == [str(total_of(MISREAD + " +1m"))]
    four = total_of(MISREAD + " +4m")
    assert (f"Check the 1 character 一万 (winning tile): as 4 characters 四万 the total is {four} "
            f"({four - total_of(MISREAD + ' +1m')})") in texts(at) and "Rests on 1 tile(s) in doubt" in texts(at)
    assert "in doubt" in at.button(key="live.tile.13").help
    assert "in doubt" not in at.button(key="live.tile.0").help
    sure = panel([dict(tile, conf=0.99) for tile in tiles], won_on_a_discard(tiles))
    assert "The reader is sure of every tile." in texts(sure) and "in doubt" not in sure.button(key="live.tile.13").help


def test_a_doubt_the_hand_settles_is_not_shown():
    """A 1p of the pair read unsure: no other face makes the hand win, so its shape confirms it (the photo
    page's reckoning)."""
    tiles, issues = misread_hand(doubted_index=8)
    assert tiles[8]["cls"] == "1p"
    at = panel(tiles, won_on_a_discard(tiles), issues)
    assert "The reader is sure of every tile." in texts(at) and "Not sure" not in texts(at)


def test_fixing_a_tile_changes_the_total_and_holds_the_reading():
    tiles, issues = misread_hand()
    at = panel(tiles, won_on_a_discard(tiles), issues)
    misread, right = total_of(MISREAD + " +1m"), total_of(MISREAD + " +4m")
    assert misread != right
    at.button(key="live.tile.13").click().run()
    assert at.session_state["live.hold"] is True  # the reading is frozen while the player fixes it
    assert "live.fix.4m" in [b.key for b in at.button]  # the faces that make the hand win, one tap each
    at.button(key="live.fix.4m").click().run()
    assert not at.exception, at.exception
    assert [m.value for m in at.metric] == [str(right)] and at.metric[0].delta == str(right - misread)
    assert "Not sure" not in texts(at) and at.button(key="live.tile.13").label.endswith("✎")
    at.button(key="live.reset").click().run()
    assert [m.value for m in at.metric] == [str(misread)]
    at.button(key="live.tile.3").click().run()  # any face, picked from the list: the 5m as a 9p
    at.selectbox(key="live.edit_face").set_value("9p").run()
    at.button(key="live.apply").click().run()
    assert [m.label for m in at.metric] == ["From ready"]  # no hand now: how far from one, and the fix to undo
    assert at.button(key="live.tile.3").label == "9 Dot ✎" and at.button(key="live.reset")


def test_a_fix_does_not_ask_won_by_again():
    tiles, issues = misread_hand()
    at = panel(tiles, won_on_a_discard(tiles), issues)
    at.button(key="live.tile.13").click().run()
    at.selectbox(key="live.edit_face").set_value("4m").run()
    at.button(key="live.apply").click().run()
    assert at.segmented_control(key="live.won_by").value == "discard"
    assert [m.value for m in at.metric] == [str(total_of(MISREAD + " +4m"))]


def test_big_total_shows_the_total_alone_on_top():
    tiles, _ = misread_hand()
    at = panel(tiles, {**won_on_a_discard(tiles), "live.big": True})
    (big,) = [h for h in at.get("html") if "live-big-total" in h.proto.body]
    assert f">{total_of(MISREAD + ' +1m')}</div>" in big.proto.body and "Pure Straight" in big.proto.body
    assert at.expander[0].label == "The reading, how it was won, fixes"  # the rest folded below


def test_hold_keeps_the_snapshot_the_panel_showed_not_a_newer_reading(scene, other_scene):
    loop = LiveLoop(SequenceDetector(scene, scene, other_scene, other_scene), AppSettings(live_detect_every=1))
    for _ in range(2):
        loop.process(scene.image_bgr)
    shown = loop.snapshot()
    for _ in range(2):
        loop.process(other_scene.image_bgr)  # a newer reading came while the player tapped
    assert reading_key(loop.snapshot().tiles) != reading_key(shown.tiles)
    assert loop.hold(True, shown)
    assert loop.snapshot().held and reading_key(loop.snapshot().tiles) == reading_key(shown.tiles)


def _match_panel(tiles):
    from appui.live import _winds, show_reading
    from appui.live_loop import LiveSnapshot

    show_reading(LiveSnapshot(tiles=tuple(tiles), readings=3, fused=3, sure=True, seen_at=0.0), _winds())


def match_panel(tiles, match_id):
    at = AppTest.from_function(_match_panel, args=(tiles,), default_timeout=60)
    at.session_state["match.current"] = match_id
    return ok(at.run())


def ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def ready_to_record(tiles, match_id):
    """The panel with the match open: Bob's hand (South in deal 1), won on Cat's discard."""
    at = match_panel(tiles, match_id)
    assert any("Match #1, deal 1" in c.value for c in at.caption), [c.value for c in at.caption]
    ok(at.segmented_control(key="live.player").set_value("Bob").run())
    ok(at.segmented_control(key="live.won_by").set_value("discard").run())
    assert "live.hold" not in at.session_state
    ok(at.segmented_control(key="live.discarder_player").set_value("Cat").run())
    assert at.session_state["live.hold"] is True  # about to record: the hand stays as shown
    return at


def test_record_puts_the_win_in_the_open_match_once(fresh_ledger):
    from ledger.match import Match
    from ledger.store import LedgerStore

    with LedgerStore() as store:
        match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan")))
    tiles, _ = misread_hand()
    at = ready_to_record(tiles, match_id)
    other_phone = ready_to_record(tiles, match_id)
    expected = total_of(MISREAD + " +1m")  # Bob sits South in deal 1 of the East round
    assert at.button(key="live.record").label == f"Record deal 1: Bob wins · {expected} fan"
    ok(at.button(key="live.record").click().run())
    with LedgerStore() as store:
        (deal,) = store.deals(match_id)
    assert (deal.number, deal.winner, deal.discarder, deal.total) == (1, "Bob", "Cat", expected)
    assert any(s.value.startswith("Recorded as deal 1 of match #1") for s in at.success)
    assert "live.record" not in [b.key for b in at.button]  # no second tap on this hand
    assert any("deal 2" in c.value for c in at.caption)  # the page reads the match's next deal
    at.run()
    assert "live.record" not in [b.key for b in at.button] and at.success
    other_phone.button(key="live.record").click().run()  # a tap on the button shown before: refused
    assert any(e.value.startswith("Not recorded") for e in other_phone.error), [e.value for e in other_phone.error]
    with LedgerStore() as store:
        assert len(store.deals(match_id)) == 1


def test_the_finished_hand_panel_speaks_chinese():
    tiles, issues = misread_hand()
    at = panel(tiles, {**won_on_a_discard(tiles), "lang": "zh"}, issues)
    assert [m.label for m in at.metric] == ["总番"]
    assert f"请检查和牌张的一万: 若是四万, 总番 {total_of(MISREAD + ' +4m')}" in texts(at) and "识别不确定之处" in texts(at)
    assert [e.label for e in at.expander][-1] == "修正一张牌"
    assert at.button(key="live.tile.13").label == "一万"


def test_a_recorded_hand_keeps_the_winds_it_was_recorded_with(fresh_ledger):
    """Bob's pung of South scored in deal 1 (he sits South); once recorded the match is at deal 2, where he sits
    East: the hand on the panel is still scored as it was recorded."""
    from ledger.match import Match
    from ledger.store import LedgerStore

    with LedgerStore() as store:
        match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan")))
    pung = [{"cls": "S", "xyxy": [45.0 * i, 10.0, 45.0 * i + 40, 60.0], "group": "meld0", "conf": 0.99} for i in range(3)]
    tiles = [*pung, *(dict(t, conf=0.99) for t in row_of("23m456m789m11p")),
             {"cls": "1m", "xyxy": [700.0, 100.0, 740.0, 160.0], "group": "win", "conf": 0.99}]
    as_south, as_east = (score(parse_hand(f"[SSS] 23m456m789m11p +1m seat={w}")).total for w in "SE")
    assert as_south != as_east
    at = ready_to_record(tiles, match_id)
    ok(at.button(key="live.record").click().run())
    assert any("deal 2" in c.value for c in at.caption)  # the match moved on
    assert [m.value for m in at.metric] == [str(as_south)]
    assert any("As recorded: S 南 seat, E 东 round." in c.value for c in at.caption)
    assert "live.record" not in [b.key for b in at.button] and any("deal 1" in s.value for s in at.success)


def test_partial_views_say_what_they_are():
    """A 1-9 run: draws that help counted, not all listed; tiles the reader grouped apart that make no meld shown
    as standing tiles, not as melds; a 13-tile row whose last tile stands apart has no winning tile."""
    run = panel(row_of("123456789m"))
    assert "Almost any draw helps: 34 kinds of tile." in texts(run) and not run.table
    scattered = [{"cls": c, "xyxy": [60.0 * i, 10.0, 60.0 * i + 40, 60.0], "group": f"meld{i}", "conf": 0.99}
                 for i, c in enumerate(["1m", "5p", "9s", "E", "C"])] + [dict(t, conf=0.99) for t in row_of("3p4p6s")]
    shown = texts(panel(scattered))
    assert not re.search(r"meld \d", shown) and "standing" in shown
    row = [dict(t, conf=0.99) for t in row_of("1234m456p789sEE")] + [
        {"cls": "E", "xyxy": [700.0, 100.0, 740.0, 160.0], "group": "win", "conf": 0.99}]
    ready = panel(row)
    assert [m.value for m in ready.metric] == ["Ready"] and "winning tile" not in texts(ready)


def test_a_hand_doubt_said_twice_is_shown_once():
    from vision.issues import IssueCode, ReaderIssue

    tiles, _ = misread_hand()
    tiles = [dict(t, conf=0.99) for t in tiles]
    twice = ReaderIssue(IssueCode.ROWS_TILTED, (), {"angle_deg": 20.0})
    at = panel(tiles, won_on_a_discard(tiles), (twice, ReaderIssue(IssueCode.ROWS_TILTED, (), {"angle_deg": 20.0})))
    said = " ".join(m.value for m in at.markdown)
    assert said.count("The rows are tilted (20°)") == 1, said


def test_the_camera_is_asked_for_its_own_picture_and_its_buttons_speak_chinese():
    import streamlit as st

    from appui.live import camera_constraints, camera_messages

    video = camera_constraints()["video"]
    assert video["resizeMode"] == "none" and "height" not in video and "aspectRatio" not in video
    st.session_state["lang"] = "zh"
    try:
        messages = camera_messages()
    finally:
        del st.session_state["lang"]
    assert (messages["start"], messages["stop"]) == ("开启摄像头", "停止")


def test_the_record_message_follows_the_language(fresh_ledger):
    """Recorded in English, then the page switched to Chinese: the message is said again in Chinese."""
    from ledger.match import Match
    from ledger.store import LedgerStore

    with LedgerStore() as store:
        match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan")))
    tiles, _ = misread_hand()
    at = ready_to_record(tiles, match_id)
    ok(at.button(key="live.record").click().run())
    assert any(s.value.startswith("Recorded as deal 1 of match #1") for s in at.success)
    at.session_state["lang"] = "zh"
    ok(at.run())
    assert any(s.value.startswith("已记入对局 #1 第 1 盘") for s in at.success), [s.value for s in at.success]


def test_frames_scaled_by_the_browser_mid_view_fuse_in_the_views_pixels(scene):
    """The browser's encoder sends the view at half size for a while: the same view, its readings fused in the
    pixels of its first frame, the boxes drawn where the tiles are on each frame."""
    import cv2

    half = cv2.resize(scene.image_bgr, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    loop = LiveLoop(TruthDetector(scene), AppSettings(live_detect_every=1), live=LiveSettings(sure_readings=9, unsure_every_s=0))
    for frame in (scene.image_bgr, half, half, scene.image_bgr, half):  # not sure before 9 readings: all read
        out = loop.process(frame)
    snap = loop.snapshot()
    assert snap.view == 1 and snap.frame_wh == (640, 480) and snap.fused == 5
    assert all(t["seen"] == 5 for t in snap.tiles)  # every reading of every tile fused, whatever its frame's size
    got = sorted(tuple(round(v) for v in t["xyxy"]) for t in snap.tiles)
    assert np.allclose(got, sorted(tuple(round(v) for v in t.xyxy) for t in scene.tiles), atol=2)
    assert out.shape == half.shape and box_pixels(out, half) > 100  # drawn on the half-size frame
