"""The match ledger's logic: a whole 16-deal match worked out by hand, seat changes, table points, edits."""

from __future__ import annotations

import pytest

from ledger.exchange import deal_from_json, ledger_from_json, ledger_to_csv, ledger_to_json
from ledger.match import (
    DealTaken,
    LedgerError,
    Match,
    Result,
    build_ledger,
    check_next,
    draw,
    false_win,
    penalty,
    void,
    win,
    without_deal,
)
from ledger.rules import SeatRule, seat_winds, table_points
from scoring.notation import parse_hand

PLAYERS = ("Ann", "Bob", "Cat", "Dan")  # starting places E S W N
# Pure Straight 16, All Chows 2, Single Wait 1 = 19 on a discard (+1 self-drawn, +1 per flower).
STRAIGHT = "[123m] [456m] 789m 234p 5s +5s"
# Pure Straight 16, One Voided Suit 1, Single Wait 1, plus the pung of East: Prevalent Wind 2 and/or
# Seat Wind 2 when East is that wind, else Pung of Terminals or Honors 1.
EAST_PUNG = "[EEE] [123p] 456p 789p 1s +1s"


def hand(text: str):
    return parse_hand(text).to_json()


def play_match(match: Match) -> list:
    m = match
    return [
        win(m, 1, "Ann", discarder="Cat", hand=hand(EAST_PUNG)),  # Ann dealer: seat E, prevalent E: 16+2+2+1+1 = 22
        draw(2),
        win(m, 3, "Bob", hand=hand(EAST_PUNG + " self-drawn")),  # Bob seat N, prevalent E: 16+2+1+1+1 = 21
        win(m, 4, "Dan", discarder="Ann", total=8),  # scored on paper
        win(m, 5, "Cat", discarder="Bob", hand=hand(STRAIGHT + " flowers=2")),  # 19 + 2 flowers = 21
        void(6),  # Dan's false win: the table declared the deal void (FALSE_WINS)
        win(m, 7, "Ann", discarder="Dan", hand=hand(EAST_PUNG)),  # Ann seat N, prevalent S: 16+1+1+1 = 19
        draw(8),
        win(m, 9, "Cat", hand=hand(EAST_PUNG + " self-drawn")),  # Cat dealer, prevalent W: 16+2+1+1+1 = 21
        win(m, 10, "Dan", total=12),  # self-drawn on paper
        win(m, 11, "Bob", discarder="Ann", hand=hand(STRAIGHT)),  # 19
        draw(12),
        win(m, 13, "Ann", hand=hand(STRAIGHT + " self-drawn")),  # 20
        win(m, 14, "Dan", discarder="Cat", hand=hand(EAST_PUNG)),  # Dan seat N, prevalent N: 19
        draw(15),
        win(m, 16, "Dan", discarder="Bob", total=18),
    ]


def false_wins(match: Match) -> list:
    return [false_win(match, 6, "Dan")]  # the usual penalty: 10 to each other player


# deal: (prevalent, dealer, seat winds Ann Bob Cat Dan, points Ann Bob Cat Dan, totals Ann Bob Cat Dan)
EXPECTED = {
    1: ("E", "Ann", "ESWN", (46, -8, -30, -8), (46, -8, -30, -8)),
    2: ("E", "Bob", "NESW", (0, 0, 0, 0), (46, -8, -30, -8)),
    3: ("E", "Cat", "WNES", (-29, 87, -29, -29), (17, 79, -59, -37)),
    4: ("E", "Dan", "SWNE", (-16, -8, -8, 32), (1, 71, -67, -5)),
    # South round: East and South swap places, West and North swap places.
    5: ("S", "Bob", "SENW", (-8, -29, 45, -8), (-7, 42, -22, -13)),
    6: ("S", "Ann", "ENWS", (10, 10, 10, -30), (3, 52, -12, -43)),
    7: ("S", "Dan", "NWSE", (43, -8, -8, -27), (46, 44, -20, -70)),
    8: ("S", "Cat", "WSEN", (0, 0, 0, 0), (46, 44, -20, -70)),
    # West round: Ann sits North, Bob West, Cat East, Dan South.
    9: ("W", "Cat", "NWES", (-29, -29, 87, -29), (17, 15, 67, -99)),
    10: ("W", "Dan", "WSNE", (-20, -20, -20, 60), (-3, -5, 47, -39)),
    11: ("W", "Bob", "SEWN", (-27, 43, -8, -8), (-30, 38, 39, -47)),
    12: ("W", "Ann", "ENSW", (0, 0, 0, 0), (-30, 38, 39, -47)),
    # North round: Ann sits West, Bob North, Cat South, Dan East.
    13: ("N", "Dan", "WNSE", (84, -28, -28, -28), (54, 10, 11, -75)),
    14: ("N", "Cat", "SWEN", (-8, -8, -27, 43), (46, 2, -16, -32)),
    15: ("N", "Ann", "ESNW", (0, 0, 0, 0), (46, 2, -16, -32)),
    16: ("N", "Bob", "NEWS", (-8, -26, -8, 42), (38, -24, -24, 10)),
}
FAN_TOTALS = {1: 22, 3: 21, 4: 8, 5: 21, 7: 19, 9: 21, 10: 12, 11: 19, 13: 20, 14: 19, 16: 18}


def test_full_match_by_hand():
    match = Match(PLAYERS).validate()
    deals = play_match(match)
    ledger = build_ledger(match, deals, false_wins(match))
    assert len(ledger.rows) == 16 and ledger.finished and ledger.next_deal is None
    assert ledger.rows[5].penalties == (false_win(match, 6, "Dan"),) and not ledger.pending
    for row in ledger.rows:
        prevalent, dealer, winds, points, totals = EXPECTED[row.deal.number]
        assert row.prevalent_wind == prevalent, row.deal.number
        assert row.dealer == dealer, row.deal.number
        assert "".join(row.seat_winds) == winds, row.deal.number
        assert row.points == points, row.deal.number
        assert row.totals == totals, row.deal.number
        assert sum(row.points) == 0 and sum(row.totals) == 0
        if row.deal.result is Result.WIN:
            assert row.deal.total == FAN_TOTALS[row.deal.number]
    # each player is dealer exactly once per round
    for r in range(4):
        assert sorted(row.dealer for row in ledger.rows[4 * r: 4 * r + 4]) == sorted(PLAYERS)
    # the ledger wrote the deal's winds into each stored hand
    assert ledger.rows[0].deal.hand["seat_wind"] == "E" and ledger.rows[2].deal.hand["seat_wind"] == "N"
    assert ledger.rows[13].deal.hand["prevalent_wind"] == "N" and ledger.rows[2].deal.hand["self_drawn"] is True
    standings = ledger.standings()
    assert [(s.player, s.points, s.rank, s.table_points) for s in standings] == [
        ("Ann", 38, 1, 4.0), ("Dan", 10, 2, 2.0), ("Bob", -24, 3, 0.5), ("Cat", -24, 3, 0.5),
    ]


def test_official_seat_changes_follow_the_green_book_moves():
    # place (seat wind in the round's first deal) of each starting player, round by round
    places = [seat_winds(1 + 4 * r, SeatRule.OFFICIAL) for r in range(4)]
    assert places == [("E", "S", "W", "N"), ("S", "E", "N", "W"), ("N", "W", "E", "S"), ("W", "N", "S", "E")]
    swap_es_wn = {"E": "S", "S": "E", "W": "N", "N": "W"}
    after_south = {"E": "W", "W": "S", "S": "N", "N": "E"}
    for before, after, move in zip(places, places[1:], (swap_es_wn, after_south, swap_es_wn), strict=False):
        assert tuple(move[p] for p in before) == after
    for player in range(4):  # every player sits in every place once and opens one round as dealer
        assert sorted(round_places[player] for round_places in places) == ["E", "N", "S", "W"]


def test_no_seat_change_setting_keeps_places():
    match = Match(PLAYERS, seat_rule=SeatRule.NONE).validate()
    assert [match.dealer(n) for n in range(1, 17)] == list(PLAYERS) * 4
    assert match.seat_winds(5) == ("E", "S", "W", "N")


@pytest.mark.parametrize(
    "points, shares",
    [
        ((40, 10, -20, -30), (4, 2, 1, 0)),
        ((30, 30, -20, -40), (3, 3, 1, 0)),  # two tied first: (4+2)/2 each
        ((30, 10, 10, -50), (4, 1.5, 1.5, 0)),
        ((0, 0, 0, 0), (1.75, 1.75, 1.75, 1.75)),
        ((-10, 30, -10, -10), (1, 4, 1, 1)),  # three tied second: (2+1+0)/3 each
    ],
)
def test_table_points_share_ties(points, shares):
    assert table_points(points) == pytest.approx(shares)
    assert sum(table_points(points)) == pytest.approx(7)


def test_editing_a_past_deal_recomputes_everything_after_it():
    match = Match(PLAYERS).validate()
    deals = play_match(match)
    before = build_ledger(match, deals, false_wins(match))
    deals[1] = void(2)  # deal 2 was a draw: Bob's false win, the deal void; Bob pays 10 to each
    after = build_ledger(match, deals, [*false_wins(match), false_win(match, 2, "Bob")])
    assert after.rows[0] == before.rows[0]
    for old, new in zip(before.rows[1:], after.rows[1:], strict=False):
        assert tuple(n - o for o, n in zip(old.totals, new.totals, strict=False)) == (10, -30, 10, 10)
    undone = build_ledger(match, play_match(match)[:-1], false_wins(match))  # undo the last deal
    assert undone.next_deal == 16 and undone.totals == (46, 2, -16, -32)


def test_penalties_are_entries_of_their_own_and_a_false_win_deal_goes_on():
    match = Match(PLAYERS).validate()
    # deal 2: Cat declares a false win; the table lets the deal go on and Ann wins it on Bob's discard
    pending = build_ledger(match, [draw(1)], [false_win(match, 2, "Cat")])
    assert pending.next_deal == 2 and pending.totals == (10, 10, -30, 10) and len(pending.pending) == 1
    slow = penalty(match, 2, "Dan", 5, "slow play")  # taken off Dan, paid to nobody
    ledger = build_ledger(match, [draw(1), win(match, 2, "Ann", discarder="Bob", total=8)],
                          [false_win(match, 2, "Cat"), slow])
    assert ledger.rows[1].penalties == (false_win(match, 2, "Cat"), slow) and not ledger.pending
    assert ledger.rows[1].points == (10 + 32, 10 - 16, -30 - 8, 10 - 8 - 5)
    assert ledger.totals == ledger.rows[1].totals and sum(ledger.totals) == -5
    assert [s.player for s in ledger.standings()] == ["Ann", "Dan", "Bob", "Cat"]
    with pytest.raises(LedgerError, match="a penalty in deal 4, but only 2 deals are recorded"):
        build_ledger(match, [draw(1), draw(2)], [penalty(match, 4, "Ann", 5)])


def test_a_deal_recorded_by_mistake_is_taken_out_and_the_later_ones_move_up():
    match = Match(PLAYERS).validate()
    deals = without_deal(match, play_match(match), 2)  # deal 2's draw never happened
    assert [d.number for d in deals] == list(range(1, 16))
    ledger = build_ledger(match, deals)
    # Bob's self-drawn East pung is now deal 2, where Bob deals (seat East): 16+2+2+1+1+1 = 23, 31 from each
    assert ledger.rows[1].deal.total == 23 and ledger.rows[1].deal.hand["seat_wind"] == "E"
    assert ledger.rows[1].points == (-31, 93, -31, -31)
    assert ledger.rows[1].totals == (15, 85, -61, -39)
    # a hand that made 8 only with its seat wind no longer scores after the move: refused, naming the deal
    tight = hand("[EEE] 111m999p234s5s +5s")  # seat East: 2+2+2+1+1 = 8; seat South: 6
    played = [draw(1), draw(2), win(match, 3, "Cat", discarder="Ann", hand=tight)]  # Cat deals deal 3
    assert played[2].total == 8
    with pytest.raises(LedgerError, match="deal 2: the hand scores 6 fan under the 8-fan minimum"):
        without_deal(match, played, 1)
    with pytest.raises(LedgerError, match="deal 4 is not recorded"):
        without_deal(match, played, 4)


def test_export_import_round_trip_and_csv():
    match = Match(PLAYERS, name="club night", table="3").validate()
    ledger = build_ledger(match, play_match(match), false_wins(match), uid="m-1")
    data = ledger_to_json(ledger)
    again = ledger_from_json(data)
    assert again.match == match and again.rows == ledger.rows and again.uid == "m-1" and again.finished
    csv_text = ledger_to_csv(ledger)
    assert csv_text.startswith("\ufeffdeal,")  # the byte-order mark: a spreadsheet reads UTF-8
    lines = csv_text[1:].strip().splitlines()
    assert len(lines) == 17
    assert lines[0].startswith("deal,prevalent_wind,dealer,result,winner,discarder,self_drawn,fan,penalties,Ann seat,")
    assert lines[1] == "1,E,Ann,win,Ann,Cat,,22,,E,46,46,S,-8,-8,W,-30,-30,N,-8,-8"
    assert lines[6] == '6,S,Ann,void,,,,,"Dan: false win (诈和), 10 to each other player",E,10,3,N,10,52,W,10,-12,S,-30,-43'


def test_csv_cells_that_look_like_formulas_stay_text():
    import csv
    import io

    match = Match(("=1+1", "+Bob", "@Cat", "-Dan")).validate()
    ledger = build_ledger(match, [win(match, 1, "=1+1", total=8)], [penalty(match, 2, "-Dan", 5, "=HYPERLINK(1)")])
    rows = list(csv.reader(io.StringIO(ledger_to_csv(ledger)[1:])))
    assert rows[0][9:12] == ["'=1+1 seat", "'=1+1 points", "'=1+1 total"] and rows[0][12] == "'+Bob seat"
    assert rows[1][4] == "'=1+1" and rows[1][10] == "48"  # numbers, negative ones too, stay numbers
    assert rows[1][13] == "-16"
    assert rows[2][3] == "penalty" and rows[2][8] == "'-Dan: =HYPERLINK(1), -5"


def test_a_format_1_false_win_reads_as_a_penalty_and_a_void_deal():
    old = {"format": "mcr-ledger", "version": 1, "match": {"players": list(PLAYERS)},
           "deals": [{"number": 1, "result": "draw"}, {"number": 2, "result": "false_win", "offender": "Dan", "penalty": 10}]}
    ledger = ledger_from_json(old)
    assert [r.deal.result for r in ledger.rows] == [Result.DRAW, Result.VOID]
    assert ledger.rows[1].penalties == (false_win(ledger.match, 2, "Dan"),) and ledger.totals == (10, 10, 10, -30)
    assert ledger.uid.startswith("sha1-") and ledger_from_json(old).uid == ledger.uid  # the same file, the same name


def test_import_rescore_refuses_an_edited_total():
    match = Match(PLAYERS).validate()
    data = ledger_to_json(build_ledger(match, play_match(match)[:1]))
    data["deals"][0]["total"] = 88
    with pytest.raises(LedgerError, match="scores 22 fan, not 88"):
        ledger_from_json(data)


def test_import_without_rescoring_keeps_the_total_but_checks_the_deal():
    match = Match(PLAYERS).validate()
    stored = ledger_to_json(build_ledger(match, play_match(match)[:1]))["deals"][0]
    kept = deal_from_json(match, dict(stored, total=30), rescore=False)
    assert (kept.number, kept.winner, kept.discarder, kept.total) == (1, "Ann", "Cat", 30)
    assert kept.hand == stored["hand"]
    with pytest.raises(LedgerError, match="a deal number is 1 to 16, not None"):
        deal_from_json(match, {k: v for k, v in stored.items() if k != "number"}, rescore=False)
    with pytest.raises(LedgerError, match="no player 'Zed'"):
        deal_from_json(match, dict(stored, winner="Zed"), rescore=False)
    with pytest.raises(LedgerError, match="under the 8-fan minimum"):
        deal_from_json(match, dict(stored, total=5), rescore=False)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"number": "2", "result": "draw"}, "a deal number is 1 to 16, not '2'"),
        ({"number": 2, "result": "win", "total": 8}, "deal 2: winner must be a player's name, not None"),
        ({"number": 2, "result": "win", "winner": "Ann", "discarder": 3, "total": 8},
         "deal 2: discarder must be a player's name, not 3"),
    ],
)
def test_import_refuses_a_deal_with_a_wrong_number_or_name(data, message):
    with pytest.raises(LedgerError, match=message):
        deal_from_json(Match(PLAYERS).validate(), data)


def test_import_refuses_a_false_win_without_an_offender():
    old = {"format": "mcr-ledger", "version": 1, "match": {"players": list(PLAYERS)},
           "deals": [{"number": 1, "result": "false_win", "offender": ["Ann"]}]}
    with pytest.raises(LedgerError, match="deal 1: offender must be a player's name"):
        ledger_from_json(old)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda m: win(m, 1, "Zed", total=8), "no player 'Zed'"),
        (lambda m: win(m, 1, "Ann", discarder="Ann", total=8), "own discard"),
        (lambda m: win(m, 1, "Ann", total=7), "under the 8-fan minimum"),
        (lambda m: win(m, 17, "Ann", total=8), "deal number is 1 to 16"),
        (lambda m: win(m, 1, "Ann"), "needs the hand or its fan total"),
        (lambda m: win(m, 1, "Ann", hand=hand("[123m] [456m] 789m 234p 5s +6s")), "not a winning hand"),
        (lambda m: win(m, 1, "Ann", hand=hand("[123m] [678s] 789p 234p 5s +5s")), "scores 4 fan under the 8-fan minimum"),
        (lambda m: win(m, 1, "Ann", hand=hand("[123m] [EEE] (5555p) 78s11p +9s flowers=2")),
         r"scores 9 fan, 7 without the flowers, under the 8-fan minimum \(flowers do not count toward it\)"),
        (lambda m: Match(("A", "A", "B", "C")).validate(), "different names"),
        (lambda m: Match(("A", "B", "C", "D"), seat_rule="sideways").validate(), "seat rule"),
        (lambda m: Match(("A" * 101, "B", "C", "D")).validate(), "a player's name has 101 characters; at most 100"),
        (lambda m: Match(("A\nB", "B", "C", "D")).validate(), "control character"),
        (lambda m: win(m, 1, "Ann", total=99999999), "more than any hand scores"),
        (lambda m: penalty(m, 1, "Ann", 10**12), "a penalty must be a whole number from 1 to 1000"),
        (lambda m: penalty(m, 1, "Ann", 0), "a penalty must be a whole number from 1 to 1000"),
        (lambda m: penalty(m, 1, "Ann", 5, "x" * 201), "the reason has 201 characters"),
        (lambda m: false_win(m, 1, "Ann", 1001), "a penalty must be a whole number from 1 to 1000"),
        (lambda m: Match(PLAYERS, false_win_penalty=10**12).validate(), "false-win penalty must be a whole number from 0 to 1000"),
    ],
)
def test_bad_records_are_refused_with_a_reason(make, message):
    match = Match(PLAYERS).validate()
    with pytest.raises(LedgerError, match=message):
        make(match)


def test_next_deal_rules():
    check_next(4, 5)
    with pytest.raises(DealTaken, match="deal 4 is already recorded"):
        check_next(4, 4)
    with pytest.raises(LedgerError, match="before deal 5"):
        check_next(4, 7)
    with pytest.raises(LedgerError, match="deal 3 is missing"):
        build_ledger(Match(PLAYERS).validate(), [draw(1), draw(2), draw(4)])
