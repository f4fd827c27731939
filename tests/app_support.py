"""What the Streamlit AppTests of the app share: the app's script and reading what a page shows."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60  # seconds a run of the script may take (the first run imports the models)


def ok(at: AppTest) -> AppTest:
    """The run raised nothing and showed no error."""
    assert not at.exception, at.exception
    assert not at.error, [shown(e) for e in at.error]
    return at


def shown(element) -> str:
    """An alert's text as the reader sees it: the page escapes Markdown in what it shows of names and changes."""
    return element.value.replace("\\", "")


def shown_label(button) -> str:
    return button.label.replace("\\", "")
