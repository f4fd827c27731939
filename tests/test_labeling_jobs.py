"""appui.jobs: long work a page starts runs once, whoever asks for it (clicks, tabs, app processes)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from appui import jobs

REPO = Path(__file__).resolve().parent.parent


def stand_in(tmp_path: Path, seconds: float, answer: dict | None = None, exit_code: int = 0) -> tuple[list[str], Path]:
    """A job that notes its start in a file, prints a step, waits, prints its JSON answer and exits."""
    starts = tmp_path / "starts.txt"
    script = tmp_path / "job.py"
    script.write_text("import sys, time\n"
                      f"open({str(starts)!r}, 'a').write('start\\n')\n"
                      "print('[step 1/2] working', file=sys.stderr, flush=True)\n"
                      f"time.sleep({seconds})\n"
                      f"print({json.dumps(json.dumps(answer or {'done': True}))}, flush=True)\n"
                      f"sys.exit({exit_code})\n")
    return [sys.executable, str(script)], starts


def wait_until_ended(root: Path) -> jobs.JobState:
    for _ in range(400):
        state = jobs.status(root, "learn")
        assert state is not None
        if not state.running:
            return state
        time.sleep(0.05)
    raise AssertionError("the job did not end")


def test_a_second_start_while_it_runs_is_told_and_starts_nothing(tmp_path: Path) -> None:
    command, starts = stand_in(tmp_path, 1.0, {"version": "v2"})
    first = jobs.start(tmp_path, "learn", "calibrate", command)
    with pytest.raises(jobs.AlreadyRunning, match="already running since ") as refused:
        jobs.start(tmp_path, "learn", "adapt", command)
    assert refused.value.state.token == first.token and refused.value.state.kind == "calibrate"
    ended = wait_until_ended(tmp_path)
    assert starts.read_text() == "start\n"
    assert ended.exit_code == 0 and ended.result() == {"version": "v2"}
    assert "[step 1/2] working" in ended.log_lines(), "stderr and stdout both in the log"
    again = jobs.start(tmp_path, "learn", "calibrate", command)
    assert again.token != first.token
    assert wait_until_ended(tmp_path).exit_code == 0 and starts.read_text() == "start\nstart\n"


def test_eight_clicks_at_once_start_one_job(tmp_path: Path) -> None:
    command, starts = stand_in(tmp_path, 1.0)
    outcomes: list[str] = []
    gate = threading.Barrier(8)

    def click() -> None:
        gate.wait()
        try:
            jobs.start(tmp_path, "learn", "calibrate", command)
            outcomes.append("started")
        except jobs.AlreadyRunning:
            outcomes.append("told")

    threads = [threading.Thread(target=click) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wait_until_ended(tmp_path)
    assert sorted(outcomes) == ["started"] + ["told"] * 7
    assert starts.read_text() == "start\n"


def test_a_job_another_app_process_started_counts_as_running(tmp_path: Path) -> None:
    """Two app processes on one data folder: the state file and the process's command line say it runs."""
    command, starts = stand_in(tmp_path, 2.0)
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from appui import jobs; "
                    f"jobs.start(Path({str(tmp_path)!r}), 'learn', 'calibrate', {command!r})"],
                   cwd=REPO, check=True)
    state = jobs.status(tmp_path, "learn")
    assert state is not None and state.running
    with pytest.raises(jobs.AlreadyRunning):
        jobs.start(tmp_path, "learn", "calibrate", command)
    ended = wait_until_ended(tmp_path)
    assert ended.exit_code is None and ended.result() == {"done": True}, "not our child: its answer, no exit code"
    assert starts.read_text() == "start\n"


def test_a_state_file_of_a_process_gone_or_of_a_reused_pid_does_not_block(tmp_path: Path) -> None:
    command, starts = stand_in(tmp_path, 0.1)
    folder = jobs.job_folder(tmp_path, "learn")
    folder.mkdir(parents=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    for pid in (gone.pid, 1):  # a finished process; a live one running another command
        (folder / "state.json").write_text(json.dumps({"kind": "calibrate", "pid": pid, "started": 1.0,
                                                       "argv": command, "exit_code": None}))
        state = jobs.status(tmp_path, "learn")
        assert state is not None and not state.running
    jobs.start(tmp_path, "learn", "calibrate", command)
    assert wait_until_ended(tmp_path).exit_code == 0 and starts.read_text() == "start\n"


def test_a_failed_job_says_its_exit_status(tmp_path: Path) -> None:
    command, _ = stand_in(tmp_path, 0.1, exit_code=3)
    jobs.start(tmp_path, "learn", "calibrate", command)
    assert wait_until_ended(tmp_path).exit_code == 3
    with pytest.raises(jobs.JobError, match="cannot start learn"):
        jobs.start(tmp_path, "learn", "calibrate", [str(tmp_path / "no-such-program")])
