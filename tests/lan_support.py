"""What the LAN mode's tests share (tests/test_app_lan*.py): the access code, a clock the test moves,
and typing a code into the app's form."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

CODE = "482913"


class Clock:
    """Seconds that pass only when the test says so (`clock.now += 30`)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def enter(at: AppTest, code: str) -> AppTest:
    """Type `code` into the access form and press Enter."""
    at.text_input(key="access.code").input(code)
    (submit,) = [b for b in at.button if b.label == "Enter"]
    submit.click().run()
    assert not at.exception, at.exception
    return at
