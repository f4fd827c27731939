"""`vision.at_once.in_order`: photos read a few at once come out in the order given, and a reader that stops
early leaves the rest unread."""

from __future__ import annotations

import threading
import time

import pytest

from vision.at_once import in_order, settings_for
from vision.settings import DetectorSettings


def test_results_come_in_the_items_order_whichever_finishes_first() -> None:
    def slow_for_small(n: int) -> int:
        time.sleep(0.02 * (5 - n % 5))
        return n * n

    assert list(in_order(slow_for_small, list(range(12)), workers=3)) == [n * n for n in range(12)]


def test_no_more_than_the_workers_run_at_once() -> None:
    running, most, lock = 0, 0, threading.Lock()

    def work(n: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.01)
        with lock:
            running -= 1
        return n

    assert list(in_order(work, list(range(20)), workers=2)) == list(range(20))
    assert most == 2


def test_a_reader_that_stops_leaves_the_later_items_unstarted() -> None:
    started: list[int] = []

    def work(n: int) -> int:
        started.append(n)
        return n

    results = in_order(work, list(range(100)), workers=2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    results.close()
    assert len(started) <= 3 + 2 * 2  # what was yielded and at most two items a worker ahead


def test_an_error_comes_out_where_its_item_would_have() -> None:
    def work(n: int) -> int:
        if n == 3:
            raise ValueError("three")
        return n

    results = in_order(work, list(range(6)), workers=2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="three"):
        next(results)


def test_one_item_or_one_worker_runs_on_the_callers_thread() -> None:
    caller = threading.get_ident()
    assert list(in_order(lambda _: threading.get_ident(), ["a"], workers=4)) == [caller]
    assert set(in_order(lambda _: threading.get_ident(), ["a", "b", "c"], workers=1)) == {caller}


def test_models_run_on_one_thread_only_when_photos_are_read_at_once() -> None:
    settings = DetectorSettings()
    assert settings_for(settings, 1).intra_op_threads == settings.intra_op_threads
    assert settings_for(settings, 5).intra_op_threads == 1
    one_at_a_time = DetectorSettings(photos_at_once=1)
    assert settings_for(one_at_a_time, 5).intra_op_threads == one_at_a_time.intra_op_threads


def test_opencv_works_on_one_thread_while_photos_are_read_at_once_and_as_before_after() -> None:
    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(2)
    try:
        assert set(in_order(lambda _: cv2.getNumThreads(), range(5), workers=2)) == {1}
        assert cv2.getNumThreads() == 2
        assert list(in_order(lambda _: cv2.getNumThreads(), range(3), workers=1)) == [2, 2, 2]
    finally:
        cv2.setNumThreads(before)
