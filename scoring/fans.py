"""The 81 fans of the Chinese Official rules: the only place they are listed.

Each row: id (the numbering of the rules text), points, Chinese and English
names (as in `fans.tsv`) and the ids of the fans it excludes (不计).  The
exclusions are data: `scorer.apply_exclusions` applies them in one generic
pass.  The comment beside a row quotes the rulebook's 不计 list; where the
reference calculator (ChineseOfficialMahjongHelper, which the project follows)
excludes more, the extra ids are marked "ref".

Exclusions between the set-combination fans of one hand (pairs and triples
of chows or pungs) are NOT listed here: they follow the account-once rule
(套算一次), which `scoring.combinations.account_once` implements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum


class FanId(IntEnum):
    """The 81 fan ids (the numbering of the rules text): other modules name fans by these, never by number."""

    BIG_FOUR_WINDS = 1
    BIG_THREE_DRAGONS = 2
    ALL_GREEN = 3
    NINE_GATES = 4
    FOUR_KONGS = 5
    SEVEN_SHIFTED_PAIRS = 6
    THIRTEEN_ORPHANS = 7
    ALL_TERMINALS = 8
    LITTLE_FOUR_WINDS = 9
    LITTLE_THREE_DRAGONS = 10
    ALL_HONORS = 11
    FOUR_CONCEALED_PUNGS = 12
    PURE_TERMINAL_CHOWS = 13
    QUADRUPLE_CHOW = 14
    FOUR_PURE_SHIFTED_PUNGS = 15
    FOUR_PURE_SHIFTED_CHOWS = 16
    THREE_KONGS = 17
    ALL_TERMINALS_AND_HONORS = 18
    SEVEN_PAIRS = 19
    GREATER_HONORS_AND_KNITTED_TILES = 20
    ALL_EVEN_PUNGS = 21
    FULL_FLUSH = 22
    PURE_TRIPLE_CHOW = 23
    PURE_SHIFTED_PUNGS = 24
    UPPER_TILES = 25
    MIDDLE_TILES = 26
    LOWER_TILES = 27
    PURE_STRAIGHT = 28
    THREE_SUITED_TERMINAL_CHOWS = 29
    PURE_SHIFTED_CHOWS = 30
    ALL_FIVES = 31
    TRIPLE_PUNG = 32
    THREE_CONCEALED_PUNGS = 33
    LESSER_HONORS_AND_KNITTED_TILES = 34
    KNITTED_STRAIGHT = 35
    UPPER_FOUR = 36
    LOWER_FOUR = 37
    BIG_THREE_WINDS = 38
    MIXED_STRAIGHT = 39
    REVERSIBLE_TILES = 40
    MIXED_TRIPLE_CHOW = 41
    MIXED_SHIFTED_PUNGS = 42
    CHICKEN_HAND = 43
    LAST_TILE_DRAW = 44
    LAST_TILE_CLAIM = 45
    OUT_WITH_REPLACEMENT_TILE = 46
    ROBBING_THE_KONG = 47
    ALL_PUNGS = 48
    HALF_FLUSH = 49
    MIXED_SHIFTED_CHOWS = 50
    ALL_TYPES = 51
    MELDED_HAND = 52
    TWO_CONCEALED_KONGS = 53
    TWO_DRAGON_PUNGS = 54
    OUTSIDE_HAND = 55
    FULLY_CONCEALED_HAND = 56
    TWO_MELDED_KONGS = 57
    LAST_TILE = 58
    DRAGON_PUNG = 59
    PREVALENT_WIND = 60
    SEAT_WIND = 61
    CONCEALED_HAND = 62
    ALL_CHOWS = 63
    TILE_HOG = 64
    DOUBLE_PUNG = 65
    TWO_CONCEALED_PUNGS = 66
    CONCEALED_KONG = 67
    ALL_SIMPLES = 68
    PURE_DOUBLE_CHOW = 69
    MIXED_DOUBLE_CHOW = 70
    SHORT_STRAIGHT = 71
    TWO_TERMINAL_CHOWS = 72
    PUNG_OF_TERMINALS_OR_HONORS = 73
    MELDED_KONG = 74
    ONE_VOIDED_SUIT = 75
    NO_HONORS = 76
    EDGE_WAIT = 77
    CLOSED_WAIT = 78
    SINGLE_WAIT = 79
    SELF_DRAWN = 80
    FLOWER_TILES = 81


@dataclass(frozen=True, slots=True)
class Fan:
    id: FanId
    points: int
    name_zh: str
    name_en: str
    excludes: frozenset[int]

    def __str__(self) -> str:
        return f"{self.name_en} ({self.name_zh}, {self.points})"


def _fan(id: FanId, points: int, name_zh: str, name_en: str, *excludes: int) -> Fan:
    """A row of the table; `excludes` are ids in the rulebook's numbering, as its 不计 lists quote them."""
    return Fan(id, points, name_zh, name_en, frozenset(FanId(e) for e in excludes))


F = FanId  # short, for the table
FANS: tuple[Fan, ...] = (
    # 88 points
    _fan(F.BIG_FOUR_WINDS, 88, "大四喜", "Big Four Winds", 38, 48, 60, 61, 73),  # 不计圈风刻、门风刻、三风刻、碰碰和; ref: 幺九刻
    _fan(F.BIG_THREE_DRAGONS, 88, "大三元", "Big Three Dragons", 54, 59),  # 不计箭刻; ref: 双箭刻
    _fan(F.ALL_GREEN, 88, "绿一色", "All Green", 49, 75),  # 不计混一色; ref: 缺一门
    _fan(F.NINE_GATES, 88, "九莲宝灯", "Nine Gates", 22, 56, 62, 76, 79),  # 不计清一色; ref: 不求人、门前清、无字、单钓将
    _fan(F.FOUR_KONGS, 88, "四杠", "Four Kongs", 17, 48, 53, 57, 67, 74, 79),  # ref: 三杠、碰碰和、双暗杠、双明杠、暗杠、明杠、单钓将
    _fan(F.SEVEN_SHIFTED_PAIRS, 88, "连七对", "Seven Shifted Pairs", 19, 22, 56, 62, 76, 79),  # 不计清一色、不求人、单钓; ref: 七对、门前清、无字
    _fan(F.THIRTEEN_ORPHANS, 88, "十三幺", "Thirteen Orphans", 18, 51, 56, 62, 79),  # 不计五门齐、不求人、单钓; ref: 混幺九、门前清
    # 64 points
    _fan(F.ALL_TERMINALS, 64, "清幺九", "All Terminals", 18, 48, 55, 65, 73, 76),  # 不计碰碰和、同刻、无字; ref: 混幺九、全带幺、幺九刻
    _fan(F.LITTLE_FOUR_WINDS, 64, "小四喜", "Little Four Winds", 38, 73),  # 不计三风刻; ref: 幺九刻
    _fan(F.LITTLE_THREE_DRAGONS, 64, "小三元", "Little Three Dragons", 54, 59),  # 不计箭刻; ref: 双箭刻
    _fan(F.ALL_HONORS, 64, "字一色", "All Honors", 18, 48, 55, 73, 75),  # 不计碰碰和; ref: 混幺九、全带幺、幺九刻、缺一门
    _fan(F.FOUR_CONCEALED_PUNGS, 64, "四暗刻", "Four Concealed Pungs", 48, 56, 62),  # 不计门前清、碰碰和; ref: 不求人 (自摸 still counts)
    _fan(F.PURE_TERMINAL_CHOWS, 64, "一色双龙会", "Pure Terminal Chows", 19, 22, 63, 69, 72, 76),  # 不计平和、七对、清一色; ref: 一般高、老少副、无字
    # 48 points
    _fan(F.QUADRUPLE_CHOW, 48, "一色四同顺", "Quadruple Chow", 23, 24, 64, 69),  # 不计一色三节高、一般高、四归一; ref: 一色三同顺
    _fan(F.FOUR_PURE_SHIFTED_PUNGS, 48, "一色四节高", "Four Pure Shifted Pungs", 23, 24, 48),  # 不计一色三同顺、碰碰和; ref: 一色三节高
    # 32 points
    _fan(F.FOUR_PURE_SHIFTED_CHOWS, 32, "一色四步高", "Four Pure Shifted Chows", 30, 69, 71, 72),  # ref: 一色三步高、一般高、连六、老少副
    _fan(F.THREE_KONGS, 32, "三杠", "Three Kongs", 53, 57, 67, 74),  # ref: 双暗杠、双明杠、暗杠、明杠
    _fan(F.ALL_TERMINALS_AND_HONORS, 32, "混幺九", "All Terminals and Honors", 48, 55, 73),  # 不计碰碰和; ref: 全带幺、幺九刻
    # 24 points
    _fan(F.SEVEN_PAIRS, 24, "七对", "Seven Pairs", 56, 62, 79),  # 不计不求人、单钓; ref: 门前清
    # 不计五门齐、不求人、单钓; ref: 全不靠、门前清
    _fan(F.GREATER_HONORS_AND_KNITTED_TILES, 24, "七星不靠", "Greater Honors and Knitted Tiles", 34, 51, 56, 62, 79),
    _fan(F.ALL_EVEN_PUNGS, 24, "全双刻", "All Even Pungs", 48, 68, 76),  # 不计碰碰和、断幺; ref: 无字
    _fan(F.FULL_FLUSH, 24, "清一色", "Full Flush", 76),  # 不计无字
    _fan(F.PURE_TRIPLE_CHOW, 24, "一色三同顺", "Pure Triple Chow", 24),  # 不计一色三节高
    _fan(F.PURE_SHIFTED_PUNGS, 24, "一色三节高", "Pure Shifted Pungs"),  # 不计一色三同顺 (listed on 23: never both in one reading)
    _fan(F.UPPER_TILES, 24, "全大", "Upper Tiles", 36, 76),  # 不计无字; ref: 大于五
    _fan(F.MIDDLE_TILES, 24, "全中", "Middle Tiles", 68, 76),  # 不计断幺; ref: 无字
    _fan(F.LOWER_TILES, 24, "全小", "Lower Tiles", 37, 76),  # 不计无字; ref: 小于五
    # 16 points
    _fan(F.PURE_STRAIGHT, 16, "清龙", "Pure Straight"),
    _fan(F.THREE_SUITED_TERMINAL_CHOWS, 16, "三色双龙会", "Three-Suited Terminal Chows", 63, 70, 72, 76),  # 不计喜相逢、老少副、无字、平和
    _fan(F.PURE_SHIFTED_CHOWS, 16, "一色三步高", "Pure Shifted Chows"),
    _fan(F.ALL_FIVES, 16, "全带五", "All Fives", 68, 76),  # 不计断幺; ref: 无字
    _fan(F.TRIPLE_PUNG, 16, "三同刻", "Triple Pung"),
    _fan(F.THREE_CONCEALED_PUNGS, 16, "三暗刻", "Three Concealed Pungs"),
    # 12 points
    _fan(F.LESSER_HONORS_AND_KNITTED_TILES, 12, "全不靠", "Lesser Honors and Knitted Tiles", 51, 56, 62, 79),  # 不计五门齐、不求人、单钓; ref: 门前清
    _fan(F.KNITTED_STRAIGHT, 12, "组合龙", "Knitted Straight"),
    _fan(F.UPPER_FOUR, 12, "大于五", "Upper Four", 76),  # 不计无字
    _fan(F.LOWER_FOUR, 12, "小于五", "Lower Four", 76),  # 不计无字
    _fan(F.BIG_THREE_WINDS, 12, "三风刻", "Big Three Winds"),  # its three wind pungs are not Pungs of Terminals or Honors
    # 8 points
    _fan(F.MIXED_STRAIGHT, 8, "花龙", "Mixed Straight"),
    _fan(F.REVERSIBLE_TILES, 8, "推不倒", "Reversible Tiles", 75),  # 不计缺一门
    _fan(F.MIXED_TRIPLE_CHOW, 8, "三色三同顺", "Mixed Triple Chow"),
    _fan(F.MIXED_SHIFTED_PUNGS, 8, "三色三节高", "Mixed Shifted Pungs"),
    _fan(F.CHICKEN_HAND, 8, "无番和", "Chicken Hand"),  # only when no other fan (flowers aside)
    _fan(F.LAST_TILE_DRAW, 8, "妙手回春", "Last Tile Draw", 80),  # 不计自摸
    _fan(F.LAST_TILE_CLAIM, 8, "海底捞月", "Last Tile Claim"),
    _fan(F.OUT_WITH_REPLACEMENT_TILE, 8, "杠上开花", "Out with Replacement Tile", 80),  # 不计自摸
    _fan(F.ROBBING_THE_KONG, 8, "抢杠和", "Robbing the Kong", 58),  # 不计和绝张
    # 6 points
    _fan(F.ALL_PUNGS, 6, "碰碰和", "All Pungs"),
    _fan(F.HALF_FLUSH, 6, "混一色", "Half Flush"),
    _fan(F.MIXED_SHIFTED_CHOWS, 6, "三色三步高", "Mixed Shifted Chows"),
    _fan(F.ALL_TYPES, 6, "五门齐", "All Types"),
    _fan(F.MELDED_HAND, 6, "全求人", "Melded Hand", 79),  # 不计单钓
    _fan(F.TWO_CONCEALED_KONGS, 6, "双暗杠", "Two Concealed Kongs", 66, 67),  # ref: 暗杠、双暗刻
    _fan(F.TWO_DRAGON_PUNGS, 6, "双箭刻", "Two Dragon Pungs", 59),  # ref: 箭刻
    # 4 points
    _fan(F.OUTSIDE_HAND, 4, "全带幺", "Outside Hand"),
    _fan(F.FULLY_CONCEALED_HAND, 4, "不求人", "Fully Concealed Hand", 80),  # ref: 自摸
    _fan(F.TWO_MELDED_KONGS, 4, "双明杠", "Two Melded Kongs", 74),  # ref: 明杠
    _fan(F.LAST_TILE, 4, "和绝张", "Last Tile"),
    # 2 points
    _fan(F.DRAGON_PUNG, 2, "箭刻", "Dragon Pung"),
    _fan(F.PREVALENT_WIND, 2, "圈风刻", "Prevalent Wind"),  # its pung is not a Pung of Terminals or Honors
    _fan(F.SEAT_WIND, 2, "门风刻", "Seat Wind"),  # its pung is not a Pung of Terminals or Honors
    _fan(F.CONCEALED_HAND, 2, "门前清", "Concealed Hand"),
    _fan(F.ALL_CHOWS, 2, "平和", "All Chows", 76),  # ref: 无字
    _fan(F.TILE_HOG, 2, "四归一", "Tile Hog"),
    _fan(F.DOUBLE_PUNG, 2, "双同刻", "Double Pung"),
    _fan(F.TWO_CONCEALED_PUNGS, 2, "双暗刻", "Two Concealed Pungs"),
    _fan(F.CONCEALED_KONG, 2, "暗杠", "Concealed Kong"),
    _fan(F.ALL_SIMPLES, 2, "断幺", "All Simples", 76),  # ref: 无字
    # 1 point
    _fan(F.PURE_DOUBLE_CHOW, 1, "一般高", "Pure Double Chow"),
    _fan(F.MIXED_DOUBLE_CHOW, 1, "喜相逢", "Mixed Double Chow"),
    _fan(F.SHORT_STRAIGHT, 1, "连六", "Short Straight"),
    _fan(F.TWO_TERMINAL_CHOWS, 1, "老少副", "Two Terminal Chows"),
    _fan(F.PUNG_OF_TERMINALS_OR_HONORS, 1, "幺九刻", "Pung of Terminals or Honors"),
    _fan(F.MELDED_KONG, 1, "明杠", "Melded Kong"),
    _fan(F.ONE_VOIDED_SUIT, 1, "缺一门", "One Voided Suit"),
    _fan(F.NO_HONORS, 1, "无字", "No Honors"),
    _fan(F.EDGE_WAIT, 1, "边张", "Edge Wait", 78, 79),  # ref: at most one of 边张、坎张、单钓将
    _fan(F.CLOSED_WAIT, 1, "坎张", "Closed Wait", 79),  # ref: at most one of 边张、坎张、单钓将
    _fan(F.SINGLE_WAIT, 1, "单钓将", "Single Wait"),
    _fan(F.SELF_DRAWN, 1, "自摸", "Self-Drawn"),
    _fan(F.FLOWER_TILES, 1, "花牌", "Flower Tiles"),  # 不计在起和分内 (never towards the 8-point minimum)
)

FAN: dict[int, Fan] = {f.id: f for f in FANS}  # by id (a FanId or its number)
FAN_BY_NAME: dict[str, Fan] = {f.name_en: f for f in FANS}

MINIMUM_POINTS = 8  # 八番起和
FLOWER_FAN_ID = FanId.FLOWER_TILES
CHICKEN_HAND_ID = FanId.CHICKEN_HAND


def _check_table() -> None:
    assert len(FANS) == 81 and all(f.id == i + 1 for i, f in enumerate(FANS)), "fan ids must be 1..81 in order"
    for f in FANS:  # FanId names the same fan as the row
        assert f.id.name == re.sub(r"[^A-Z0-9]+", "_", f.name_en.upper()).strip("_"), f"{f.id!r} is not {f.name_en}"
    for f in FANS:
        # exclusions always go to a later (never higher-valued) fan: one pass in id order applies them
        assert all(e > f.id for e in f.excludes), f"{f.name_en} excludes an earlier fan"


_check_table()
