"""The tournament's pure parts: the seating draw (tables of four, repeated opponents as few as it finds,
the same seed the same draw) and the standings (finished matches only; table points, then score, then
first places, then a shared place)."""

from __future__ import annotations

import itertools

import pytest

from ledger.match import Closure, EndReason, LedgerError, Match, build_ledger, draw, win
from ledger.tournament import TIE_BREAKS, PlayerLine, check_entrants, draw_round, meetings, ranked, repeats, table_link, tournament


def names(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(n)]


def play(players: list[str], rounds: int, seed: int) -> list[tuple[tuple[str, str, str, str], ...]]:
    drawn: list[tuple[tuple[str, str, str, str], ...]] = []
    for round_no in range(1, rounds + 1):
        drawn.append(draw_round(players, drawn, seed, round_no))
    return drawn


def test_every_player_sits_once_a_round_at_tables_of_four():
    for tables in play(names(16), 4, seed=3):
        assert len(tables) == 4 and all(len(t) == 4 for t in tables)
        assert sorted(p for t in tables for p in t) == names(16)


def test_the_same_seed_gives_the_same_draw_and_another_seed_another():
    assert play(names(12), 3, seed=7) == play(names(12), 3, seed=7)
    assert play(names(12), 3, seed=7) != play(names(12), 3, seed=8)


@pytest.mark.parametrize("players, rounds", [(16, 3), (32, 6), (64, 8)])
def test_nobody_meets_twice_in_the_first_rounds_of_a_big_field(players, rounds):
    drawn = play(names(players), rounds, seed=1)
    met = meetings(drawn)
    assert max(met.values()) == 1, [pair for pair, n in met.items() if n > 1]


def test_twelve_players_repeat_one_pair_a_table_in_round_two():
    # three tables of four from three tables of four: two players of one first-round table share each table
    drawn = play(names(12), 2, seed=1)
    assert repeats(drawn[1], meetings(drawn[:1])) == 3


def test_eight_players_repeat_as_few_opponents_as_two_tables_allow():
    drawn = play(names(8), 3, seed=1)
    # round 2: each table of four holds two pairs from round 1's tables (4 repeats in all, the fewest);
    # round 3: 8 pairs are still new, 12 seats-pairs to fill: at least 4 repeats, and two tables of four
    # split between round 1's and round 2's tables cannot avoid repeating some twice: 8 is the fewest
    assert repeats(drawn[1], meetings(drawn[:1])) == 4
    best_third = min(repeats((t, tuple(p for p in names(8) if p not in t)), meetings(drawn[:2]))
                     for t in itertools.combinations(names(8), 4))
    assert repeats(drawn[2], meetings(drawn[:2])) == best_third == 8


@pytest.mark.parametrize(
    "players, message",
    [
        (names(6), "register a multiple of 4 players (6 registered)"),
        ([], "register a multiple of 4 players (0 registered)"),
        ([*names(7), "P01"], "P01 appear twice"),
        ([*names(7), "  "], "every player needs a name"),
        ([*names(7), "x" * 101], "at most 100"),
    ],
)
def test_registration_is_checked(players, message):
    with pytest.raises(LedgerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_entrants(players)


def test_standings_count_finished_matches_by_table_points_then_score():
    def ledger(players, deals, closed=True):
        match = Match(players).validate()
        return build_ledger(match, deals(match), closed=Closure(EndReason.TIME_LIMIT, "") if closed else None)

    ledgers = {
        1: ledger(("A", "B", "C", "D"), lambda m: [win(m, 1, "A", total=8)]),  # A 48: 4; B C D -16: 1 each
        2: ledger(("E", "F", "G", "H"), lambda m: [win(m, 1, "E", total=20)]),  # E 84: 4; F G H 1 each
        3: ledger(("A", "E", "B", "F"), lambda m: [draw(1)], closed=False),  # still playing: not counted
    }
    view = tournament(ledgers, entrants=["A", "B", "C", "D", "E", "F", "G", "H", "Z"])
    assert [(p.rank, p.player, p.matches, p.table_points, p.points, p.playing) for p in view.players] == [
        (1, "E", 1, 4.0, 84, 1), (2, "A", 1, 4.0, 48, 1), (3, "B", 1, 1.0, -16, 1), (3, "C", 1, 1.0, -16, 0),
        (3, "D", 1, 1.0, -16, 0), (6, "F", 1, 1.0, -28, 1), (6, "G", 1, 1.0, -28, 0), (6, "H", 1, 1.0, -28, 0),
        (9, "Z", 0, 0.0, 0, 0)]  # equal table points and score: the same place (first places equal too)
    assert [m.finished for m in view.matches] == [True, True, False]


def test_a_table_link_names_the_match_by_its_uid():
    assert table_link("http://192.168.1.5:8501/", "abc") == "http://192.168.1.5:8501/match?match=abc"
    assert table_link("", "abc") == "/match?match=abc"



def test_ties_break_on_score_then_first_places_then_share_the_place():
    lines = [PlayerLine("Xia", 3, 8.0, 10, firsts=1), PlayerLine("Yan", 3, 8.0, 10, firsts=2),
             PlayerLine("Zoe", 3, 8.0, 12), PlayerLine("Wu", 3, 9.0, -50), PlayerLine("Vic", 3, 8.0, 10, firsts=1)]
    assert [(p.rank, p.player) for p in ranked(lines)] == [
        (1, "Wu"),  # the most table points, whatever the score
        (2, "Zoe"),  # equal table points: the better score
        (3, "Yan"),  # equal table points and score: more first places
        (4, "Vic"), (4, "Xia"),  # equal on all three: one place, listed by name
    ]
    assert TIE_BREAKS == ("table_points", "points", "firsts")
