"""Streamlit AppTest of the photo page with a match open: the deal's winds come from the ledger, the page
asks only who won and how, and one tap records the win (refused, with the reason, when another phone
recorded first or the hand is under the minimum)."""

from __future__ import annotations

import pytest
from app_support import APP, TIMEOUT
from match_support import EAST_PUNG, PLAYERS, deals, match_at_deal
from streamlit.testing.v1 import AppTest

from appui.demo_scene import TruthDetector, demo_scene
from appui.models import DETECTOR_OVERRIDE_KEY
from ledger.match import Match, draw
from ledger.rules import prevalent_wind
from ledger.store import LedgerStore
from scoring import parse_hand, score

HAND = f"{EAST_PUNG} flowers=1"  # the winds change its total
pytestmark = pytest.mark.usefixtures("fresh_ledger")


@pytest.fixture(scope="module")
def scene():
    return demo_scene(parse_hand(HAND), seed=1)


def photo_page(scene, match_id: int | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[DETECTOR_OVERRIDE_KEY] = TruthDetector(scene)
    if match_id is not None:
        at.session_state["match.current"] = match_id  # the match this session opened on the Match page
    at.run()
    at.switch_page("appui/pages/photo.py").run()
    at.file_uploader(key="photo.upload").upload("scene.jpg", scene.jpeg(), "image/jpeg").run()
    assert not at.exception, at.exception
    return at


def total_shown(at: AppTest) -> int:
    (metric,) = [m for m in at.metric if m.label == "Total"]
    return int(metric.value)


def test_the_deal_gives_the_winds_and_one_tap_records_the_win(scene):
    match_id = match_at_deal(6)  # deal 6: the South round
    at = photo_page(scene, match_id)
    seats = dict(zip(PLAYERS, Match(PLAYERS).seat_winds(6), strict=False))
    dealer = next(p for p, w in seats.items() if w == "E")
    assert any(c.value.startswith(f"Match #{match_id} · deal 6 of 16 · S 南 round · dealer {dealer}")
               for c in at.caption), [c.value for c in at.caption]
    keys = {w.key for w in at.button_group}
    assert "photo.seat" not in keys and "photo.prevalent" not in keys  # never asked: the match knows them
    assert at.button_group(key="photo.winner").value is None  # asked, not guessed
    assert at.button_group(key="photo.winner").options == [f"{p} · {w} {'东南西北'['ESWN'.index(w)]}"
                                                          for p, w in seats.items()]
    assert not [m for m in at.metric if m.label == "Total"]

    winner = next(p for p, w in seats.items() if w == "W")
    at.button_group(key="photo.winner").set_value(winner).run()
    at.button_group(key="photo.won_by").set_value("self_drawn").run()
    expected = score(parse_hand(f"{HAND} self-drawn seat=W prevalent={prevalent_wind(6)}")).total
    assert expected != score(parse_hand(f"{HAND} self-drawn")).total  # the deal's winds matter here
    assert total_shown(at) == expected

    record = at.button(key="photo.record")
    assert record.label == f"Record deal 6: {winner} wins · {expected} fan"
    record.click().run()
    assert not at.exception, at.exception
    (recorded,) = [d for d in deals(match_id) if d.number == 6]
    assert (recorded.winner, recorded.discarder, recorded.total) == (winner, None, expected)
    (said,) = [s.value for s in at.success]
    assert said.startswith(f"Recorded as deal 6 of match #{match_id}: {winner} {expected} fan · ")
    assert not [b for b in at.button if b.key == "photo.record"]  # the same hand twice records one deal
    at.run()
    assert not [b for b in at.button if b.key == "photo.record"] and len(deals(match_id)) == 6
    with LedgerStore() as store:  # undone on the Match page: the same hand may be recorded again
        store.undo_last(match_id, seen=store.ledger(match_id).revision, number=6)
    at.run()
    assert [b.label for b in at.button if b.key == "photo.record"] == [record.label]
    assert not at.success  # no word of a deal that is not there any more


def test_a_discard_win_asks_who_discarded_among_the_other_players(scene):
    match_id = match_at_deal(1)
    at = photo_page(scene, match_id)
    at.button_group(key="photo.winner").set_value("Bob").run()
    at.button_group(key="photo.won_by").set_value("discard").run()
    assert [o.split(" · ")[0] for o in at.button_group(key="photo.discarder_player").options] == ["Ann", "Cat", "Dan"]
    assert not [b for b in at.button if b.key == "photo.record"]  # who discarded is needed for the ledger
    assert any("Tap who discarded" in c.value for c in at.caption)
    at.button_group(key="photo.discarder_player").set_value("Dan").run()
    at.button(key="photo.record").click().run()
    (deal,) = deals(match_id)
    expected = score(parse_hand(f"{HAND} seat=S prevalent=E")).total
    assert (deal.number, deal.winner, deal.discarder, deal.total) == (1, "Bob", "Dan", expected)


def test_a_deal_another_phone_recorded_first_is_refused_and_nothing_is_recorded_twice(scene):
    match_id = match_at_deal(1)
    at = photo_page(scene, match_id)
    at.button_group(key="photo.winner").set_value("Ann").run()
    at.button_group(key="photo.won_by").set_value("self_drawn").run()
    with LedgerStore() as store:  # the other phone, between this page's run and the tap
        store.add_deal(match_id, draw(1), seen=store.ledger(match_id).revision)
    at.button(key="photo.record").click().run()
    assert not at.exception, at.exception
    (refused,) = [e.value for e in at.error]
    assert refused.startswith("Not recorded: ") and "deal 1" in refused, refused
    assert [d.result.value for d in deals(match_id)] == ["draw"]
    assert any(c.value.startswith(f"Match #{match_id} · deal 2 of 16") for c in at.caption)  # the page moved on


def test_a_hand_under_the_minimum_is_not_recorded(scene):
    small = demo_scene(parse_hand("[123m] [456p] 678s 22s 34m +5m"), seed=2)
    match_id = match_at_deal(1)
    at = photo_page(small, match_id)
    at.button_group(key="photo.winner").set_value("Cat").run()
    at.button_group(key="photo.won_by").set_value("self_drawn").run()
    assert total_shown(at) < 8
    assert any("Under the 8-fan minimum" in m.value for m in at.markdown)
    at.button(key="photo.record").click().run()
    (refused,) = [e.value for e in at.error]
    assert "under the 8-fan minimum" in refused and "false win" in refused
    assert deals(match_id) == []


def test_a_finished_match_leaves_the_winds_to_ask(scene):
    match_id = match_at_deal(17)
    at = photo_page(scene, match_id)
    assert any(c.value == f"Match #{match_id} is over (16 deals): the winds are asked here." for c in at.caption)
    assert {"photo.seat", "photo.prevalent"} <= {w.key for w in at.button_group}
    assert not [w for w in at.button_group if w.key == "photo.winner"]


def test_no_match_open_asks_the_winds_and_says_how_to_take_them_from_a_match(scene):
    at = photo_page(scene, None)
    assert {"photo.seat", "photo.prevalent", "photo.won_by"} <= {w.key for w in at.button_group}
    assert any(c.value.startswith("Keeping a match? Open it on the Match page") for c in at.caption)


def test_a_win_recorded_here_is_not_called_another_phones_on_the_match_page(scene):
    match_id = match_at_deal(6)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[DETECTOR_OVERRIDE_KEY] = TruthDetector(scene)
    at.run()
    at.switch_page("appui/pages/match.py").run()  # the match shown here first: its revision is what this phone saw
    assert at.session_state["match.current"] == match_id
    at.switch_page("appui/pages/photo.py").run()
    at.file_uploader(key="photo.upload").upload("scene.jpg", scene.jpeg(), "image/jpeg").run()
    seats = dict(zip(PLAYERS, Match(PLAYERS).seat_winds(6), strict=False))
    at.button_group(key="photo.winner").set_value(next(p for p, w in seats.items() if w == "W")).run()
    at.button_group(key="photo.won_by").set_value("self_drawn").run()
    at.button(key="photo.record").click().run()
    assert len(deals(match_id)) == 6
    at.switch_page("appui/pages/match.py").run()
    assert not at.exception, at.exception
    assert at.subheader[0].value.startswith("Deal 7 of 16")
    assert not [w.value for w in at.warning if "Changed on another phone" in w.value]
    with LedgerStore() as store:  # another phone's deal is still told
        store.add_deal(match_id, draw(7), seen=store.ledger(match_id).revision)
    at.run()
    assert any("Changed on another phone: deal 7 was recorded by another phone" in w.value.replace("\\", "")
               for w in at.warning)
