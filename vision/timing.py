"""Where a photo's time goes: the pipeline's stages time themselves here, a benchmark reads the times.

    with recording() as times:          # a benchmark, around one photo
        detector.detect_file(path)
    times.seconds["finder"], times.calls["finder"]

    with stage(FINDER):                 # the pipeline, around one stage
        ...

Nothing is recorded outside `recording()`: a stage then costs one attribute look-up. A stage
opened inside another counts towards the outer one (the finder's run inside the mirror check is
the mirror check's time), so the stages of one photo never add up to more than its time.
Recording is per thread: a live page's worker thread and a benchmark do not mix their times.

Standard library only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

DECODE = "decode"
FINDER = "finder"
UNSTRETCH = "unstretch"  # the finder again, on copies of a stretched photo resized back
MIRROR = "mirror run"  # the finder again, on the mirror image, for the boxes it was unsure of
CROPS = "crops"
CLASSIFIER = "classifier"
DUPLICATES = "duplicates"  # boxes on one tile merged
LAYOUT = "layout and repair"  # rows, groups, the hand, and the repair search when it does not win
SCORE = "score"
STAGES: tuple[str, ...] = (DECODE, FINDER, UNSTRETCH, MIRROR, CROPS, CLASSIFIER, DUPLICATES, LAYOUT,
                           SCORE)  # in pipeline order, for reports


@dataclass
class StageTimes:
    """Seconds spent and times entered, by stage name, of what ran inside one `recording()`."""

    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.calls[name] = self.calls.get(name, 0) + 1

    def total(self) -> float:
        """Seconds in all stages together (stages never overlap)."""
        return sum(self.seconds.values())


class _Recorder(threading.local):
    times: StageTimes | None = None
    inside: bool = False  # a stage is open: an inner one counts towards it


_recorder = _Recorder()


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as stage `name` of the `recording()` open on this thread (none open: nothing)."""
    times = _recorder.times
    if times is None or _recorder.inside:
        yield
        return
    _recorder.inside = True
    started = time.perf_counter()
    try:
        yield
    finally:
        times.add(name, time.perf_counter() - started)
        _recorder.inside = False


@contextmanager
def recording() -> Iterator[StageTimes]:
    """Record the stages run on this thread inside the block; a recording open already resumes after it."""
    outer = (_recorder.times, _recorder.inside)
    times = StageTimes()
    _recorder.times, _recorder.inside = times, False
    try:
        yield times
    finally:
        _recorder.times, _recorder.inside = outer
