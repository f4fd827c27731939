"""Shared set-up of the browser tests: a Streamlit server subprocess and Debian's Chromium via Playwright.

Chromium comes from `scripts/install_browser.sh`; the tests skip, saying why, when it or
Playwright is missing.  No network: no ICE servers, background networking off.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
FAKE_CAMERA_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
SERVER_START_S = 60


def require_browser() -> None:
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium: run scripts/install_browser.sh")
    pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed (dev extra)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def streamlit_server(env: dict[str, str], script: Path = REPO / "app.py") -> Iterator[str]:
    """`streamlit run SCRIPT` (the app by default) on a free port; yields its URL, stops it afterwards."""
    port = free_port()
    log_path = Path(tempfile.gettempdir()) / f"mcr-streamlit-{port}.log"
    log = open(log_path, "w")  # noqa: SIM115 - the server writes to it until the finally below closes it
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=REPO, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    with _until_stopped(process, log, log_path, f"{url}/_stcore/health", SERVER_START_S, None, "streamlit"):
        yield url


def wait_until_healthy(process: subprocess.Popen, log_path: Path, health_url: str, start_s: float, context: Any,
                       what: str) -> None:
    """Until `health_url` answers 200; a server that exits or takes longer than `start_s` fails the test
    with the end of its output."""
    deadline = time.monotonic() + start_s
    while True:
        try:
            with urllib.request.urlopen(health_url, timeout=2, context=context) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{what} did not start (exit code {process.poll()}):\n{tail}")
        time.sleep(0.5)


def stop(process: subprocess.Popen, wait_s: float = 15) -> None:
    """Ask the server to end; kill it when it has not after `wait_s`."""
    process.terminate()
    try:
        process.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def _until_stopped(process: subprocess.Popen, log: Any, log_path: Path, health_url: str, start_s: float,
                   context: Any, what: str) -> Iterator[None]:
    """Wait until the server's health check answers (or fail with its output), then stop it afterwards."""
    try:
        wait_until_healthy(process, log_path, health_url, start_s, context, what)
        yield
    finally:
        stop(process)
        log.close()
        log_path.unlink(missing_ok=True)


def write_y4m(path: Path, image_bgr: np.ndarray, frames: int = 30, fps: int = 15) -> None:
    """A Y4M video (4:2:0) showing `image_bgr` for `frames` frames: Chromium's fake camera plays it in a loop."""
    height, width = image_bgr.shape[:2]
    i420 = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2YUV_I420).tobytes()
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n")
            f.write(i420)


def small_png(screenshot: bytes, path: Path, max_width: int = 1000) -> None:
    """Save a screenshot as a small PNG (scaled down, 192-colour palette) for the README."""
    image = cv2.imdecode(np.frombuffer(screenshot, np.uint8), cv2.IMREAD_COLOR)
    if image.shape[1] > max_width:
        scale = max_width / image.shape[1]
        image = cv2.resize(image, (max_width, round(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    rgb = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    rgb.quantize(colors=192, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)


def wait_for_app(page, timeout_ms: int = 60_000) -> None:  # type: ignore[no-untyped-def]
    """Until the script run is over and nothing on the page is stale or still loading."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => !document.querySelector(
            '[data-testid=stStatusWidgetRunningIcon],[data-testid=stStatusWidgetRunningManIcon],'
            + '[data-stale=true],[data-testid=stSkeleton]')""",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(300)


def start_camera_until(page, text: Any, log_path: Path | None = None, attempts: int = 2,  # type: ignore[no-untyped-def]
                       timeout_ms: int = 60_000, reopen: Callable[[], None] | None = None) -> Any:
    """Press the webcam component's START and wait until the page shows `text` (a string or a
    compiled pattern); returns its locator.  A camera that never starts (seen on loaded CI machines:
    the component's START never appeared, or its WebRTC connection never came up) gets the page
    opened again (`reopen`, by default a reload) and another try, up to `attempts`; the failure then
    says what the page and the server last showed instead of a bare timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    seen = page.get_by_text(text)
    tried: list[str] = []
    for attempt in range(attempts):
        try:
            page.frame_locator("iframe").first.get_by_role("button", name="START").click(timeout=timeout_ms)
            seen.first.wait_for(timeout=timeout_ms)
            return seen.first
        except PlaywrightTimeout as error:
            shown = page.locator("[data-testid=stMain]").inner_text(timeout=5_000)
            tried.append(f"attempt {attempt + 1}: {str(error).splitlines()[0]}; the page showed {shown[-600:]!r}")
        if attempt + 1 < attempts:
            if reopen is None:
                page.reload()
                wait_for_app(page, timeout_ms)
            else:
                reopen()
    server = log_path.read_text(errors="replace")[-2_000:] if log_path and log_path.exists() else "(no log)"
    pytest.fail(f"{text!r} never shown after {attempts} starts of the camera\n" + "\n".join(tried)
                + f"\nthe server's log ends:\n{server}")


def app_log_path(port: int) -> Path:
    """Where `streamlit_process` writes the app's output for `port`."""
    return Path(tempfile.gettempdir()) / f"mcr-app-{port}.log"


def listening_addresses(port: int) -> set[str]:
    """The local addresses with a TCP socket listening on `port` (`ss -ltn`)."""
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        local = line.split()[3]
        found.add(local.rsplit(":", 1)[0].strip("[]"))
    return found


@contextlib.contextmanager
def streamlit_process(
    command: list[str], env: dict[str, str], https: bool, start_s: float = SERVER_START_S
) -> Iterator[tuple[int, str]]:
    """Start the app the way a user does, on a free port: `command` [] is plain `streamlit run app.py`
    (the repository's config), ["lan"] is `python -m appui.lan serve`.  Yields (port, terminal output
    so far); only loopback is ever contacted."""
    import ssl

    port = free_port()
    log_path = app_log_path(port)
    log = open(log_path, "w")  # noqa: SIM115 - the server writes to it until the finally below closes it
    if command == ["lan"]:
        argv = [sys.executable, "-m", "appui.lan", "serve", "--port", str(port)]
    else:
        argv = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), *command]
    process = subprocess.Popen(argv, cwd=REPO, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT)
    scheme = "https" if https else "http"
    context = ssl._create_unverified_context() if https else None  # the LAN certificate is self-signed
    with _until_stopped(process, log, log_path, f"{scheme}://127.0.0.1:{port}/_stcore/health", start_s, context,
                        "the app"):
        log.flush()
        yield port, log_path.read_text(errors="replace")


def websocket_status(port: int, host: str, https: bool) -> int:
    """The HTTP status of a WebSocket handshake with the app on 127.0.0.1:`port` claiming Host `host`
    (101: the app would talk; 403: refused)."""
    import base64
    import http.client
    import ssl

    connection = (http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=ssl._create_unverified_context())
                  if https else http.client.HTTPConnection("127.0.0.1", port, timeout=10))
    try:
        connection.request("GET", "/_stcore/stream", headers={
            "Host": host, "Origin": f"{'https' if https else 'http'}://{host}", "Upgrade": "websocket",
            "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        })
        return connection.getresponse().status
    finally:
        connection.close()
