"""The manual scorer's hand under construction (appui.draft): each click, its limits, the hand it makes."""

import pytest

from appui.draft import Draft, Target
from scoring.hand import HandError, MeldKind, WinContext
from scoring.notation import parse_hand
from scoring.tiles import Tile

T = Tile.parse


def build(clicks: list[tuple[str, Target]]) -> Draft:
    draft = Draft()
    for name, target in clicks:
        draft = draft.add(T(name), target)
    return draft


def test_clicks_build_the_same_hand_as_the_notation():
    clicks = [("1m", Target.CHOW), ("E", Target.PUNG), ("5p", Target.CONCEALED_KONG)]
    clicks += [(n, Target.STANDING) for n in ("7s", "8s", "1p", "1p")] + [("9s", Target.WIN)]
    hand = build(clicks).to_hand(WinContext(self_drawn=True))
    expected = parse_hand("[123m] [EEE] (5555p) 78s11p +9s self-drawn")
    assert hand == expected


@pytest.mark.parametrize(
    ("clicks", "message"),
    [
        ([("8s", Target.CHOW)], "cannot start at 8s"),
        ([("E", Target.CHOW)], "cannot start at E"),
        ([("5m", Target.KONG), ("5m", Target.STANDING)], "only 4 of 5m"),
        ([("5m", Target.PUNG), ("5m", Target.STANDING), ("5m", Target.WIN)], "only 4 of 5m"),
        ([(n, Target.PUNG) for n in ("1m", "2m", "3m", "4m", "5m")], "at most 4 melds"),
    ],
)
def test_impossible_clicks_are_refused_with_a_reason(clicks, message):
    with pytest.raises(HandError, match=message):
        build(clicks)


def test_the_standing_hand_has_room_for_13_minus_3_per_meld():
    draft = build([("E", Target.PUNG)])
    assert draft.standing_needed == 10
    for name in ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p"):
        draft = draft.add(T(name), Target.STANDING)
    with pytest.raises(HandError, match="standing hand is full"):
        draft.add(T("2p"), Target.STANDING)
    with pytest.raises(HandError, match="no room for another meld"):
        draft.add(T("S"), Target.PUNG)


def test_missing_says_what_is_needed_before_scoring():
    assert Draft().missing() == "need_win"
    assert build([("1m", Target.WIN)]).missing() == "need_more"
    with pytest.raises(HandError, match="winning tile"):
        Draft().to_hand(WinContext())


def test_removing_tiles_melds_and_the_winning_tile():
    draft = build([("1m", Target.CHOW), ("E", Target.STANDING), ("S", Target.STANDING), ("9s", Target.WIN)])
    assert draft.without_standing(0).standing == (T("S"),)
    assert draft.without_meld(0).melds == ()
    assert draft.without_win().win_tile is None
    assert build([("C", Target.KONG)]).melds[0].kind is MeldKind.KONG


def test_from_hand_round_trips():
    hand = parse_hand("[123m] [EEE] (5555p) 78s11p +9s")
    assert Draft.from_hand(hand).to_hand(hand.context) == hand
