"""The app's pages: one small script per page under `appui/pages/` (AppTest can switch to them)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent / "pages"


@dataclass(frozen=True)
class PageSpec:
    script: str  # relative to the repository root (the folder of app.py)
    title_key: str  # i18n label
    icon: str
    url_path: str


def labeling_available() -> bool:
    """The labeling page exists once `appui.labeling` does (another module owns it)."""
    return importlib.util.find_spec("appui.labeling") is not None


def page_specs() -> list[PageSpec]:
    pages = [  # the first is the start page: at the table a player takes a photo
        PageSpec("appui/pages/photo.py", "page_photo", ":material/photo_camera:", "photo"),
        PageSpec("appui/pages/manual.py", "page_manual", ":material/calculate:", "manual"),
        PageSpec("appui/pages/live.py", "page_live", ":material/videocam:", "live"),
        PageSpec("appui/pages/match.py", "page_match", ":material/scoreboard:", "match"),
        PageSpec("appui/pages/teach.py", "page_teach", ":material/school:", "teach"),
    ]
    if labeling_available():
        pages.append(PageSpec("appui/pages/labeling.py", "page_label", ":material/label:", "label"))
    return pages


def open_start_page_by_its_name() -> None:
    """Streamlit serves the start page at the root only, so its own address (/photo) showed "Page not
    found" over it: asked for by that name, this run opens the start page at the root instead."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return
    pages = ctx.pages_manager
    if not pages.intended_page_script_hash and pages.intended_page_name == page_specs()[0].url_path:
        pages.set_script_intent("", "")
