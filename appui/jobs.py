"""Long work a page starts (learning a tile set, teaching the model) runs once per models folder.

A job is a child process whose output (stdout and stderr together) goes to a log file, not to a pipe
of the page run that started it: a second click reruns the page, which interrupts that run, and a pipe
closed under a running job would stop it.  Starting takes a file lock and checks the job's state file
(`<root>/.jobs/<name>/state.json`), so two clicks, two tabs or two app processes start it once; the
others are told it is running and watch the same log.  A state file whose process is gone (the app
was restarted) does not block a new start.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tileset.atomic_files import atomic_write_text

JOBS_DIR = ".jobs"
START_LOCK_TIMEOUT_S = 10.0  # another start holding the start lock longer than this: JobError, try again
POLL_S = 0.5  # how often a page watching a job reads its log

_PROCESSES: dict[str, subprocess.Popen[bytes]] = {}  # jobs this app process started, by state file
_GUARD = threading.Lock()


class JobError(RuntimeError):
    """A job could not be started or its files read, with a message a user can act on."""


@dataclass(frozen=True)
class JobState:
    """A job as its state file and process say: `running`, else `exit_code` (None when unknown)."""

    folder: Path
    kind: str  # what the job does ("calibrate", "adapt"): a page watches only its own kind
    pid: int
    started: float
    argv: tuple[str, ...]
    running: bool
    exit_code: int | None

    @property
    def token(self) -> str:
        """Tells one start of the job from the next."""
        return f"{self.pid}@{self.started:.6f}"

    @property
    def log_path(self) -> Path:
        return self.folder / "log.txt"

    def log_lines(self) -> list[str]:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []

    def result(self) -> dict[str, Any] | None:
        """The last line of the log that is a JSON object: the job's answer."""
        for line in reversed(self.log_lines()):
            if line.startswith("{"):
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    return value
        return None


class AlreadyRunning(JobError):
    def __init__(self, state: JobState) -> None:
        super().__init__(f"already running since {time.strftime('%H:%M:%S', time.localtime(state.started))} "
                         f"(process {state.pid})")
        self.state = state


def job_folder(root: Path, name: str) -> Path:
    return Path(root) / JOBS_DIR / name


def status(root: Path, name: str) -> JobState | None:
    """The job's last start, running or ended; None when it never ran here or its state file is unreadable."""
    folder = job_folder(root, name)
    state_path = folder / "state.json"
    try:
        data = json.loads(state_path.read_text(encoding="utf-8"))
        pid, started, argv = int(data["pid"]), float(data["started"]), tuple(str(a) for a in data["argv"])
        kind = str(data.get("kind", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    exit_code = data.get("exit_code")
    process = _PROCESSES.get(str(state_path))
    if process is not None and process.pid == pid:
        code = process.poll()
        running = code is None
        if code is not None:
            exit_code = code
            _PROCESSES.pop(str(state_path), None)
            _write_state(state_path, kind, pid, started, argv, code)
    else:
        running = exit_code is None and _alive(pid, argv)
    return JobState(folder, kind, pid, started, argv, running, exit_code if isinstance(exit_code, int) else None)


def start(root: Path, name: str, kind: str, argv: Sequence[str], cwd: Path | None = None) -> JobState:
    """Start the job `name` doing `kind` unless it is running (AlreadyRunning, with its state); its output
    goes to its log."""
    from filelock import FileLock, Timeout

    folder = job_folder(root, name)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with _GUARD, FileLock(folder / "start.lock", timeout=START_LOCK_TIMEOUT_S):
            current = status(root, name)
            if current is not None and current.running:
                raise AlreadyRunning(current)
            with open(folder / "log.txt", "wb") as log:
                process = subprocess.Popen(list(argv), cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True)
            started = time.time()
            state_path = folder / "state.json"
            _PROCESSES[str(state_path)] = process
            _write_state(state_path, kind, process.pid, started, tuple(argv), None)
    except Timeout:
        raise JobError(f"another start of {name} holds {folder / 'start.lock'}; try again") from None
    except OSError as error:
        raise JobError(f"cannot start {name}: {error}") from None
    return JobState(folder, kind, process.pid, started, tuple(argv), True, None)


def _write_state(path: Path, kind: str, pid: int, started: float, argv: tuple[str, ...],
                 exit_code: int | None) -> None:
    atomic_write_text(path, json.dumps({"kind": kind, "pid": pid, "started": started, "argv": list(argv),
                                        "exit_code": exit_code}) + "\n")


def _alive(pid: int, argv: tuple[str, ...]) -> bool:
    """A process another app process started: alive and still running this command (a reused pid is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: it exists
    proc = Path("/proc") / str(pid)
    try:
        stat = (proc / "stat").read_text()
        command = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc here: the pid alone
    if stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]:
        return False
    return [c.decode("utf-8", "replace") for c in command if c] == list(argv)
