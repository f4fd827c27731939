"""Golden hands: one per fan, with every fan it scores and every fan excluded (and by which fan).

The expected fans were checked against the reference calculator (pymahjonggb); the
exclusions are the rulebook's 不计 lists as `fans.py` states them.  Also: the account-once
examples of the rulebook, the 8-point minimum, flowers, contradictory flags, and errors.
"""

from __future__ import annotations

import pytest

from scoring import FAN, FANS, HandError, NotWinningHand, parse_hand, score
from scoring.codes import code
from scoring.combinations import COMBINATION_FANS, chow_fans, pung_fans
from scoring.scorer import apply_exclusions
from scoring.tiles import Tile

# (fan id, hand, {fan id: count} scored, {excluded fan id: id of the fan that excluded it})
GOLDEN = [
    (1, "[EEE] [SSS] WWW NNN 5m +5m", {1: 1, 49: 1, 66: 1, 79: 1}, {38: 1, 48: 1, 60: 1, 61: 1}),
    (2, "[CCC] [FFF] PPP 234m 5m +5m", {2: 1, 49: 1}, {54: 2, 59: 2}),
    (3, "[234s] [666s] FFF 88s 23s +4s", {3: 1, 59: 1, 69: 1}, {49: 3}),
    (4, "1112345678999m +5m", {4: 1, 66: 1, 73: 1}, {22: 4, 62: 4, 76: 4}),
    (5, "[1111m] [2222p] [EEEE] (CCCC) 9s +9s", {5: 1, 51: 1, 59: 1, 60: 1, 61: 1, 73: 1}, {48: 5, 57: 5, 67: 5, 74: 5, 79: 5}),
    (6, "1122334455667s +7s", {6: 1}, {19: 6, 22: 6, 62: 6, 76: 6}),
    (7, "19m19p19sESWNCFP +P", {7: 1}, {18: 7, 51: 7, 62: 7}),
    (8, "[111m] [999p] 111s 999s 9m +9m", {8: 1, 66: 1, 79: 1}, {18: 8, 48: 8, 55: 8, 65: 8, 73: 8, 76: 8}),
    (9, "[EEE] [SSS] WWW 123m N +N", {9: 1, 49: 1, 55: 1, 60: 1, 61: 1, 79: 1}, {38: 9}),
    (10, "[CCC] [FFF] 123m 456m P +P", {10: 1, 49: 1, 71: 1, 79: 1}, {54: 10, 59: 10}),
    (11, "[EEE] [SSS] CCC FFF P +P", {10: 1, 11: 1, 60: 1, 61: 1, 66: 1, 79: 1}, {18: 11, 48: 11, 54: 10, 55: 11, 59: 10, 73: 11}),
    (12, "111m 333p 555s EEE 9s +9s self-drawn", {12: 1, 60: 1, 61: 1, 73: 1, 79: 1, 80: 1}, {48: 12, 56: 12}),
    (13, "1122335778899s +5s", {13: 1, 62: 1, 79: 1}, {22: 13, 63: 13, 69: 13, 72: 13, 76: 13}),
    (14, "[234p] [234p] 234p 234p 5s +5s", {14: 1, 40: 1, 63: 1, 68: 1, 79: 1}, {23: 14, 64: 14, 69: 14, 75: 40, 76: 63}),
    (15, "[333s] [444s] 555s 666s 9p +9p", {15: 1, 66: 1, 75: 1, 76: 1, 79: 1}, {24: 15, 48: 15}),
    (16, "[123m] [234m] 345m 456m 9p +9p", {16: 1, 63: 1, 75: 1, 79: 1}, {30: 16, 71: 16, 76: 63}),
    (17, "[1111m] [5555p] (EEEE) 234s 6p +6p", {17: 1, 60: 1, 61: 1, 73: 1, 79: 1}, {57: 17, 67: 17, 74: 17}),
    (18, "[111m] [999s] EEE CC 99p +C", {18: 1, 51: 1, 59: 1, 60: 1, 61: 1}, {48: 18, 55: 18, 73: 18}),
    (19, "1133m557799p22sE +E", {19: 1}, {62: 19}),
    (20, "147m25p36sESWNCF +P", {20: 1}, {51: 20, 62: 20}),
    (21, "[222m] [444p] 666s 888s 2p +2p", {21: 1, 66: 1, 79: 1}, {48: 21, 68: 21, 76: 21}),
    (22, "[123m] [456m] 567m 99m 34m +2m", {22: 1, 63: 1, 71: 2}, {76: 22}),
    (23, "[234p] [234p] 234p 789s 5m +5m", {23: 1, 63: 1, 79: 1}, {69: 23, 76: 63}),
    (24, "[222s] [333s] 444s 678m 5p +5p", {24: 1, 68: 1, 79: 1}, {76: 68}),
    (25, "[789m] [888p] 789s 99s 77p +7p", {25: 1, 70: 1}, {36: 25, 76: 25}),
    (26, "[456m] [555p] 456s 66s 44p +4p", {26: 1, 70: 1}, {68: 26, 76: 26}),
    (27, "[123m] [222p] 123s 33s 11p +1p", {27: 1, 70: 1, 73: 1}, {37: 27, 76: 27}),
    (28, "[123p] [456p] 789p EE 45s +6s", {28: 1, 70: 1, 75: 1}, {71: 28, 72: 28}),
    (29, "[123m] [789m] 123p 789p 5s +5s", {29: 1, 79: 1}, {63: 29, 70: 29, 72: 29, 76: 29}),
    (30, "[123s] [234s] 345s 789m 5p +5p", {30: 1, 63: 1, 79: 1}, {76: 63}),
    (31, "[456m] [555p] 345s 55s 46m +5m", {31: 1, 69: 1, 78: 1}, {68: 31, 76: 31}),
    (32, "[333m] [333p] 333s 678m 9p +9p", {32: 1, 76: 1, 79: 1}, {65: 32}),
    (33, "[234m] 555p 777s 999m 1p +1p", {33: 1, 73: 1, 76: 1, 79: 1}, {}),
    (34, "147m258s36pESWNC +F", {34: 1}, {51: 34, 62: 34}),
    (35, "147m258s369p123m5p +5p", {35: 1, 62: 1, 63: 1, 79: 1}, {76: 63}),
    (36, "[678m] [666p] 789s 99s 78p +9p", {36: 1, 70: 1}, {76: 36}),
    (37, "[234m] [444p] 123s 11s 23p +4p", {37: 1, 58: 1, 64: 1, 70: 1}, {76: 37}),
    (38, "[EEE] [SSS] WWW 234m 5p +5p seat=N prevalent=N", {38: 1, 75: 1, 79: 1}, {}),
    (39, "[123m] [456p] 789s EE 23p +4p", {39: 1}, {}),
    (40, "[234p] [888p] 456s PP 99s +9s", {40: 1, 73: 1}, {75: 40}),
    (41, "[234m] [234p] 234s 789m 5p +5p", {41: 1, 63: 1, 79: 1}, {70: 41, 76: 63}),
    (42, "[222m] [333p] 444s 678m 5p +5p", {42: 1, 68: 1, 79: 1}, {76: 68}),
    (43, "[123m] [789p] [345s] EE 67m +5m", {43: 1}, {}),
    (44, "[123m] [789p] [345s] EE 67m +5m self-drawn last-of-wall", {44: 1}, {80: 44}),
    (45, "[123m] [789p] [345s] EE 67m +5m last-of-wall", {45: 1}, {}),
    (46, "[1111m] [789p] [345s] EE 67m +5m self-drawn kong-replacement", {46: 1, 73: 1, 74: 1}, {80: 46}),
    (47, "[123m] [789p] [345s] EE 67m +5m last-tile robbing-kong", {47: 1}, {58: 47}),
    (48, "[222m] [555p] 888s EEE 9p +9p", {48: 1, 60: 1, 61: 1, 66: 1, 79: 1}, {}),
    (49, "[123m] [345m] 777m EE 99m +E", {49: 1, 60: 1, 61: 1}, {}),
    (50, "[123m] [234p] 345s 789m 5p +5p", {50: 1, 63: 1, 72: 1, 79: 1}, {76: 63}),
    (51, "[123m] [456p] 789s EEE C +C", {39: 1, 51: 1, 60: 1, 61: 1, 79: 1}, {}),
    (52, "[123m] [456p] [789s] [EEE] C +C", {39: 1, 51: 1, 52: 1, 60: 1, 61: 1}, {79: 52}),
    (53, "(1111m) (5555p) 234s 678s 9p +9p", {53: 1, 62: 1, 73: 1, 76: 1, 79: 1}, {66: 53, 67: 53}),
    (54, "[CCC] [FFF] 123m 456p 9s +9s", {54: 1, 79: 1}, {59: 54}),
    (55, "[123m] [789p] 111s 99s 12m +3m", {55: 1, 69: 1, 73: 1, 76: 1, 77: 1}, {}),
    (56, "123m 456p 789s 234s 5p +5p self-drawn", {39: 1, 56: 1, 63: 1, 78: 1}, {76: 63, 79: 78, 80: 56}),
    (57, "[1111m] [5555p] 234s 678s 9p +9p", {57: 1, 73: 1, 76: 1, 79: 1}, {74: 57}),
    (58, "[123m] [789p] [345s] EE 67m +5m last-tile", {58: 1}, {}),
    (59, "[CCC] [123m] 456p 789s 5s +5s", {39: 1, 59: 1, 79: 1}, {}),
    (60, "[SSS] [123m] 456p 789s 5s +5s seat=N prevalent=S", {39: 1, 60: 1, 79: 1}, {}),
    (61, "[SSS] [123m] 456p 789s 5s +5s seat=S prevalent=N", {39: 1, 61: 1, 79: 1}, {}),
    (62, "123m 456p 789s 234s 5p +5p", {39: 1, 62: 1, 63: 1, 78: 1}, {76: 63, 79: 78}),
    (63, "[123m] [456p] 789s 234s 5p +5p", {39: 1, 63: 1, 79: 1}, {76: 63}),
    (64, "[123m] [345m] 333p 789s 3m +3m", {64: 1, 76: 1, 79: 1}, {}),
    (65, "[222m] [222p] 345s 678s 9p +9p", {65: 1, 71: 1, 76: 1, 79: 1}, {}),
    (66, "[123m] [456p] 777s 999p 5m +5m", {66: 1, 73: 1, 76: 1, 79: 1}, {}),
    (67, "(1111m) [456p] 234s 678s 9p +9p", {67: 1, 73: 1, 76: 1, 79: 1}, {}),
    (68, "[234m] [456p] 678s 345s 8p +8p", {50: 1, 63: 1, 68: 1, 71: 1, 79: 1}, {76: 63}),
    (69, "[123m] [123m] 456p 789s 5s +5s", {39: 1, 63: 1, 69: 1, 79: 1}, {76: 63}),
    (70, "[123m] [123p] 567s 999s E +E", {70: 1, 73: 1, 79: 1}, {}),
    (71, "[123m] [456m] 789p 111s E +E", {71: 1, 73: 1, 79: 1}, {}),
    (72, "[123m] [789m] 456p 111s E +E", {72: 1, 73: 1, 79: 1}, {}),
    (73, "[111m] [456p] 789s 234s E +E", {73: 1, 79: 1}, {}),
    (74, "[5555p] [123m] 789s 234s E +E", {74: 1, 79: 1}, {}),
    (75, "[123m] [456m] 789p 234p E +E", {71: 1, 75: 1, 79: 1}, {}),
    (76, "[123m] [456p] [678s] 999s 5p +5p", {73: 1, 76: 1, 79: 1}, {}),
    (77, "[123m] [456p] [678s] 1233p +3p", {63: 1, 70: 1, 71: 1, 77: 1}, {76: 63, 79: 77}),
    (78, "[123m] [456p] [678s] 1223p +2p", {63: 1, 70: 1, 71: 1, 78: 1}, {76: 63, 79: 78}),
    (79, "[123m] [456p] [678s] 234s E +E", {79: 1}, {}),
    (80, "[123m] [789p] [345s] EE 67m +5m self-drawn", {80: 1}, {}),
    (81, "[123m] [789p] [345s] EE 67m +5m flowers=3", {43: 1, 81: 3}, {}),
]


def test_golden_table_covers_every_fan() -> None:
    assert [row[0] for row in GOLDEN] == [f.id for f in FANS]


@pytest.mark.parametrize(("fan_id", "text", "fans", "excluded"), GOLDEN, ids=[f"fan{r[0]}" for r in GOLDEN])
def test_golden_hand(fan_id: int, text: str, fans: dict[int, int], excluded: dict[int, int]) -> None:
    result = score(parse_hand(text))
    assert fan_id in fans
    assert {fc.fan.id: fc.count for fc in result.fans} == fans
    assert {x.fan.id: x.excluded_by.id for x in result.excluded} == excluded
    assert result.total == sum(FAN[f].points * n for f, n in fans.items())
    for excluded_id, by in excluded.items():
        # excluded by the table, or taken in by a larger fan of the same sets (account-once)
        assert excluded_id in FAN[by].excludes or {excluded_id, by} <= COMBINATION_FANS


def _mids(text: str) -> list[int]:
    """'234s 567p' -> sorted middle-tile codes of those chows."""
    mids = []
    for chow in text.split():
        mids.append(code(Tile.suited(int(chow[1]), chow[-1])))
    return sorted(mids)


# 套算一次 / 不得相同: the rulebook's examples
@pytest.mark.parametrize(
    ("chows", "allowed"),
    [
        # 234567s234567p: Mixed Double Chow x2 + Short Straight x1, or x1 + x2, never x2 + x2
        ("234s 567s 234p 567p", ({70: 2, 71: 1}, {70: 1, 71: 2})),
        # 234s223344567p: Pure Double Chow + Mixed Double Chow + Short Straight, not Mixed Double Chow x2
        ("234s 234p 234p 567p", ({69: 1, 70: 1, 71: 1},)),
        # a three-chow fan takes its chows; the fourth combines once, the most valuable way
        ("123m 456m 789m 123p", ({28: 1, 70: 1},)),
        ("123m 456m 789m 123m", ({28: 1, 69: 1},)),
        # a four-chow fan takes all four: nothing else among them
        ("234m 234m 234m 234m", ({14: 1},)),
        ("123s 234s 345s 456s", ({16: 1},)),
        # two unrelated pairs of chows: each counts
        ("123m 123p 567s 567s", ({69: 1, 70: 1},)),
        # a chow related to none lowers the allowance
        ("123m 123p 123s 789s", ({41: 1, 72: 1},)),
    ],
)
def test_account_once_chows(chows: str, allowed: tuple[dict[int, int], ...]) -> None:
    assert chow_fans(_mids(chows)) in allowed


def test_account_once_in_a_whole_hand() -> None:
    result = score(parse_hand("[234s] [567s] [234p] 567p E +E"))
    counts = {fc.fan.id: fc.count for fc in result.fans}
    assert (counts.get(70), counts.get(71)) in ((2, 1), (1, 2))


def test_account_once_pungs() -> None:
    tiles = sorted(code(Tile.parse(t)) for t in ("2m", "2p", "2s", "4m"))
    assert pung_fans(tiles) == {32: 1}  # Triple Pung: the fourth pung makes no Double Pung with them
    tiles = sorted(code(Tile.parse(t)) for t in ("1m", "2m", "3m", "2p"))
    assert pung_fans(tiles) == {24: 1, 65: 1}  # the fourth pung combines once


def test_exclusions_are_not_transitive() -> None:
    # Four Concealed Pungs excludes Fully Concealed Hand, which would have excluded Self-Drawn: Self-Drawn stays
    kept, excluded = apply_exclusions({12: 1, 56: 1, 80: 1})
    assert kept == {12: 1, 80: 1}
    assert excluded == [(56, 12)]


def test_flowers_never_count_towards_the_minimum() -> None:
    result = score(parse_hand("[123m] [456p] [678s] 234s E +E flowers=8"))
    assert result.total == 9  # Single Wait 1 + 8 flowers
    assert not result.meets_minimum


def test_chicken_hand_meets_the_minimum() -> None:
    result = score(parse_hand("[123m] [789p] [345s] EE 67m +5m"))
    assert result.meets_minimum and result.total == 8


@pytest.mark.parametrize(
    ("text", "ignored_fan", "word"),
    [
        ("[123m] [789p] [345s] EE 55m +5m last-tile", 58, "last-tile"),
        ("[123m] [789p] [345s] EE 67m +5m kong-replacement", 47, "kong-replacement"),
        ("[123m] [789p] [345s] EE 67m +5m self-drawn kong-replacement", 46, "kong-replacement"),
        ("[123m] [789p] [345s] EE 67m +5m self-drawn robbing-kong", 47, "robbing-kong"),
        ("[123m] [789p] [345s] 55m 67m +5m robbing-kong", 47, "robbing-kong"),
    ],
)
def test_contradictory_flags_are_ignored_with_a_warning(text: str, ignored_fan: int, word: str) -> None:
    result = score(parse_hand(text))
    assert ignored_fan not in {fc.fan.id for fc in result.fans}
    assert len(result.warnings) == 1 and result.warnings[0].startswith(f"{word} ignored")


def test_last_tile_when_the_other_three_are_in_the_melds() -> None:
    result = score(parse_hand("[123m] [345m] [234m] EE 12m +3m"))
    assert 58 in {fc.fan.id for fc in result.fans} and not result.warnings
    result = score(parse_hand("[123m] [345m] [789m] EE 12m +3m"))
    assert 58 not in {fc.fan.id for fc in result.fans}


def test_not_a_winning_hand() -> None:
    with pytest.raises(NotWinningHand, match="not a winning hand"):
        score(parse_hand("123m 456p 789s 234s 5p +6p"))
    assert issubclass(NotWinningHand, HandError)


def test_result_names_the_reading_and_json_shape() -> None:
    result = score(parse_hand("[123m] [EEE] 456p 789s 1s +1s"))
    assert result.decomposition == "[123m] [EEE] 456p 789s 11s"
    data = result.to_json()
    assert set(data) == {"total", "meets_minimum", "fans", "warnings", "excluded", "decomposition"}
    assert set(data["fans"][0]) == {"id", "name_en", "name_zh", "points", "count"}
    assert data["total"] == sum(f["points"] * f["count"] for f in data["fans"])
    assert score(parse_hand("1133m557799p22sE +E")).decomposition.startswith("seven pairs: 11m 33m")


def test_a_claimed_tile_makes_its_pung_exposed() -> None:
    discard = score(parse_hand("[123m] 555p 777s 99m 11p +1p"))
    self_drawn = score(parse_hand("[123m] 555p 777s 99m 11p +1p self-drawn"))
    assert 66 in {fc.fan.id for fc in discard.fans}  # 555p 777s; 111p was completed by the discard
    assert 33 in {fc.fan.id for fc in self_drawn.fans}


def test_concealed_and_melded_kong_score_both() -> None:
    result = score(parse_hand("(1111m) [5555p] 234s 678s 9p +9p"))
    counts = {fc.fan.id: fc.count for fc in result.fans}
    assert counts[67] == 1 and counts[74] == 1


# Tie-break between readings of equal points (the reference's): the first reading in the
# divider's order, unless a later one holds Pure Triple Chow or Triple Pung.
@pytest.mark.parametrize(
    ("text", "reading", "fan_ids"),
    [
        # 123m 345m 678m 678m 99m (Short Straight) ties with 123m 345m 789m 789m 66m (Two Terminal Chows): first kept
        ("1233566778899m +4m self-drawn", "123m 345m 678m 678m 99m", [22, 56, 63, 69, 71, 78]),
        # 567m 678m 678m 678m 11m (Pure Triple Chow) beats 567m 666m 777m 888m 11m (Pure Shifted Pungs), 56 each
        ("1156666777788m +8m", "567m 678m 678m 678m 11m", [22, 23, 62, 63, 64]),
    ],
)
def test_tie_break_between_readings(text: str, reading: str, fan_ids: list[int]) -> None:
    result = score(parse_hand(text))
    assert result.decomposition == reading
    assert [fc.fan.id for fc in result.fans] == fan_ids


@pytest.mark.parametrize(
    ("text", "shape_fan"),
    [
        ("1133m557799p22sE +E self-drawn", 19),
        ("19m19p19sESWNCFP +P self-drawn", 7),
        ("147m25p36sESWNCF +P self-drawn", 20),
        ("147m258s36pESWNC +F self-drawn", 34),
        ("1122334455667s +7s self-drawn", 6),
    ],
)
def test_concealed_special_hands_self_drawn_get_self_drawn_not_fully_concealed(text: str, shape_fan: int) -> None:
    result = score(parse_hand(text))
    fans = {fc.fan.id for fc in result.fans}
    assert shape_fan in fans and 80 in fans and 56 not in fans
    assert {(x.fan.id, x.excluded_by.id) for x in result.excluded} >= {(56, shape_fan)}


def test_lesser_honors_and_knitted_tiles_stack_with_knitted_straight() -> None:
    result = score(parse_hand("147m258s369pESWN +C"))
    assert {fc.fan.id for fc in result.fans} == {34, 35}
