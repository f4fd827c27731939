"""The live page's frame loop and analysis (appui.live_loop), and the page itself under AppTest."""

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import vision.read  # noqa: F401 - the pages import it lazily and show a message if they cannot: fail here instead
from appui.demo_scene import TruthDetector, demo_scene
from appui.live_loop import LiveLoop, analyse, reading_key
from appui.settings import AppSettings
from scoring import WinContext, parse_hand, score
from scoring.waits import waits

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
    loop = LiveLoop(detector, AppSettings(live_detect_every=3))
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
        assert loop.wait_for_readings(1, timeout=10)
        for _ in range(5):
            loop.process(scene.image_bgr)
        snap = loop.snapshot()
        assert len(snap.tiles) == len(scene.tiles) and snap.frames == 6
        assert snap.detections_run < snap.frames  # frames arriving while it read were skipped
        assert detector.threads == {"live-reader"}
    finally:
        loop.close()
    assert loop._worker is not None and not loop._worker.is_alive()


def test_loop_maps_boxes_back_from_the_shrunk_frame(scene):
    big = np.repeat(np.repeat(scene.image_bgr, 2, axis=0), 2, axis=1)  # 1280x960
    loop = LiveLoop(TruthDetector(scene), AppSettings(live_max_side=640))
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
    loop = LiveLoop(TruthDetector(scene))
    loop.process(scene.image_bgr)
    return list(loop.snapshot().tiles)


def test_complete_hand_in_view_is_scored(scene):
    analysis = analyse(read_tiles(scene), WinContext())
    assert analysis.kind == "complete"
    assert analysis.score.total == score(parse_hand(HAND)).total


def test_ready_hand_in_view_shows_its_waits(scene):
    tiles = [t for t in read_tiles(scene) if t["group"] != "win"]  # the 9s taken away: 78s waits on 6s and 9s
    analysis = analyse(tiles, WinContext())
    assert analysis.kind == "ready"
    assert [w.tile.name for w in analysis.waits] == ["6s", "9s"]
    hand = parse_hand(HAND)
    expected = waits(hand.melds, hand.concealed, WinContext(flowers=0))
    assert [w.discard.total for w in analysis.waits] == [w.discard.total for w in expected]


def test_partial_and_invalid_readings_say_why(scene):
    tiles = read_tiles(scene)
    assert analyse([], WinContext()).kind == "empty"
    partial = analyse([t for t in tiles if t["group"] not in ("win", "hand")], WinContext())
    assert partial.kind == "partial" and "13" in partial.message
    broken = [dict(t, cls="9m") if t["group"] == "meld1" and t["cls"] == "2m" else t for t in tiles]
    assert analyse(broken, WinContext()).kind == "invalid"


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


def _reading_panel(tiles):
    from appui.live import _show_reading
    from appui.live_loop import LiveSnapshot
    from scoring import WinContext

    _show_reading(LiveSnapshot(tiles=tuple(tiles), fps=14.5, frames=30, detections_run=10), WinContext(), "S")


def test_reading_panel_lists_the_waits_of_13_tiles_with_their_scores(scene):
    tiles = [t for t in read_tiles(scene) if t["group"] != "win"]
    at = AppTest.from_function(_reading_panel, args=(tiles,), default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.metric[0].value == "14.5"
    rows = at.table[0].value.to_dict("records")
    hand = parse_hand(HAND)
    expected = waits(hand.melds, hand.concealed, WinContext())
    assert [r["Tile"] for r in rows] == ["六条 6s", "九条 9s"]
    assert [int(r["On a discard"]) for r in rows] == [w.discard.total for w in expected]
    assert [int(r["Self-drawn"]) for r in rows] == [w.self_drawn.total for w in expected]


def test_reading_panel_scores_a_complete_hand(scene):
    at = AppTest.from_function(_reading_panel, args=(read_tiles(scene),), default_timeout=60).run()
    assert not at.exception, at.exception
    assert [m.value for m in at.metric] == ["14.5", str(score(parse_hand(HAND)).total)]


@pytest.mark.parametrize("groups", [5, 6, 8, 11])
def test_reading_key_takes_any_number_of_meld_groups(groups):
    """Scattered tiles make the reader form meld4, meld5...: the key orders them without an error."""
    tiles = [{"cls": "3p", "xyxy": [50.0 * k, 0.0, 50.0 * k + 40, 56.0], "group": f"meld{k}"} for k in reversed(range(groups))]
    tiles.append({"cls": "E", "xyxy": [0.0, 100.0, 40.0, 156.0], "group": "hand"})
    key = reading_key(tiles)
    assert [g for _, g in key] == ["hand"] + [f"meld{k}" for k in range(groups)]
    assert reading_key(list(reversed(tiles))) == key
