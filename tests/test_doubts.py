"""The doubts that matter (appui.doubts), for the photo and the live page: a tile is doubted when a face it
may be changes the total or the hand's shape, a flower never; the one-tap faces come from the tile's group."""

import pytest

from appui.correction import Reading
from appui.doubts import doubt_text, fix_choices, open_doubts, outcome, tile_doubts
from scoring import WinContext, parse_hand, score
from scoring.notation import parse_tiles
from tileset.classes import FLOWER_NAMES
from vision.issues import IssueCode, ReaderIssue

SELF_DRAWN = WinContext(self_drawn=True)
STANDING = "23m789m123p789p99s"  # won on 1m: Outside Hand and Two Terminal Chows; on 4m neither


def reading(standing, win=None, flowers=(), sure=0.99, **tile):
    """A standing row, a winning tile set apart and flowers, as the reader gives them; `tile` (index -> dict)
    overrides what tile `index` was read as (conf, votes, alternatives)."""
    tiles = [{"cls": str(c), "group": "hand", "xyxy": [45.0 * i, 100.0, 45.0 * i + 40, 160.0], "conf": sure}
             for i, c in enumerate(parse_tiles(standing))]
    if win is not None:
        tiles.append({"cls": win, "group": "win", "xyxy": [700.0, 100.0, 740.0, 160.0], "conf": sure})
    tiles += [{"cls": f, "group": "flowers", "xyxy": [45.0 * i, 10.0, 45.0 * i + 40, 60.0], "conf": sure}
              for i, f in enumerate(flowers)]
    for index, changes in tile.get("tiles", {}).items():
        tiles[index] = {**tiles[index], **changes}
    return Reading.from_tiles(tiles)


def total(notation):
    return score(parse_hand(notation)).total


def test_the_winning_tile_the_frames_disagree_on_is_the_doubt_with_the_total_it_would_give():
    """The issue's hand: a self-drawn win, four flowers, the winning 4m read as 1m in most frames (17 instead of
    12); a flower read unsurely beside it is no doubt (its face changes nothing)."""
    hand = reading(STANDING, "1m", FLOWER_NAMES[:4], tiles={
        13: {"conf": 0.57, "votes": [["1m", 3], ["4m", 2]], "alternatives": ["4m"]},
        15: {"conf": 0.3, "votes": [["f2", 2], ["s3", 2]], "alternatives": ["s3", "1m"]},
    })
    wrong, right = total(f"{STANDING} +1m self-drawn flowers=4"), total(f"{STANDING} +4m self-drawn flowers=4")
    assert (wrong, right) == (17, 12)
    (doubt,) = tile_doubts(hand, SELF_DRAWN)
    assert (doubt.index, doubt.read_as, doubt.group, doubt.change) == (13, "1m", "win", right - wrong)
    assert doubt.now.total == wrong and doubt.could_be[0].face == "4m" and doubt.could_be[0].outcome.total == right
    assert doubt_text(doubt, "en") == ("Check the 1 character 一万 (winning tile), read so in 3 of 5 frames: "
                                       "as 4 characters 四万 the total is 12 (-5).")
    assert doubt_text(doubt, "zh") == "请检查和牌张的一万, 5 帧中 3 帧如此识别: 若是四万, 总番 12 (-5)。"


def test_a_flowers_fix_offers_flowers_the_frames_reading_first():
    hand = reading(STANDING, "1m", FLOWER_NAMES[:4], tiles={15: {"alternatives": ["s3", "1m"]}})
    choices = fix_choices(hand, 15, SELF_DRAWN, limit=4)
    assert choices == ["s3", "f1", "f3", "f4"] and all(c in FLOWER_NAMES for c in choices)
    assert set(fix_choices(hand, 15, SELF_DRAWN, limit=10)) == set(FLOWER_NAMES) - {"f2"}


def test_a_hand_tiles_fix_offers_what_it_may_be_then_the_faces_that_make_it_win():
    hand = reading(STANDING, "1m", tiles={13: {"alternatives": ["7m"]}})
    assert fix_choices(hand, 13, WinContext(), limit=4) == ["7m", "4m"]  # 7m breaks the win but the frames read it


def test_a_face_that_breaks_a_winning_hand_is_no_doubt_the_hands_shape_confirms_the_tile():
    hand = reading(STANDING, "1m", tiles={4: {"conf": 0.4, "alternatives": ["8p"]}})  # the 9m of 789m as 8p
    assert outcome(hand, WinContext()).wins and tile_doubts(hand, WinContext()) == []


def test_an_unsure_tile_with_no_face_known_is_doubted_by_the_faces_that_make_the_hand_win():
    hand = reading(STANDING, "1m", tiles={13: {"conf": 0.3}})
    (doubt,) = tile_doubts(hand, WinContext())
    assert [a.face for a in doubt.could_be] == ["4m"] and doubt.change == (total(f"{STANDING} +4m")
                                                                        - total(f"{STANDING} +1m"))
    pair = reading(STANDING, "1m", tiles={11: {"conf": 0.3}})  # a 9s of the pair: no other face wins
    assert tile_doubts(pair, WinContext()) == []


def test_on_a_ready_row_a_face_that_changes_the_waits_is_the_doubt():
    ready = reading("1234m456p789sEEE", tiles={12: {"conf": 0.4, "alternatives": ["S"]}})
    (doubt,) = tile_doubts(ready, WinContext())
    assert doubt.now.waits == ("1m", "4m") and doubt.could_be[0].outcome.shanten == 1
    assert doubt_text(doubt, "en") == "Check the East wind 东 (standing): as South wind 南 it is 1 from ready."
    unknown = reading("1234m456p789sEEE", tiles={0: {"conf": 0.4}})  # no other face known: it is to be checked
    (doubt,) = tile_doubts(unknown, WinContext())
    assert doubt.could_be == () and doubt_text(doubt, "en") == "The reader is unsure of the 1 character 一万 (standing): check it."
    same_waits = reading("1234m456p789sEEE", tiles={9: {"conf": 0.4, "alternatives": ["6s"]}})
    assert tile_doubts(same_waits, WinContext()) == []  # 9s or 6s, 789s or 678s: the same waits


@pytest.mark.parametrize("group", ["flowers", "unplaced"])
def test_a_tile_in_the_flowers_row_or_set_aside_is_never_a_doubt(group):
    hand = reading(STANDING, "1m", ["f1"], tiles={14: {"group": group, "conf": 0.1, "votes": [["f1", 1], ["4m", 1]],
                                                        "alternatives": ["4m"]}})
    assert tile_doubts(hand, SELF_DRAWN) == []


def test_a_fixed_tile_is_no_longer_doubted():
    hand = reading(STANDING, "1m", tiles={13: {"conf": 0.3, "alternatives": ["4m"]}})
    assert tile_doubts(hand.with_face(13, "4m"), WinContext()) == []


def test_open_doubts_lists_an_issue_once_and_settles_the_ones_no_face_changes():
    hand = reading(STANDING, "1m", tiles={13: {"conf": 0.3}, 11: {"conf": 0.3}})
    win = ReaderIssue(IssueCode.LOW_CONFIDENCE, (13,), {"name": "1m", "x": 720.0, "y": 130.0, "conf": 0.3})
    pair = ReaderIssue(IssueCode.LOW_CONFIDENCE, (11,), {"name": "9s", "x": 515.0, "y": 130.0, "conf": 0.3})
    apart = ReaderIssue(IssueCode.WIN_NOT_SET_APART, (), {"name": "9s", "x": 515.0, "y": 130.0})
    open_, settled = open_doubts(hand, hand, [win, win, pair, apart, apart])
    assert [(n, issue) for n, issue, _ in open_] == [(0, win), (3, apart)] and settled == [pair]
    fixed = hand.with_face(13, "4m")
    assert open_doubts(hand, fixed, [win, apart]) == ([], [])


def test_an_issue_about_the_layout_makes_no_tile_unsure_and_stays_open_until_its_tiles_are_fixed():
    from appui.doubts import face_doubted

    hand = reading(STANDING, "1m")
    group = ReaderIssue(IssueCode.GROUP_NOT_SET, (0, 1), {"shown": "2m 3m"})
    assert face_doubted(hand, [group]) == () and tile_doubts(hand, WinContext(), face_doubted(hand, [group])) == []
    assert [issue for _, issue, _ in open_doubts(hand, hand, [group])[0]] == [group]
    fixed = hand.with_face(0, "1m").with_face(1, "2m")
    assert open_doubts(hand, fixed, [group]) == ([], [])
