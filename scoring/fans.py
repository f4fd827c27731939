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

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fan:
    id: int
    points: int
    name_zh: str
    name_en: str
    excludes: frozenset[int]

    def __str__(self) -> str:
        return f"{self.name_en} ({self.name_zh}, {self.points})"


def _fan(id: int, points: int, name_zh: str, name_en: str, *excludes: int) -> Fan:
    return Fan(id, points, name_zh, name_en, frozenset(excludes))


FANS: tuple[Fan, ...] = (
    # 88 points
    _fan(1, 88, "大四喜", "Big Four Winds", 38, 48, 60, 61, 73),  # 不计圈风刻、门风刻、三风刻、碰碰和; ref: 幺九刻
    _fan(2, 88, "大三元", "Big Three Dragons", 54, 59),  # 不计箭刻; ref: 双箭刻
    _fan(3, 88, "绿一色", "All Green", 49, 75),  # 不计混一色; ref: 缺一门
    _fan(4, 88, "九莲宝灯", "Nine Gates", 22, 56, 62, 76, 79),  # 不计清一色; ref: 不求人、门前清、无字、单钓将
    _fan(5, 88, "四杠", "Four Kongs", 17, 48, 53, 57, 67, 74, 79),  # ref: 三杠、碰碰和、双暗杠、双明杠、暗杠、明杠、单钓将
    _fan(6, 88, "连七对", "Seven Shifted Pairs", 19, 22, 56, 62, 76, 79),  # 不计清一色、不求人、单钓; ref: 七对、门前清、无字
    _fan(7, 88, "十三幺", "Thirteen Orphans", 18, 51, 56, 62, 79),  # 不计五门齐、不求人、单钓; ref: 混幺九、门前清
    # 64 points
    _fan(8, 64, "清幺九", "All Terminals", 18, 48, 55, 65, 73, 76),  # 不计碰碰和、同刻、无字; ref: 混幺九、全带幺、幺九刻
    _fan(9, 64, "小四喜", "Little Four Winds", 38, 73),  # 不计三风刻; ref: 幺九刻
    _fan(10, 64, "小三元", "Little Three Dragons", 54, 59),  # 不计箭刻; ref: 双箭刻
    _fan(11, 64, "字一色", "All Honors", 18, 48, 55, 73, 75),  # 不计碰碰和; ref: 混幺九、全带幺、幺九刻、缺一门
    _fan(12, 64, "四暗刻", "Four Concealed Pungs", 48, 56, 62),  # 不计门前清、碰碰和; ref: 不求人 (自摸 still counts)
    _fan(13, 64, "一色双龙会", "Pure Terminal Chows", 19, 22, 63, 69, 72, 76),  # 不计平和、七对、清一色; ref: 一般高、老少副、无字
    # 48 points
    _fan(14, 48, "一色四同顺", "Quadruple Chow", 23, 24, 64, 69),  # 不计一色三节高、一般高、四归一; ref: 一色三同顺
    _fan(15, 48, "一色四节高", "Four Pure Shifted Pungs", 23, 24, 48),  # 不计一色三同顺、碰碰和; ref: 一色三节高
    # 32 points
    _fan(16, 32, "一色四步高", "Four Pure Shifted Chows", 30, 69, 71, 72),  # ref: 一色三步高、一般高、连六、老少副
    _fan(17, 32, "三杠", "Three Kongs", 53, 57, 67, 74),  # ref: 双暗杠、双明杠、暗杠、明杠
    _fan(18, 32, "混幺九", "All Terminals and Honors", 48, 55, 73),  # 不计碰碰和; ref: 全带幺、幺九刻
    # 24 points
    _fan(19, 24, "七对", "Seven Pairs", 56, 62, 79),  # 不计不求人、单钓; ref: 门前清
    _fan(20, 24, "七星不靠", "Greater Honors and Knitted Tiles", 34, 51, 56, 62, 79),  # 不计五门齐、不求人、单钓; ref: 全不靠、门前清
    _fan(21, 24, "全双刻", "All Even Pungs", 48, 68, 76),  # 不计碰碰和、断幺; ref: 无字
    _fan(22, 24, "清一色", "Full Flush", 76),  # 不计无字
    _fan(23, 24, "一色三同顺", "Pure Triple Chow", 24),  # 不计一色三节高
    _fan(24, 24, "一色三节高", "Pure Shifted Pungs"),  # 不计一色三同顺 (listed on 23: never both in one reading)
    _fan(25, 24, "全大", "Upper Tiles", 36, 76),  # 不计无字; ref: 大于五
    _fan(26, 24, "全中", "Middle Tiles", 68, 76),  # 不计断幺; ref: 无字
    _fan(27, 24, "全小", "Lower Tiles", 37, 76),  # 不计无字; ref: 小于五
    # 16 points
    _fan(28, 16, "清龙", "Pure Straight"),
    _fan(29, 16, "三色双龙会", "Three-Suited Terminal Chows", 63, 70, 72, 76),  # 不计喜相逢、老少副、无字、平和
    _fan(30, 16, "一色三步高", "Pure Shifted Chows"),
    _fan(31, 16, "全带五", "All Fives", 68, 76),  # 不计断幺; ref: 无字
    _fan(32, 16, "三同刻", "Triple Pung"),
    _fan(33, 16, "三暗刻", "Three Concealed Pungs"),
    # 12 points
    _fan(34, 12, "全不靠", "Lesser Honors and Knitted Tiles", 51, 56, 62, 79),  # 不计五门齐、不求人、单钓; ref: 门前清
    _fan(35, 12, "组合龙", "Knitted Straight"),
    _fan(36, 12, "大于五", "Upper Four", 76),  # 不计无字
    _fan(37, 12, "小于五", "Lower Four", 76),  # 不计无字
    _fan(38, 12, "三风刻", "Big Three Winds"),  # its three wind pungs are not Pungs of Terminals or Honors
    # 8 points
    _fan(39, 8, "花龙", "Mixed Straight"),
    _fan(40, 8, "推不倒", "Reversible Tiles", 75),  # 不计缺一门
    _fan(41, 8, "三色三同顺", "Mixed Triple Chow"),
    _fan(42, 8, "三色三节高", "Mixed Shifted Pungs"),
    _fan(43, 8, "无番和", "Chicken Hand"),  # only when no other fan (flowers aside)
    _fan(44, 8, "妙手回春", "Last Tile Draw", 80),  # 不计自摸
    _fan(45, 8, "海底捞月", "Last Tile Claim"),
    _fan(46, 8, "杠上开花", "Out with Replacement Tile", 80),  # 不计自摸
    _fan(47, 8, "抢杠和", "Robbing the Kong", 58),  # 不计和绝张
    # 6 points
    _fan(48, 6, "碰碰和", "All Pungs"),
    _fan(49, 6, "混一色", "Half Flush"),
    _fan(50, 6, "三色三步高", "Mixed Shifted Chows"),
    _fan(51, 6, "五门齐", "All Types"),
    _fan(52, 6, "全求人", "Melded Hand", 79),  # 不计单钓
    _fan(53, 6, "双暗杠", "Two Concealed Kongs", 66, 67),  # ref: 暗杠、双暗刻
    _fan(54, 6, "双箭刻", "Two Dragon Pungs", 59),  # ref: 箭刻
    # 4 points
    _fan(55, 4, "全带幺", "Outside Hand"),
    _fan(56, 4, "不求人", "Fully Concealed Hand", 80),  # ref: 自摸
    _fan(57, 4, "双明杠", "Two Melded Kongs", 74),  # ref: 明杠
    _fan(58, 4, "和绝张", "Last Tile"),
    # 2 points
    _fan(59, 2, "箭刻", "Dragon Pung"),
    _fan(60, 2, "圈风刻", "Prevalent Wind"),  # its pung is not a Pung of Terminals or Honors
    _fan(61, 2, "门风刻", "Seat Wind"),  # its pung is not a Pung of Terminals or Honors
    _fan(62, 2, "门前清", "Concealed Hand"),
    _fan(63, 2, "平和", "All Chows", 76),  # ref: 无字
    _fan(64, 2, "四归一", "Tile Hog"),
    _fan(65, 2, "双同刻", "Double Pung"),
    _fan(66, 2, "双暗刻", "Two Concealed Pungs"),
    _fan(67, 2, "暗杠", "Concealed Kong"),
    _fan(68, 2, "断幺", "All Simples", 76),  # ref: 无字
    # 1 point
    _fan(69, 1, "一般高", "Pure Double Chow"),
    _fan(70, 1, "喜相逢", "Mixed Double Chow"),
    _fan(71, 1, "连六", "Short Straight"),
    _fan(72, 1, "老少副", "Two Terminal Chows"),
    _fan(73, 1, "幺九刻", "Pung of Terminals or Honors"),
    _fan(74, 1, "明杠", "Melded Kong"),
    _fan(75, 1, "缺一门", "One Voided Suit"),
    _fan(76, 1, "无字", "No Honors"),
    _fan(77, 1, "边张", "Edge Wait", 78, 79),  # ref: at most one of 边张、坎张、单钓将
    _fan(78, 1, "坎张", "Closed Wait", 79),  # ref: at most one of 边张、坎张、单钓将
    _fan(79, 1, "单钓将", "Single Wait"),
    _fan(80, 1, "自摸", "Self-Drawn"),
    _fan(81, 1, "花牌", "Flower Tiles"),  # 不计在起和分内 (never towards the 8-point minimum)
)

FAN: dict[int, Fan] = {f.id: f for f in FANS}
FAN_BY_NAME: dict[str, Fan] = {f.name_en: f for f in FANS}

MINIMUM_POINTS = 8  # 八番起和
FLOWER_FAN_ID = 81
CHICKEN_HAND_ID = 43


def _check_table() -> None:
    assert len(FANS) == 81 and all(f.id == i + 1 for i, f in enumerate(FANS)), "fan ids must be 1..81 in order"
    for f in FANS:
        # exclusions always go to a later (never higher-valued) fan: one pass in id order applies them
        assert all(e > f.id for e in f.excludes), f"{f.name_en} excludes an earlier fan"


_check_table()
