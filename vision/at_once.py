"""Photos of a command line read a few at once, the results in the order given, each printed as it comes.

    status = emit_lines(in_order(read_one, images, workers=2))

onnxruntime and OpenCV let go of Python's lock while they run, so threads share the two cores:
one photo's finder runs while another's classifier does.  While photos are read at once, each is read on one
thread: the models (`settings_for`) and OpenCV alike.  A caller that stops early (its reader went away) leaves
the photos not yet started unread.
"""

from __future__ import annotations

import json
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from itertools import islice
from typing import Any, TypeVar

import cv2

from vision.settings import DetectorSettings

Item = TypeVar("Item")
Result = TypeVar("Result")


def settings_for(settings: DetectorSettings, photos: int) -> DetectorSettings:
    """The settings to load the models with for `photos` photos: one thread a model when they are read at once."""
    if photos > 1 and settings.photos_at_once > 1:
        return replace(settings, intra_op_threads=1)
    return settings


def in_order(work: Callable[[Item], Result], items: Sequence[Item], workers: int) -> Iterator[Result]:
    """`work(item)` for every item, yielded in the items' order, `workers` items worked on at once (1 or a
    single item: one after another, on this thread).  At most two items a worker are started ahead of the
    one yielded; an exception of `work` comes out where its item's result would.  Meanwhile OpenCV works on one
    thread (its own threads would only wait for the cores the other items hold), as it did before after."""
    if workers <= 1 or len(items) <= 1:
        yield from map(work, items)
        return
    upcoming = iter(items)
    opencv_threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="photo") as pool:
            started: deque[Future[Result]] = deque(pool.submit(work, item) for item in islice(upcoming, 2 * workers))
            try:
                while started:
                    result = started.popleft().result()
                    for item in upcoming:
                        started.append(pool.submit(work, item))
                        break
                    yield result
            finally:
                for future in started:
                    future.cancel()
    finally:
        cv2.setNumThreads(opencv_threads)


def emit_lines(lines: Iterable[Mapping[str, Any]], *, ascii_only: bool = False) -> int:
    """Print each photo's line as it comes (`emit_json_line`); the exit status: 1 when a line says "error", else
    0 (also when the reader goes away: the lines not printed yet are not made)."""
    failures = 0
    for line in lines:
        failures += "error" in line
        if not emit_json_line(line, ascii_only=ascii_only):
            return 0
    return 1 if failures else 0


def emit_json_line(line: Mapping[str, Any], *, ascii_only: bool = False) -> bool:
    """Print one JSON line; False when the reader has gone away (a closed pipe: `| head -1`).

    Readable (中 as is) unless `ascii_only`, escaped where the output cannot show it: a file name that
    is not UTF-8 arrives as a str with lone surrogates, and ending the batch there would leave the
    later photos unread.
    """
    try:
        try:
            print(json.dumps(line, ensure_ascii=ascii_only), flush=True)
        except UnicodeEncodeError:
            print(json.dumps(line, ensure_ascii=True), flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit must not raise again
        except (OSError, ValueError):
            pass
        finally:
            os.close(devnull)
        return False
    return True
