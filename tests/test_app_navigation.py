"""The app's pages: every page script exists, the labeling page only when its module does."""

import importlib.util

from appui.navigation import PAGES_DIR, page_specs


def test_every_page_script_exists_and_the_photo_page_comes_first():
    specs = page_specs()
    assert specs[0].url_path == "photo"
    root = PAGES_DIR.parent.parent
    assert all((root / spec.script).is_file() for spec in specs)
    assert len({spec.url_path for spec in specs}) == len(specs)


def test_labeling_page_follows_its_module(monkeypatch):
    real = importlib.util.find_spec

    def without_labeling(name, *args):
        return None if name == "appui.labeling" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_labeling)
    assert "label" not in [s.url_path for s in page_specs()]
    monkeypatch.setattr(importlib.util, "find_spec", real)
    has_module = real("appui.labeling") is not None
    assert ("label" in [s.url_path for s in page_specs()]) == has_module
