"""Streamlit AppTest of "Add to match" on the photo and manual pages: the hand scored there goes into the
match open in this session as its next deal, the winner and discarder taken from the seats picked there."""

from __future__ import annotations

import pytest
from app_support import APP, TIMEOUT, ok, shown
from match_support import EAST_PUNG, deals, open_page, start_match
from streamlit.testing.v1 import AppTest

from appui.demo_scene import TruthDetector, demo_scene
from appui.models import DETECTOR_OVERRIDE_KEY
from ledger.match import Match, draw
from ledger.store import LedgerStore
from scoring import parse_hand, score

pytestmark = pytest.mark.usefixtures("fresh_ledger")

PHOTO_HAND = "[EEE] [123p] 456p 789p 1s +1s self-drawn seat=S prevalent=W flowers=1"


def app(detector=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if detector is not None:
        at.session_state[DETECTOR_OVERRIDE_KEY] = detector
    return ok(at.run())


def manual_hand(at: AppTest, notation: str, discarder_seat: str | None, seat: str = "E") -> AppTest:
    at.switch_page("appui/pages/manual.py").run()
    at.text_input(key="manual.notation").input(notation).run()
    at.button(key="manual.load").click().run()
    at.selectbox(key="manual.seat").set_value(seat).run()
    at.segmented_control(key="manual.won_by").set_value("discard" if discarder_seat else "self_drawn").run()
    if discarder_seat:
        at.selectbox(key="manual.discarder").set_value(discarder_seat).run()
    assert not at.exception, at.exception
    return at


def test_add_from_the_manual_page_records_the_next_deal_with_the_seats_picked_there():
    at = manual_hand(start_match(open_page(app())), EAST_PUNG, discarder_seat="W")  # seat E: Ann wins on Cat's (W) discard
    assert any(shown(c) == "Match #1, deal 1: Ann (E 东) wins on Cat's discard · 22 fan" for c in at.caption), \
        [shown(c) for c in at.caption]
    ok(at.button(key="manual.add_to_match").click().run())
    (added,) = [shown(s) for s in at.success if shown(s).startswith("Added")]
    assert added == "Added to match #1 as deal 1: Ann 22 fan · Ann +46 · Bob -8 · Cat -30 · Dan -8"
    (deal,) = deals()
    assert (deal.number, deal.winner, deal.discarder, deal.total) == (1, "Ann", "Cat", 22)
    # deal 2: Bob deals, so the seat picked (S) is now Cat's and the discarding seat (E) Bob's
    manual_hand(at, EAST_PUNG, discarder_seat="E", seat="S")
    ok(at.button(key="manual.add_to_match").click().run())
    (added,) = [shown(s) for s in at.success if shown(s).startswith("Added")]
    assert added == "Added to match #1 as deal 2: Cat 20 fan · Ann -8 · Bob -28 · Cat +44 · Dan -8"
    assert [(d.number, d.winner, d.discarder, d.total) for d in deals()] == [(1, "Ann", "Cat", 22), (2, "Cat", "Bob", 20)]
    # back on the Match page: the same match (not the newest one), both deals, deal 3 next
    with LedgerStore() as store:
        store.create_match(Match(("Eve", "Fay", "Gus", "Hal"), table="2"))
    at.switch_page("appui/pages/match.py").run()
    assert at.subheader[0].value == "Deal 3 of 16 · E 东 round · dealer Cat"


def test_add_from_the_photo_page():
    """With a match open the photo page asks who won (its winds are the deal's) and records with one tap
    (more in test_app_photo_match.py)."""
    scene = demo_scene(parse_hand(PHOTO_HAND), seed=1)
    at = start_match(open_page(app(TruthDetector(scene))))
    at.switch_page("appui/pages/photo.py").run()
    at.file_uploader(key="photo.upload").upload("scene.jpg", scene.jpeg(), "image/jpeg").run()
    at.button_group(key="photo.winner").set_value("Bob").run()  # deal 1: Bob sits South
    at.segmented_control(key="photo.won_by").set_value("self_drawn").run()
    ok(at.button(key="photo.record").click().run())
    # the ledger scores it with deal 1's winds (East round), not the West round the notation says
    expected = score(parse_hand(PHOTO_HAND.replace("prevalent=W", "prevalent=E"))).total
    assert expected != score(parse_hand(PHOTO_HAND)).total
    (deal,) = deals()
    assert (deal.number, deal.winner, deal.discarder, deal.total) == (1, "Bob", None, expected)
    (added,) = [shown(s) for s in at.success if shown(s).startswith("Recorded")]
    assert added == (f"Recorded as deal 1 of match #1: Bob {expected} fan · "
                     f"Ann -{8 + expected} · Bob +{3 * (8 + expected)} · Cat -{8 + expected} · Dan -{8 + expected}")


def test_no_match_open_is_refused_with_the_way_to_the_match_page():
    with LedgerStore() as store:  # another table's match in the same database: never guessed
        store.create_match(Match(("Eve", "Fay", "Gus", "Hal"), table="2"))
    at = manual_hand(app(), EAST_PUNG, discarder_seat="W")
    assert not [c for c in at.caption if shown(c).startswith("Match #")]  # nothing offered
    at.button(key="manual.add_to_match").click().run()
    assert not at.exception, at.exception
    assert [shown(e) for e in at.error] == [
        "No match is open: start or choose one on the Match page, then add the hand."]
    (link,) = at.get("page_link")
    assert (link.proto.page, link.proto.label) == ("match", "Open the Match page")
    assert deals() == []


def test_a_double_click_adds_one_deal():
    at = manual_hand(start_match(open_page(app())), EAST_PUNG, discarder_seat="W")
    ok(at.button(key="manual.add_to_match").click().run())
    at.button(key="manual.add_to_match").click().run()
    assert not at.exception, at.exception
    assert [shown(e) for e in at.error] == ["Already in match #1 as deal 1: a second click adds nothing."]
    assert [d.number for d in deals()] == [1]
    # undone on the Match page: the same hand can be added again
    at.switch_page("appui/pages/match.py").run()
    ok(at.button(key="match.undo").click().run())
    ok(at.button(key="match.undo_yes").click().run())
    manual_hand(at, EAST_PUNG, discarder_seat="W")
    ok(at.button(key="manual.add_to_match").click().run())
    assert [(d.number, d.winner) for d in deals()] == [(1, "Ann")]


def test_a_deal_another_phone_recorded_first_is_refused_naming_it():
    at = manual_hand(start_match(open_page(app())), EAST_PUNG, discarder_seat="W")
    with LedgerStore() as store:  # another phone records deal 1 while this one scores the hand
        store.add_deal(1, draw(1), seen=0)
    at.button(key="manual.add_to_match").click().run()
    assert not at.exception, at.exception
    (refused,) = [shown(e) for e in at.error]
    assert refused.startswith("Not recorded: deal 1 was recorded by another phone at ") and ": a draw." in refused
    assert [d.number for d in deals()] == [1]
    ok(at.button(key="manual.add_to_match").click().run())  # told: the hand now goes in as deal 2
    assert [(d.number, d.winner) for d in deals()] == [(1, None), (2, "Bob")]


def test_a_hand_under_eight_fan_is_refused():
    at = manual_hand(start_match(open_page(app())), "123m 456m 789p 234s 5s +5s", discarder_seat="S")
    at.button(key="manual.add_to_match").click().run()
    assert not at.exception, at.exception
    assert any(shown(e).startswith("Not added: 5 fan (5 without the flowers) is under the 8-fan minimum")
               for e in at.error), [shown(e) for e in at.error]
    assert deals() == []


def test_add_to_match_in_chinese():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["lang"] = "zh"
    at = manual_hand(at.run(), EAST_PUNG, discarder_seat="W")
    (button,) = [b for b in at.button if b.key == "manual.add_to_match"]
    assert button.label == "记入对局"
    button.click().run()
    assert [shown(e) for e in at.error] == ["没有打开的对局：请先在“对局记分”页开始或选择一局，再记入这手牌。"]
