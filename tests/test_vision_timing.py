"""vision.timing: the stage timers a benchmark reads, and the pipeline stages that report to them."""

from __future__ import annotations

import threading
import time

import numpy as np

from vision.crops import cut_tiles
from vision.detections import Detections
from vision.images import decode_image
from vision.read import read_detections
from vision.timing import CROPS, DECODE, DUPLICATES, FINDER, LAYOUT, MIRROR, recording, stage


def test_nothing_is_recorded_outside_a_recording() -> None:
    with stage(FINDER):
        pass
    with recording() as times:
        pass
    assert times.seconds == {} and times.calls == {}


def test_a_stage_adds_its_time_and_counts_its_runs() -> None:
    with recording() as times:
        for _ in range(2):
            with stage(FINDER):
                time.sleep(0.01)
    assert times.calls == {FINDER: 2}
    assert 0.02 <= times.seconds[FINDER] < 1.0
    assert times.total() == times.seconds[FINDER]


def test_a_stage_inside_another_counts_towards_the_outer_one() -> None:
    with recording() as times:
        with stage(MIRROR), stage(FINDER):
            time.sleep(0.01)
        with stage(FINDER):
            pass
    assert times.calls == {MIRROR: 1, FINDER: 1}
    assert times.seconds[MIRROR] >= 0.01 > times.seconds[FINDER]


def test_an_exception_still_closes_the_stage() -> None:
    with recording() as times:
        try:
            with stage(FINDER):
                raise ValueError("broken photo")
        except ValueError:
            pass
        with stage(CROPS):
            pass
    assert times.calls == {FINDER: 1, CROPS: 1}


def test_an_inner_recording_leaves_the_outer_one_its_own_stages() -> None:
    with recording() as outer:
        with stage(FINDER):
            pass
        with recording() as inner, stage(CROPS):
            pass
        with stage(FINDER):
            pass
    assert outer.calls == {FINDER: 2}
    assert inner.calls == {CROPS: 1}


def test_another_thread_records_nothing_into_this_one() -> None:
    def work() -> None:
        with stage(FINDER):
            pass

    with recording() as times:
        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
    assert times.calls == {}


def test_the_pipeline_stages_report_themselves(tmp_path) -> None:
    import cv2

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((60, 80, 3), 90, np.uint8))
    dets = Detections.from_lists([[10, 10, 22, 26], [23, 10, 35, 26]], [0.9, 0.8], [0, 1])
    with recording() as times:
        image = decode_image(photo).bgr
        cut_tiles(image, dets.xyxy, 32)
        read_detections(dets)
    assert times.calls[DECODE] == 1
    assert times.calls[CROPS] == 1  # one batch, its crops inside it
    assert times.calls[DUPLICATES] == 1 and times.calls[LAYOUT] == 1


def test_each_rule_of_the_reader_is_a_stage_of_its_own_unless_it_is_off(tmp_path) -> None:
    from dataclasses import replace

    from detector_support import make_models, scene

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models = make_models(tmp_path / "models")
    for rules_off, expected in ((frozenset(), {"rule unstretch", "rule mirror"}), (frozenset({"mirror"}), {"rule unstretch"})):
        detector = TileDetector.load(models, replace(DetectorSettings(), rules_off=rules_off))
        with recording() as times:
            detector.detect(scene())
        assert {name for name in times.calls if name.startswith("rule ")} >= expected
        assert ("rule mirror" in times.calls) == ("mirror" not in rules_off)
