"""A tournament night in a real browser (Debian's Chromium via Playwright), on SQLite and on PostgreSQL.

The organiser registers eight players for two rounds and runs the evening from the organiser screen:
the draw, each table's state, ending a table at the time limit, the next round, the end of the
tournament and its final standings, downloaded as CSV and checked against the ledger. A phone opens
table 1 by its link and records its deals; table 2's phone (written straight into the ledger) plays
all 16 deals, then a phone reopens that match, corrects deal 7 and ends it as complete. Screenshots to
docs/tournament.png (the organiser's screen at the end) and docs/match-corrected.png (the phone after the
correction) when MCR_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, REPO, require_browser, small_png, streamlit_server, wait_for_app
from postgres_support import start_postgres

from ledger.match import EndReason, draw, win
from ledger.store import LedgerStore
from ledger.tournament import tournament

DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-shots-"))
TIMEOUT_MS = 60_000
PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
PURE_STRAIGHT = "[EEE] [123p] 456p 789p 1s +1s"  # 16 fan and more whoever wins it, in any deal


@pytest.fixture(scope="module")
def postgres():
    yield from start_postgres()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'ledger.sqlite3'}"
    return request.getfixturevalue("postgres").new_database()


def press(page, button: str, then: str) -> None:  # type: ignore[no-untyped-def]
    """Click the button named `button`, then wait until the page shows `then` and its run is over."""
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_text(then).first.wait_for(timeout=TIMEOUT_MS)
    wait_for_app(page, TIMEOUT_MS)


def end_table(page, table: int, deals: str) -> None:  # type: ignore[no-untyped-def]
    """The organiser ends a table from the organiser screen (asked first), at the time limit."""
    page.get_by_role("button", name=f"End table {table}", exact=True).click()
    page.get_by_text(f"End table {table}'s match at the time limit, after {deals}?").wait_for(timeout=TIMEOUT_MS)
    press(page, f"Yes, end table {table}", then="finished at the time limit")


def organiser_screen(page, url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{url}/match?view=organiser")
    wait_for_app(page, TIMEOUT_MS)


def table_links(page, round_no: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The links of a round's tables, as the organiser screen shows them."""
    expander = page.get_by_test_id("stExpander").filter(has_text=f"Round {round_no}: the tables' links")
    if expander.get_by_test_id("stCode").count() == 0 or not expander.get_by_test_id("stCode").first.is_visible():
        expander.locator("summary").click()
    return [code.inner_text().strip() for code in expander.get_by_test_id("stCode").all()]


@pytest.mark.slow
def test_a_two_round_tournament_of_eight_from_the_organiser_screen(database_url, tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    env = {"MCR_DATA": str(tmp_path / "data"), "MCR_DATABASE_URL": database_url}
    with streamlit_server(env) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        organiser = chromium.new_page(viewport={"width": 1280, "height": 900})
        phone = chromium.new_page(viewport={"width": 390, "height": 844})
        try:
            organiser_screen(organiser, url)
            organiser.get_by_text("No tournament yet: register its players below.").wait_for(timeout=TIMEOUT_MS)
            organiser.get_by_label("Tournament name").fill("Club night")
            organiser.get_by_label("Players, one a line (a multiple of 4)").fill("\n".join(PLAYERS))
            organiser.get_by_label("Rounds to play").first.fill("2")
            press(organiser, "Register", then="Club night: 8 players registered. Draw the first round below.")
            organiser.get_by_text("0 of 2 rounds drawn.").wait_for(timeout=TIMEOUT_MS)

            # round 1: table 1 plays on a phone by its link; table 2 plays all 16 deals and is corrected
            press(organiser, "Draw round 1", then="Round 1 is still being played at table(s) 1, 2")
            assert organiser.get_by_role("button", name="Draw round 2").is_disabled()
            links = table_links(organiser, 1)
            assert len(links) == 2 and all("/match?match=" in link for link in links)
            with LedgerStore(database_url) as store:
                first, second = [s for s in store.list_matches(1) if s.round_no == 1]
            phone.goto(links[0])
            wait_for_app(phone, TIMEOUT_MS)
            phone.get_by_text(f"Deal 1 of 16 · E 东 round · dealer {first.match.players[0]}").wait_for(timeout=TIMEOUT_MS)
            press(phone, "Draw (荒牌)", then="Deal 2 of 16")
            notation = phone.get_by_label("Hand notation (winds and self-drawn come from the ledger)")
            notation.fill(PURE_STRAIGHT)
            notation.press("Enter")
            phone.get_by_text(f"fan · {first.match.players[0]}").wait_for(timeout=TIMEOUT_MS)
            wait_for_app(phone, TIMEOUT_MS)
            press(phone, "Add the win", then="Deal 3 of 16")
            press(phone, "Draw (荒牌)", then="Deal 4 of 16")

            with LedgerStore(database_url) as store:  # table 2's phone: 16 deals, the last one closes it
                m = second.match
                for n in range(1, 17):
                    deal = win(m, n, m.players[n % 4], total=8 + n) if n % 3 == 0 else draw(n)
                    store.add_deal(second.id, deal, seen=n - 1)
                assert store.ledger(second.id).closed.reason is EndReason.ALL_DEALS
            phone.goto(links[1])
            wait_for_app(phone, TIMEOUT_MS)
            phone.get_by_role("button", name="Reopen the match to correct it").click()
            press(phone, "Yes, reopen it", then="All 16 deals are recorded: correct a deal below")
            phone.get_by_role("combobox", name="Deal", exact=True).click()
            phone.get_by_role("option", name="7", exact=True).click()
            phone.get_by_text("Deal 7 is recorded: this replaces it").wait_for(timeout=TIMEOUT_MS)
            wait_for_app(phone, TIMEOUT_MS)
            press(phone, "Draw (荒牌)", then="All 16 deals are recorded")  # deal 7 was no win after all
            phone.get_by_role("button", name="End the match (all 16 deals)").click()
            press(phone, "Yes, end the match", then="The match is over (all 16 deals")
            assert phone.get_by_role("heading", name="Final standings").count() == 1
            phone.get_by_role("heading", name="Match").first.scroll_into_view_if_needed()
            small_png(phone.screenshot(), DOCS / "match-corrected.png", max_width=390)

            organiser_screen(organiser, url)
            organiser.get_by_text("playing · 3/16 deals").wait_for(timeout=TIMEOUT_MS)
            organiser.get_by_text("finished · all 16 deals").wait_for(timeout=TIMEOUT_MS)
            assert organiser.get_by_role("button", name="Draw round 2").is_disabled()
            end_table(organiser, 1, deals="3 deals")
            assert organiser.get_by_role("button", name="Draw round 2").is_enabled()

            # round 2: both tables play a deal each and are ended at the time limit from the organiser screen
            press(organiser, "Draw round 2", then="Round 2 is still being played at table(s) 1, 2")
            with LedgerStore(database_url) as store:
                for s in [s for s in store.list_matches(1) if s.round_no == 2]:
                    store.add_deal(s.id, win(s.match, 1, s.match.players[s.table_no], total=10), seen=0)
            organiser_screen(organiser, url)
            end_table(organiser, 1, deals="1 deal")
            end_table(organiser, 2, deals="1 deal")
            assert organiser.get_by_role("button", name="Draw round 3").is_disabled()
            organiser.get_by_text("All 2 rounds are drawn: end the tournament once every table has finished").wait_for()

            organiser.get_by_role("button", name="End the tournament", exact=True).click()
            press(organiser, "Yes, end the tournament", then="The tournament ended at")
            organiser.get_by_role("heading", name="Final standings").wait_for(timeout=TIMEOUT_MS)
            organiser.get_by_text("Ranked by table points (4-2-1-0 at each table), then points, then first places").wait_for()
            with organiser.expect_download(timeout=TIMEOUT_MS) as download_info:
                organiser.get_by_role("button", name="Download the standings (CSV)").click()
            rows = list(csv.DictReader(io.StringIO(Path(download_info.value.path()).read_text(encoding="utf-8-sig"))))
            organiser.set_viewport_size({"width": 1280, "height": 2300})  # the page scrolls inside: show all of it
            wait_for_app(organiser, TIMEOUT_MS)
            small_png(organiser.screenshot(full_page=True), DOCS / "tournament.png", max_width=640)

            with LedgerStore(database_url) as store:
                info = store.tournament(1)
                assert info.ended and info.rounds == 2
                ledgers = store.ledgers(1)
                assert all(lg.finished for lg in ledgers.values()) and len(ledgers) == 4
                corrected = ledgers[second.id]
                assert corrected.closed.reason is EndReason.ALL_DEALS and corrected.rows[6].deal.result.value == "draw"
                assert ledgers[first.id].closed.reason is EndReason.TIME_LIMIT and len(ledgers[first.id].rows) == 3
                expected = tournament(ledgers, info.players)
            assert [(int(r["rank"]), r["player"], float(r["table_points"]), int(r["points"]), int(r["firsts"])) for r in rows] == [
                (pl.rank, pl.player, pl.table_points, pl.points, pl.firsts) for pl in expected.players]
            assert [int(r["matches"]) for r in rows] == [2] * 8
            assert sum(float(r["table_points"]) for r in rows) == 4 * 7  # 4-2-1-0 at four tables
            assert organiser.get_by_test_id("stException").count() == 0 and phone.get_by_test_id("stException").count() == 0
        except Exception:
            for name, page in (("organiser", organiser), ("phone", phone)):
                shot = Path(tempfile.gettempdir()) / f"mcr-tournament-{name}-failure.png"
                page.screenshot(path=str(shot), full_page=True)
                print(f"screenshot of the failure: {shot}")
            raise
        chromium.close()
