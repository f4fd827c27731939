"""The Match page's AppTests (tests/test_app_match*.py, tests/test_app_photo_match.py): a match started on
the page or written straight into the ledger, and its deals read back. Each test gets its own ledger
(the `fresh_ledger` fixture of tests/conftest.py)."""

from __future__ import annotations

from app_support import APP, TIMEOUT, ok
from streamlit.testing.v1 import AppTest

from ledger.match import Deal, Match, draw
from ledger.store import LedgerStore

PLAYERS = ("Ann", "Bob", "Cat", "Dan")
EAST_PUNG = "[EEE] [123p] 456p 789p 1s +1s"  # 22 fan for a dealer winning in the East round


def open_page(at: AppTest | None = None) -> AppTest:
    """The Match page, in a new session or in the one given."""
    if at is None:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("appui/pages/match.py").run()
    assert not at.exception, at.exception
    return at


def start_match(at: AppTest, names=PLAYERS) -> AppTest:
    """Start a match on the Match page open in `at`, the names seated E, S, W, N."""
    for wind, name in zip("ESWN", names, strict=True):
        at.text_input(key=f"match.name_{wind}").input(name)
    (start,) = [b for b in at.button if b.label == "Start the match"]
    return ok(start.click().run())


def match_at_deal(number: int) -> int:
    """A new match whose deals before `number` were draws; its id."""
    with LedgerStore() as store:
        match_id = store.create_match(Match(PLAYERS))
        for n in range(1, number):
            store.add_deal(match_id, draw(n), seen=store.ledger(match_id).revision)
    return match_id


def deals(match_id: int = 1) -> list[Deal]:
    with LedgerStore() as store:
        return store.deals(match_id)
