"""Streamlit AppTest of the manual scorer page."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scoring import parse_hand, score
from scoring.payments import payments

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60


def start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("appui/pages/manual.py").run()  # the app opens on the photo page
    assert not at.exception, at.exception
    return at


def load(at: AppTest, text: str) -> AppTest:
    at.text_input(key="manual.notation").input(text).run()
    at.button(key="manual.load").click().run()
    assert not at.exception, at.exception
    return at


def total_shown(at: AppTest) -> int:
    (metric,) = [m for m in at.metric if m.label in ("Total", "总番")]
    return int(metric.value)


def table_rows(at: AppTest, index: int) -> list[dict]:
    return at.table[index].value.to_dict("records")


HAND = "[123m] [EEE] 456p 78s 11s +9s seat=S prevalent=W"


def test_notation_hand_shows_its_total_fans_and_payments():
    at = load(start(), HAND)
    expected = score(parse_hand(HAND))
    assert total_shown(at) == expected.total
    fans = table_rows(at, 0)
    assert [row["No."] for row in fans] == [fc.fan.id for fc in expected.fans]
    assert {row["English"] for row in fans} == {fc.fan.name_en for fc in expected.fans}
    assert {row["Chinese"] for row in fans} == {fc.fan.name_zh for fc in expected.fans}
    pay = {row["Seat"][0]: int(row["Amount"]) for row in table_rows(at, len(at.table) - 1)}
    assert pay == payments(expected.total, False, "S", "E")  # discarder defaults to the first other seat
    assert sum(pay.values()) == 0 and pay["S"] > 0


def test_palette_clicks_score_the_same_as_the_notation():
    at = start()
    clicks = [("chow", "1m"), ("pung", "E")] + [("standing", n) for n in ("4p", "5p", "6p", "7s", "8s", "1s", "1s")]
    clicks.append(("win", "9s"))
    for target, name in clicks:
        at.segmented_control(key="manual.target").set_value(target).run()
        at.button(key=f"manual.pal.{name}").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert total_shown(at) == score(parse_hand("[123m] [EEE] 456p78s11s +9s")).total


def test_self_drawn_changes_the_score():
    concealed = "123m 456m 789m 234p 5s +5s"
    at = load(start(), concealed)
    on_discard = total_shown(at)
    at.segmented_control(key="manual.won_by").set_value("self_drawn").run()
    drawn = total_shown(at)
    assert on_discard == score(parse_hand(concealed)).total
    assert drawn == score(parse_hand(concealed + " self-drawn")).total
    assert drawn != on_discard


def test_flowers_and_last_tile_change_the_total():
    at = load(start(), HAND)
    base = total_shown(at)
    at.number_input(key="manual.flowers").set_value(3).run()
    assert total_shown(at) == base + 3
    at.checkbox(key="manual.last_of_wall").check().run()
    assert total_shown(at) == score(parse_hand(HAND + " flowers=3 last-of-wall")).total > base + 3


def test_impossible_flags_are_disabled_with_the_reason():
    at = load(start(), HAND)
    kong = at.checkbox(key="manual.kong_replacement")
    assert kong.disabled and "kong" in kong.help.lower()
    at.segmented_control(key="manual.won_by").set_value("self_drawn").run()
    robbing = at.checkbox(key="manual.robbing_kong")
    assert robbing.disabled and "self-drawn" in robbing.help
    assert not at.checkbox(key="manual.last_tile").disabled


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("11m +", "winning tile"),
        ("11111m 23p 456p 789p +1p", "5 times"),
        ("123m 456m 789m 123p 5s +6s", "not"),
        ("12x +3m", "unknown tile character"),
    ],
)
def test_bad_input_gives_a_message_not_a_traceback(text, message):
    at = load(start(), text)
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_palette_refuses_a_fifth_copy():
    at = start()
    at.segmented_control(key="manual.target").set_value("kong").run()
    at.button(key="manual.pal.5m").click().run()
    at.segmented_control(key="manual.target").set_value("standing").run()
    at.button(key="manual.pal.5m").click().run()
    assert any("only 4 of 5m" in e.value for e in at.error)


def test_chinese_switch_translates_labels_and_keeps_the_hand():
    at = load(start(), HAND)
    total = total_shown(at)
    at.segmented_control(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == "手动算番"
    assert total_shown(at) == total
    assert "中文" in table_rows(at, 0)[0]


def test_thirteen_tiles_show_the_waits_with_their_scores():
    from scoring.waits import waits

    at = start()
    at.segmented_control(key="manual.target").set_value("pung").run()
    at.button(key="manual.pal.E").click().run()
    at.segmented_control(key="manual.target").set_value("standing").run()
    for name in ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1s", "1s"):
        at.button(key=f"manual.pal.{name}").click().run()
    rows = table_rows(at, 0)
    hand = parse_hand("[EEE] 123m456p78s11s +9s")
    expected = waits(hand.melds, hand.concealed, hand.context)
    assert [r["Tile"].split()[-1] for r in rows] == [str(w.tile) for w in expected] == ["6s", "9s"]
    assert [int(r["On a discard"]) for r in rows] == [w.discard.total for w in expected]


def test_won_by_unanswered_asks_for_it_instead_of_a_traceback():
    at = load(start(), HAND)
    at.segmented_control(key="manual.won_by").set_value(None).run()  # was AttributeError: 'NoneType' ... 'flowers'
    assert not at.exception, at.exception
    assert not at.metric
    assert any("How was it won?" in i.value for i in at.info)
