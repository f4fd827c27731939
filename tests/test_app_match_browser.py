"""The Match page in a real browser (Debian's Chromium, headless, offline, via Playwright).

A match is started, its first deal scored from a photo (the photo page opened by "Score a
photo" with the deal's winds set; the detector is the truth detector of a generated scene) and
added with one click, the next one drawn, then the totals, the chart and the CSV download are
checked, on a phone-sized viewport at the end. Screenshot to docs/match.png when MCR_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, REPO, require_browser, small_png, streamlit_server, wait_for_app

from appui.demo_scene import demo_scene, write_truth
from scoring import parse_hand, score

DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-shots-"))
HAND = "[EEE] [123p] 456p 789p 1s +1s flowers=1"
TIMEOUT_MS = 60_000


def press(page, button: str, then: str) -> None:  # type: ignore[no-untyped-def]
    """Click the button named `button`, then wait until the page shows `then` and its run is over."""
    page.get_by_role("button", name=button).click()
    page.get_by_text(then).wait_for(timeout=TIMEOUT_MS)
    wait_for_app(page, TIMEOUT_MS)


@pytest.mark.slow
def test_match_started_photo_scored_into_it_totals_chart_csv(tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    scene = demo_scene(parse_hand(HAND), seed=1)
    (tmp_path / "scene.jpg").write_bytes(scene.jpeg())
    write_truth(scene, tmp_path / "truth.json")
    env = {"MCR_DETECTOR": "appui.demo_scene:truth_detector", "MCR_DEMO_TRUTH": str(tmp_path / "truth.json"),
           "MCR_DATA": str(tmp_path / "data"), "MCR_DATABASE_URL": ""}
    # deal 1: Ann deals (seat East, East round: the East pung is both winds); she wins on Bob's discard
    fan = score(parse_hand(HAND + " seat=E prevalent=E")).total
    expected = {"Ann": 8 + fan + 16, "Bob": -(8 + fan), "Cat": -8, "Dan": -8}
    with streamlit_server(env) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1300, "height": 1600})
        try:
            page.goto(f"{url}/match")
            wait_for_app(page, TIMEOUT_MS)
            for wind, name in zip(("E 东", "S 南", "W 西", "N 北"), ("Ann", "Bob", "Cat", "Dan"), strict=False):
                page.get_by_label(f"Player starting {wind}").fill(name)
            press(page, "Start the match", then="Deal 1 of 16")
            page.get_by_role("button", name="Score a photo").click()  # winner Ann, discarder Bob: the defaults
            page.locator("input[type=file]").wait_for(state="attached", timeout=TIMEOUT_MS)
            wait_for_app(page, TIMEOUT_MS)
            page.locator("input[type=file]").set_input_files(str(tmp_path / "scene.jpg"))
            page.get_by_test_id("stMetricValue").first.wait_for(timeout=TIMEOUT_MS)
            wait_for_app(page, TIMEOUT_MS)
            assert page.get_by_test_id("stMetricValue").first.inner_text().strip() == str(fan)  # the winds were carried

            page.get_by_test_id("stSidebarNavLink").filter(has_text="Match").click()
            page.get_by_text(f": {fan} fan · Ann").wait_for(timeout=TIMEOUT_MS)
            wait_for_app(page, TIMEOUT_MS)
            press(page, "Add the win", then="Deal 2 of 16")
            press(page, "Draw (荒牌)", then="Deal 3 of 16")
            assert page.locator("[data-testid=stVegaLiteChart]").count() == 1

            page.set_viewport_size({"width": 390, "height": 2600})  # a phone
            wait_for_app(page, TIMEOUT_MS)
            button = page.get_by_role("button", name="Download CSV")
            button.scroll_into_view_if_needed()
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
            with page.expect_download(timeout=TIMEOUT_MS) as download_info:
                button.click()
            rows = list(csv.DictReader(io.StringIO(Path(download_info.value.path()).read_text())))
            assert [r["result"] for r in rows] == ["win", "draw"]
            assert rows[0]["fan"] == str(fan) and rows[0]["winner"] == "Ann" and rows[0]["discarder"] == "Bob"
            assert {name: int(rows[1][f"{name} total"]) for name in expected} == expected
            page.get_by_role("heading", name="Match").first.scroll_into_view_if_needed()
            small_png(page.screenshot(full_page=True), DOCS / "match.png", max_width=390)
        except Exception:
            shot = Path(tempfile.gettempdir()) / "mcr-match-browser-failure.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot of the failure: {shot}")
            raise
        chromium.close()


@pytest.mark.slow
def test_two_tabs_a_stale_record_and_undo_are_refused_and_a_finished_match_is_locked(tmp_path):
    """Two phones on one table's link: what one records, the other's stale record and undo are refused with
    what changed; once one ends the match (time limit) the other cannot change it."""
    require_browser()
    from playwright.sync_api import sync_playwright

    from ledger.match import Match
    from ledger.store import LedgerStore

    data = tmp_path / "data"
    with LedgerStore(f"sqlite:///{data / 'ledger.sqlite3'}") as store:
        store.create_match(Match(("Eve", "Fay", "Gus", "Hal"), table="2"))  # another table: the link must not open it
        match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan"), table="1"))
        store.create_match(Match(("Ivy", "Jon", "Kim", "Lee"), table="3"))  # the newest match
        uid = store.ledger(match_id).uid
    env = {"MCR_DATA": str(data), "MCR_DATABASE_URL": ""}
    with streamlit_server(env) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport={"width": 390, "height": 2400})  # phones
        first, second = context.new_page(), context.new_page()
        try:
            for page in (first, second):
                page.goto(f"{url}/match?match={uid}")
                wait_for_app(page, TIMEOUT_MS)
                page.get_by_text("Deal 1 of 16 · E 东 round · dealer Ann").wait_for(timeout=TIMEOUT_MS)
            press(first, "Draw (荒牌)", then="Deal 2 of 16")

            # the second phone still shows deal 1: its draw is refused, naming what the first recorded
            second.get_by_role("button", name="Draw (荒牌)").click()
            second.get_by_text("Not recorded: deal 1 was recorded by another phone at").wait_for(timeout=TIMEOUT_MS)
            assert "a draw" in second.get_by_text("Not recorded: deal 1 was recorded").inner_text()
            second.get_by_text("Deal 2 of 16").wait_for(timeout=TIMEOUT_MS)
            wait_for_app(second, TIMEOUT_MS)

            # the first records deal 2; the second, not having seen it, asks to undo deal 1 and is refused
            press(first, "Draw (荒牌)", then="Deal 3 of 16")
            press(second, "Undo deal 1: a draw", then="Undo deal 1 (a draw)?")
            press(second, "Yes, undo deal 1", then="Not recorded: deal 2 was recorded by another phone at")
            with LedgerStore(f"sqlite:///{data / 'ledger.sqlite3'}") as store:
                assert [d.number for d in store.deals(match_id)] == [1, 2]

            # the first ends the session at the time limit (asked first); the second's draw is refused
            first.get_by_role("button", name="End the session now (time limit)").click()
            press(first, "Yes, end the match", then="The match is over (time limit")
            assert first.get_by_role("button", name="Draw (荒牌)").count() == 0
            second.get_by_role("button", name="Draw (荒牌)").click()
            second.get_by_text("Not recorded: the match was ended by another phone at").wait_for(timeout=TIMEOUT_MS)
            second.get_by_text("The match is over (time limit").wait_for(timeout=TIMEOUT_MS)
            wait_for_app(second, TIMEOUT_MS)
            assert second.get_by_role("button", name="Draw (荒牌)").count() == 0
            assert second.get_by_role("button", name="Reopen the match to correct it").count() == 1
            with LedgerStore(f"sqlite:///{data / 'ledger.sqlite3'}") as store:
                ledger = store.ledger(match_id)
                assert len(ledger.rows) == 2 and ledger.finished and ledger.revision == 3
        except Exception:
            for name, page in (("first", first), ("second", second)):
                shot = Path(tempfile.gettempdir()) / f"mcr-match-tabs-{name}-failure.png"
                page.screenshot(path=str(shot), full_page=True)
                print(f"screenshot of the failure: {shot}")
            raise
        chromium.close()


def choose(page, label: str, option: str) -> None:  # type: ignore[no-untyped-def]
    """Pick `option` in the selectbox labelled `label`."""
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page, TIMEOUT_MS)


@pytest.mark.slow
def test_a_complete_match_reopened_corrected_and_ended_complete_again(tmp_path):
    """16 deals recorded in the browser; reopened, deal 7 corrected, and ended as complete (not as a time limit),
    the page whole throughout: the sheet, the standings and the downloads, no error."""
    require_browser()
    from playwright.sync_api import sync_playwright

    from ledger.match import EndReason, Match
    from ledger.store import LedgerStore

    data = tmp_path / "data"
    url_db = f"sqlite:///{data / 'ledger.sqlite3'}"
    with LedgerStore(url_db) as store:
        match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan")))
    env = {"MCR_DATA": str(data), "MCR_DATABASE_URL": ""}
    with streamlit_server(env) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(f"{url}/match")
            wait_for_app(page, TIMEOUT_MS)
            for n in range(1, 16):
                press(page, "Draw (荒牌)", then=f"Deal {n + 1} of 16")
            press(page, "Draw (荒牌)", then="The match is over (all 16 deals")
            page.get_by_role("button", name="Reopen the match to correct it").click()
            press(page, "Yes, reopen it", then="All 16 deals are recorded: correct a deal below")
            assert page.get_by_test_id("stException").count() == 0
            assert page.get_by_text("The match is over").count() == 0
            for whole in ("Deals", "Standings so far"):
                assert page.get_by_role("heading", name=whole).count() == 1
            assert page.get_by_role("button", name="Download CSV").count() == 1
            assert page.get_by_role("button", name="End the session now (time limit)").count() == 0

            choose(page, "Deal", "7")
            page.get_by_text("Deal 7 is recorded: this replaces it").wait_for(timeout=TIMEOUT_MS)
            notation = page.get_by_label("Hand notation (winds and self-drawn come from the ledger)")
            notation.fill("[EEE] [123p] 456p 789p 1s +1s")
            notation.press("Enter")
            page.get_by_text("fan · Ann").wait_for(timeout=TIMEOUT_MS)
            wait_for_app(page, TIMEOUT_MS)
            press(page, "Add the win", then="All 16 deals are recorded")
            page.get_by_role("button", name="End the match (all 16 deals)").click()
            press(page, "Yes, end the match", then="The match is over (all 16 deals")
            assert page.get_by_test_id("stException").count() == 0
            assert page.get_by_role("heading", name="Final standings").count() == 1
            with LedgerStore(url_db) as store:
                ledger = store.ledger(match_id)
                assert ledger.closed is not None and ledger.closed.reason is EndReason.ALL_DEALS
                assert ledger.rows[6].deal.winner == "Ann" and ledger.rows[6].deal.discarder == "Bob"
                assert [r.deal.result.value for r in ledger.rows].count("draw") == 15 and sum(ledger.totals) == 0
        except Exception:
            shot = Path(tempfile.gettempdir()) / "mcr-match-reopen-failure.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot of the failure: {shot}")
            raise
        chromium.close()
