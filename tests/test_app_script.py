"""scripts/app.sh: installs on the first start and after pyproject.toml changes, and at no other start
(no pip call at all, so a start needs no network); --port / --server.port give one port to the server,
the printed URL and both QR codes; --train and a PostgreSQL MCR_DATABASE_URL add their extras.

The script runs against a venv folder (MCR_VENV) whose `python` is a small wrapper around the
repository's .venv python that writes down every call: nothing is reinstalled, and what the script
asked pip to do is seen.  The first start's pip call is answered by the wrapper (the packages are
already in .venv); every later pip call goes to the real pip, with the package index unreachable.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_support import REPO, free_port, stop, wait_until_healthy

SCRIPT = REPO / "scripts" / "app.sh"
REAL_PYTHON = Path(sys.executable)
START_S = 90
# no pip.conf (a machine's own mirrors and wheel folders), the index on a closed port, no retries
UNREACHABLE_INDEX = {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0",
                     "PIP_TIMEOUT": "3", "PIP_NO_INPUT": "1"}
WRAPPER = """#!/usr/bin/env bash
printf '%s\\n' "$*" >> "{calls}"
if [ "${{1:-}}" = -m ] && [ "${{2:-}}" = pip ] && [ -n "${{WRAPPER_ANSWERS_PIP:-}}" ]; then exit 0; fi
if [ "${{1:-}}" = -m ] && [ "${{2:-}}" != pip ] && [ -n "${{STOP_BEFORE_SERVER:-}}" ]; then exit 0; fi
exec "{python}" "$@"
"""


@dataclass
class Venv:
    folder: Path

    @property
    def calls(self) -> list[str]:
        path = self.folder / "calls.log"
        return path.read_text().splitlines() if path.exists() else []

    def pip_calls(self) -> list[str]:
        return [c for c in self.calls if c.startswith("-m pip")]

    def stamp(self, part: str) -> str | None:
        path = self.folder / f".mcr-installed-{part}"
        return path.read_text().strip() if path.exists() else None


@pytest.fixture
def venv(tmp_path) -> Venv:
    folder = tmp_path / "venv"
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(WRAPPER.format(calls=folder / "calls.log", python=REAL_PYTHON))
    python.chmod(0o755)
    return Venv(folder)


def pyproject_hash() -> str:
    return hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()


def script_env(venv: Venv, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "MCR_"))}
    return {**env, "MCR_VENV": str(venv.folder), "MCR_DATA": str(tmp_path / "data"), **extra}


def run_script(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The script up to the point where it would start the server (the wrapper stops there)."""
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=tmp_cwd(), env={**env, "STOP_BEFORE_SERVER": "1"},
                          capture_output=True, text=True, timeout=120)


def tmp_cwd() -> str:
    return "/"  # the script finds the repository from its own path, wherever it is started


@contextlib.contextmanager
def started(args: list[str], env: dict[str, str], https: bool = False) -> Iterator[tuple[int, subprocess.Popen, Path]]:
    """`bash scripts/app.sh ARGS` until its health check answers; yields (pid's port, process, log)."""
    port = int(args[args.index("--port") + 1] if "--port" in args else args[args.index("--server.port") + 1])
    log_path = Path(env["MCR_DATA"]).parent / f"app-{port}.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(["bash", str(SCRIPT), *args], cwd=tmp_cwd(), env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            context = ssl._create_unverified_context() if https else None  # LAN mode's certificate is self-signed
            url = f"{'https' if https else 'http'}://127.0.0.1:{port}/_stcore/health"
            wait_until_healthy(process, log_path, url, START_S, context, f"scripts/app.sh on port {port}")
            yield port, process, log_path
        finally:
            stop(process)


# ---- what the script asks pip (stopped before the server starts)


def test_the_first_start_installs_and_later_starts_ask_pip_nothing(venv, tmp_path):
    env = script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1")
    first = run_script([], env)
    assert first.returncode == 0, first.stderr
    assert venv.pip_calls() == ["-m pip install -q -e ."]
    assert venv.stamp("app") == pyproject_hash()
    assert "Installing" in first.stderr
    for _ in range(2):
        again = run_script([], script_env(venv, tmp_path, **UNREACHABLE_INDEX))
        assert again.returncode == 0, again.stderr
    assert venv.pip_calls() == ["-m pip install -q -e ."]  # no pip call at all: nothing asks the index
    assert venv.calls[-1] == "-m streamlit run app.py"


def test_a_changed_pyproject_installs_again(venv, tmp_path):
    env = script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1")
    (venv.folder / ".mcr-installed-app").write_text("hash of an older pyproject.toml\n")
    assert run_script([], env).returncode == 0
    assert venv.pip_calls() == ["-m pip install -q -e ."] and venv.stamp("app") == pyproject_hash()


def test_train_and_postgres_extras_are_installed_once_each(venv, tmp_path):
    env = script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1")
    assert run_script([], env).returncode == 0
    assert run_script(["--train"], env).returncode == 0
    assert venv.pip_calls()[-1] == "-m pip install -q -e .[train]"
    assert run_script(["--train"], env).returncode == 0
    assert run_script([], env).returncode == 0  # the train extra stays; no install without --train either
    postgres = {**env, "MCR_DATABASE_URL": "postgresql://mcr@db.example/mcr"}
    assert run_script(["--train"], postgres).returncode == 0
    assert venv.pip_calls() == ["-m pip install -q -e .", "-m pip install -q -e .[train]",
                                "-m pip install -q -e .[train,postgres]"]
    sqlite = {**env, "MCR_DATABASE_URL": "sqlite:////tmp/ledger.db"}
    assert run_script([], sqlite).returncode == 0
    assert len(venv.pip_calls()) == 3
    assert {venv.stamp(p) for p in ("app", "train", "postgres")} == {pyproject_hash()}


@pytest.mark.parametrize(("args", "server_call"), [
    (["--port", "8611"], "-m streamlit run app.py --server.port 8611"),
    (["--server.port", "8611", "--server.headless", "true"], "-m streamlit run app.py --server.port 8611 --server.headless true"),
    (["--server.port=8611"], "-m streamlit run app.py --server.port 8611"),
    (["--lan", "--server.port", "8611"], "-m appui.lan serve --port 8611"),
    (["--port=8611", "--lan"], "-m appui.lan serve --port 8611"),
    (["--lan"], "-m appui.lan serve"),
])
def test_one_port_flag_reaches_the_server_once(venv, tmp_path, args, server_call):
    done = run_script(args, script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1"))
    assert done.returncode == 0, done.stderr
    assert venv.calls[-1] == server_call


@pytest.mark.parametrize("bad", [["--port"], ["--port", "http"], ["--server.port", "70000"]])
def test_a_bad_port_is_named_and_nothing_starts(venv, tmp_path, bad):
    done = run_script(bad, script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1"))
    assert done.returncode == 2 and "port" in done.stderr
    assert not venv.calls


# ---- real starts


@pytest.mark.slow
def test_started_twice_the_second_time_without_a_package_index(venv, tmp_path):
    port = free_port()
    with started(["--port", str(port)], script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1")):
        pass
    assert venv.pip_calls() == ["-m pip install -q -e ."]
    offline = script_env(venv, tmp_path, **UNREACHABLE_INDEX)  # pip, if asked, fails: its index is unreachable
    with started(["--port", str(port)], offline):
        pass
    assert venv.pip_calls() == ["-m pip install -q -e ."]


@pytest.mark.slow
def test_a_failed_reinstall_offline_says_so_and_starts_with_what_is_installed(venv, tmp_path):
    (venv.folder / ".mcr-installed-app").write_text("hash of an older pyproject.toml\n")
    port = free_port()
    with started(["--port", str(port)], script_env(venv, tmp_path, **UNREACHABLE_INDEX)) as (_, _, log):
        said = log.read_text()
    assert venv.pip_calls() == ["-m pip install -q -e ."]  # the real pip, which could not reach its index
    assert "starting with the packages installed before" in said
    assert venv.stamp("app") == "hash of an older pyproject.toml"  # the next start with a network tries again


def terminal_qr(text: str) -> str:
    """Decode the terminal's block-character QR code (two modules a character, top and bottom)."""
    import cv2
    import numpy as np

    halves = {" ": (0, 0), "\xa0": (0, 0), "▀": (1, 0), "▄": (0, 1), "█": (1, 1)}
    lines = [line for line in text.splitlines() if line.strip() and set(line) <= set(halves)]
    width = max(len(line) for line in lines)
    rows = []
    for line in lines:
        pairs = [halves[c] for c in line.ljust(width)]
        rows += [[p[0] for p in pairs], [p[1] for p in pairs]]
    lit = np.array(rows, np.uint8)
    for modules in (lit, 1 - lit):  # the terminal draws light on dark or dark on light
        padded = np.pad((1 - modules) * 255, 4, constant_values=255).astype(np.uint8)
        image = cv2.resize(padded, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
        decoded = read_qr(image)
        if decoded:
            return decoded
    return ""


def read_qr(image) -> str:
    """The text of a QR code image; OpenCV's classic detector misses a few URLs in a thousand (https://192.0.2.2:60197,
    and as a PNG 192.0.2.2:58394), its ArUco-based one reads those."""
    import cv2

    for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        decoded, _, _ = detector.detectAndDecode(image)
        if decoded:
            return str(decoded)
    return ""


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["--server.port", "--port"])
def test_lan_port_flag_gives_the_server_the_url_and_both_qr_codes_one_port(venv, tmp_path, flag):
    import cv2
    import numpy as np

    from appui.lan import LAN_URL_ENV, qr_png

    port = free_port()
    env = script_env(venv, tmp_path, WRAPPER_ANSWERS_PIP="1", MCR_ACCESS_CODE="482913")
    with started(["--lan", flag, str(port)], env, https=True) as (_, process, log):
        terminal = log.read_text()
        server_env = dict(v.split("=", 1) for v in Path(f"/proc/{process.pid}/environ").read_text().split("\0") if "=" in v)
    url = next(word for word in terminal.split() if word.startswith("https://"))
    assert url.endswith(f":{port}")
    assert terminal_qr(terminal) == url
    sidebar_url = server_env[LAN_URL_ENV]  # the sidebar's QR code is made from this
    assert sidebar_url == url
    image = cv2.imdecode(np.frombuffer(qr_png(sidebar_url), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert read_qr(image) == url
