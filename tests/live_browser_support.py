"""The live page in Chromium as its browser test and `benchmarks/live_browser.py` watch it: the page
opened with a fake camera playing a video, its text waited for, and the panel lag and rates read
from what the page showed (a poller in the page notes when each view's reading first reached it).
"""

from __future__ import annotations

import os
import re
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from browser_support import CHROMIUM, CHROMIUM_ARGS, FAKE_CAMERA_ARGS, start_camera_until, streamlit_server, wait_for_app

TIMEOUT_MS = 60_000
# each 20 ms: the view the panel shows, when its reading first showed tiles, its latest reading (the tiles
# with their boxes, whether sure, the frames fused and, with MCR_LIVE_FRAMES=1, each of their own readings),
# the camera's frame size, and the status line's rates
LAG_POLLER = """() => {
  window.__live = {views: {}, rates: []};
  setInterval(() => {
    const span = document.querySelector('[data-live-view]');
    if (!span) return;
    const view = span.dataset.liveView, tiles = +span.dataset.tiles;
    const seen = window.__live.views[view] || (window.__live.views[view] = {changed: +span.dataset.viewChangedAt,
                                                                          shown: null, tiles: 0});
    if (tiles > 0 && seen.shown === null) {
      seen.shown = Date.now() / 1000; seen.tiles = tiles; seen.read_at = +span.dataset.shownAt;
    }
    if (tiles > 0) {
      seen.read = JSON.parse(span.dataset.read); seen.frames = JSON.parse(span.dataset.frames || '[]');
      seen.sure = span.dataset.sure === '1'; seen.fused = +span.dataset.fused; seen.readings = +span.dataset.readings;
      seen.last = Date.now() / 1000; seen.frame = span.dataset.frame;
    }
    window.__live.frame = span.dataset.frame;
    const status = [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
      .map(e => e.innerText).find(x => x.includes('readings/s'));
    if (status) window.__live.rates.push(status);
  }, 20);
}"""


@contextmanager
def live_page(playwright, video: Path, env: dict[str, str]) -> Iterator[tuple[Any, Path]]:  # type: ignore[no-untyped-def]
    """The app's live page in Chromium whose fake camera plays `video`, the camera started and the lag
    poller running: (page, server log path)."""
    camera = [*FAKE_CAMERA_ARGS, f"--use-file-for-fake-video-capture={video}"]
    with streamlit_server(env) as url:
        log = Path(tempfile.gettempdir()) / f"mcr-streamlit-{url.rsplit(':', 1)[1]}.log"
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                              args=CHROMIUM_ARGS + camera)
        try:
            page = chromium.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(f"{url}/live")
            wait_for_app(page, TIMEOUT_MS)
            page.evaluate(LAG_POLLER)
            start_camera_until(page, re.compile(r"Tiles in view: [1-9]"), log, timeout_ms=TIMEOUT_MS)
            yield page, log
        finally:
            chromium.close()


def panel_text(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator("[data-testid=stMain]").inner_text()


def wait_for_panel(page, pattern: str, timeout_ms: int = TIMEOUT_MS) -> None:  # type: ignore[no-untyped-def]
    """Until the page's text matches `pattern` (a failure says what it showed last)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "p => new RegExp(p).test(document.querySelector('[data-testid=stMain]').innerText)", arg=pattern,
            timeout=timeout_ms, polling=50,
        )
    except PlaywrightTimeout:
        raise AssertionError(f"the page never showed {pattern!r}; it shows {panel_text(page)[-1500:]!r}") from None


def lag_report(page) -> dict:  # type: ignore[no-untyped-def]
    """The panel lag of each view that reached the panel, and the rates the status line showed."""
    data = page.evaluate("window.__live")
    lags = sorted(v["shown"] - v["changed"] for v in data["views"].values() if v["shown"] and v["changed"])
    # the lag's two parts: the server's first reading of the view, then the panel bringing it to the browser
    read = sorted(v["read_at"] - v["changed"] for v in data["views"].values() if v["shown"] and v.get("read_at"))
    brought = sorted(v["shown"] - v["read_at"] for v in data["views"].values() if v["shown"] and v.get("read_at"))
    rates = [re.search(r"Read ([\d.]+) frames/s \(([\d.]+) readings/s.*video ([\d.]+) frames/s", r)
             for r in data["rates"]]
    rates = [m for m in rates if m]
    return {
        "views_seen": len(data["views"]),
        "views_shown": len(lags),
        "panel_lag_s": {"median": round(statistics.median(lags), 3), "max": round(max(lags), 3)} if lags else None,
        "first_reading_s_median": round(statistics.median(read), 3) if read else None,
        "panel_delivery_s_median": round(statistics.median(brought), 3) if brought else None,
        "analysed_frames_per_s_median": statistics.median(float(m.group(1)) for m in rates) if rates else None,
        "readings_per_s_median": statistics.median(float(m.group(2)) for m in rates) if rates else None,
        "readings_per_s_max": max(float(m.group(2)) for m in rates) if rates else None,
        "video_frames_per_s_median": statistics.median(float(m.group(3)) for m in rates) if rates else None,
        "load_average": os.getloadavg()[0],
        "camera_frame": data.get("frame"),
    }


def views_read(page) -> list[dict]:  # type: ignore[no-untyped-def]
    """Each view the panel showed tiles for: its latest reading (`read`: [face, x1, y1, x2, y2] a tile), whether it
    was sure, the frames fused and their own readings (`frames`, with MCR_LIVE_FRAMES=1), how long it was shown."""
    data = page.evaluate("window.__live")
    return [dict(v, view=int(k)) for k, v in data["views"].items() if v.get("shown")]
