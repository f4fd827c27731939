"""Two calibrate or adapt runs at once: distinct version folders, one clear version in use."""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path

from vision.registry import ACTIVE_FILE, Registry


def make_and_promote(root: str, barrier, label: str, results) -> None:
    registry = Registry(Path(root))
    barrier.wait()  # both start in the same second: the same date-time name
    folder = registry.new_version_dir("calibrated")
    (folder / "card.json").write_text(json.dumps({"name": folder.name, "by": label}))
    registry.activate(folder.name)
    results.put(folder.name)


def hold_lock(root: str, held, seconds: float) -> None:
    with Registry(Path(root)).locked():
        held.set()
        time.sleep(seconds)


def test_two_processes_at_once_get_distinct_versions_and_one_in_use(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    runs = [ctx.Process(target=make_and_promote, args=(str(tmp_path), barrier, label, results)) for label in "ab"]
    for run in runs:
        run.start()
    names = [results.get(timeout=60) for _ in runs]
    for run in runs:
        run.join(30)
        assert run.exitcode == 0
    assert len(set(names)) == 2
    registry = Registry(tmp_path)
    assert sorted(v.name for v in registry.versions()) == sorted(["shipped", *names])
    active = (tmp_path / ACTIVE_FILE).read_text().strip()
    assert active in names and registry.active_name() == active
    assert sorted(registry.activations()) == sorted(names)
    assert registry.activations()[-1] == active  # the last switch is the one in use


def test_a_change_waits_while_another_process_holds_the_lock(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    held = ctx.Event()
    holder = ctx.Process(target=hold_lock, args=(str(tmp_path), held, 1.0))
    holder.start()
    try:
        assert held.wait(30)
        started = time.monotonic()
        Registry(tmp_path).new_version_dir("late")
        assert time.monotonic() - started >= 0.5
    finally:
        holder.join(30)


def test_the_lock_is_reentrant_within_a_process(tmp_path: Path) -> None:
    registry = Registry(tmp_path)
    folder = registry.new_version_dir("x")
    with registry.locked():
        registry.activate(folder.name)  # takes the lock again inside: must not wait for itself
        assert registry.back().name == "shipped"


def test_another_thread_waits_while_one_holds_the_lock(tmp_path: Path) -> None:
    import threading

    registry = Registry(tmp_path)
    held, release, order = threading.Event(), threading.Event(), []

    def holder() -> None:
        with registry.locked():
            held.set()
            release.wait(10)
            order.append("holder done")

    thread = threading.Thread(target=holder)
    thread.start()
    assert held.wait(10)
    timer = threading.Timer(0.3, release.set)
    timer.start()
    with registry.locked():  # not re-entry: another thread holds it, so this waits
        order.append("second in")
    thread.join(10)
    assert order == ["holder done", "second in"]
