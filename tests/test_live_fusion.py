"""Many frames of one still view fused into one reading (appui.live_fusion): which boxes are kept, the face
vote, the frames' disagreement as a runner-up, and when the fused reading is sure."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appui.live_fusion import fuse, sure, unsure_tiles
from appui.settings import LiveSettings
from tileset.classes import CLASS_ID, CLASS_NAMES
from vision.detections import Detections

ROW = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "C"]


def frame(faces, drop=(), jitter=0.0, conf=0.95, runner_up=None, seed=0):
    """A standing row as one frame reads it: tile k at x = 50 k, the tiles in `drop` not boxed."""
    rng = np.random.default_rng(seed)
    keep = [k for k in range(len(faces)) if k not in drop]
    boxes = [[50.0 * k + rng.uniform(-jitter, jitter), 100.0, 50.0 * k + 44 + rng.uniform(-jitter, jitter), 160.0]
             for k in keep]
    runner = None if runner_up is None else [CLASS_ID[runner_up[k]] if k in runner_up else -1 for k in keep]
    return Detections.from_lists(boxes, [conf] * len(keep), [CLASS_ID[faces[k]] for k in keep], runner)


def test_a_tile_some_frames_miss_is_kept_and_one_box_in_one_frame_is_not():
    drops = [{k % 13, (k + 4) % 13} for k in range(6)]
    frames = [frame(ROW, drop=drop, jitter=2.0, seed=k) for k, drop in enumerate(drops)]
    stray = Detections.from_lists([[900.0, 100.0, 944.0, 160.0]], [0.9], [CLASS_ID["N"]])
    frames[2] = Detections.from_lists(np.vstack([frames[2].xyxy, stray.xyxy]), np.append(frames[2].confidence, 0.9),
                                      np.append(frames[2].class_id, CLASS_ID["N"]))
    fused = fuse(frames)
    assert max(len(f) for f in frames) == 12 and [t.cls for t in fused.tiles] == ROW  # more than any frame saw
    assert fused.frames == 6 and [t.seen for t in fused.tiles] == [sum(k not in d for d in drops) for k in range(13)]
    assert all(abs(t.xyxy[0] - 50 * k) < 2 for k, t in enumerate(fused.tiles))  # the median box


def test_the_face_is_the_frames_vote_and_their_disagreement_its_runner_up():
    misread = [*ROW[:3], "1p", *ROW[4:]]  # the 4p read as 1p
    frames = [frame(misread if k in (1, 4) else ROW, seed=k) for k in range(5)]
    fused = fuse(frames)
    tile = fused.tiles[3]
    assert (tile.cls, tile.votes, tile.runner_up, tile.alternatives) == ("4p", (("4p", 3), ("1p", 2)), "1p", ("1p",))
    assert tile.agreement == pytest.approx(0.6) and tile.conf == pytest.approx(0.95 * 0.6)
    assert fused.disagreeing() == [3] and unsure_tiles(fused) == [3]
    dets = fused.detections()
    assert CLASS_NAMES[dets.class_id[3]] == "4p" and CLASS_NAMES[dets.runner_up[3]] == "1p"


def test_a_tie_goes_to_the_surer_frames_and_the_classifiers_runner_up_is_kept():
    fused = fuse([frame(ROW, conf=0.6), frame([*ROW[:2], "2m", *ROW[3:]], conf=0.9)])
    assert fused.tiles[2].cls == "2m" and fused.tiles[2].votes == (("2m", 1), ("3m", 1))
    agreed = fuse([frame(ROW, runner_up={0: "7m"}), frame(ROW, runner_up={0: "7m"})])
    assert agreed.tiles[0].runner_up == "7m" and agreed.tiles[0].alternatives == ("7m",) and agreed.tiles[1].runner_up is None


def test_sure_needs_frames_a_hand_of_tiles_and_agreement():
    steady = fuse([frame(ROW, seed=k) for k in range(3)])
    assert sure(steady, counted=13)
    assert not sure(fuse([frame(ROW), frame(ROW)]), counted=13)  # too few frames yet
    assert not sure(steady, counted=9)  # fewer tiles than a hand needs
    flaky = fuse([frame(ROW, drop={5} if k < 2 else (), seed=k) for k in range(5)])
    assert not sure(flaky, counted=13) and unsure_tiles(flaky) == [5]  # boxed in 3 of 5 frames
    assert sure(flaky, counted=13, settings=LiveSettings(sure_seen_share=0.6))
    doubtful = fuse([frame(ROW, conf=0.4, seed=k) for k in range(3)])
    assert not sure(doubtful, counted=13)


def test_an_empty_view_fuses_to_no_tiles():
    fused = fuse([Detections.empty(), Detections.empty()])
    assert fused.tiles == () and fused.frames == 2 and len(fused.detections()) == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(CLASS_NAMES[:42]), min_size=1, max_size=18), st.integers(1, 8))
def test_frames_that_agree_fuse_to_what_each_of_them_read(faces, copies):
    one = frame(faces)
    fused = fuse([one] * copies)
    assert [t.cls for t in fused.tiles] == faces and all(t.votes == ((t.cls, copies),) for t in fused.tiles)
    assert np.allclose(fused.detections().xyxy, one.xyxy) and not fused.disagreeing()
