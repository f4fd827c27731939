"""Shanten: how far a hand is from complete, the discards and the draws that help (scoring.shanten)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement, pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datasets.hands import random_hands
from scoring.hand import Hand, WinContext
from scoring.notation import parse_tiles
from scoring.scorer import is_winning
from scoring.shanten import best_discards, sets_needed, shanten, standard_shanten, useful_tiles
from scoring.tiles import ALL_TILES, Tile


def tiles(text: str) -> list[Tile]:
    return parse_tiles(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("123m456p789sEEESS", -1),  # four sets and a pair
        ("123m456p789sEEES", 0),  # ready: the E pung and an S single
        ("19m19p19sESWNCFP", 0),  # thirteen orphans, waiting on any of the thirteen
        ("19m19p19sESWNCFF", 0),  # thirteen orphans lacking P: ready on it alone
        ("1122m3344p5566sP", 0),  # six pairs and a single: seven pairs ready
        ("1111m2233p5566sPP", -1),  # seven pairs with a four of a kind as two pairs (MCR)
        ("147m258p369sESWNC", -1),  # honors and knitted tiles
        ("147m258p369sESWN", 0),
        ("147m258p369sEEESS", -1),  # knitted straight, a pung and a pair
        ("147m258p369sEEES", 0),
        ("1357m2468p1357s9s", 4),  # lots of gaps: four partial chows, not one set
        ("159m159p159sESWN", 3),  # ten kinds of the thirteen orphans: three more
    ],
)
def test_known_hands(text: str, expected: int) -> None:
    assert shanten(tiles(text)) == expected


def test_with_melds_the_sets_still_to_make_shrink() -> None:
    assert sets_needed(13, 0) == 4 and sets_needed(10, 1) == 3 and sets_needed(4, 3) == 1
    assert shanten(tiles("5m5m5m7p"), melds=3) == 0  # a pung and a single beside three melds: ready
    assert shanten(tiles("7p7p"), melds=4) == -1
    assert shanten(tiles("1m4m7m"), melds=3) == 2  # a set and a pair: two of the tiles kept, three to draw


def test_a_hand_seen_in_part_is_read_as_one_with_melds_out_of_view() -> None:
    """9 tiles: three sets still to make and a pair, one tile short (not seen)."""
    nine = tiles("123m456p789s")
    assert sets_needed(9) == 3
    assert shanten(nine) == 1  # the pair needs two tiles: one draw to ready, one to win
    assert shanten(tiles("123m456p78s")) == 0  # 8 tiles: two melds elsewhere; letting 7s or 8s go leaves it ready
    assert shanten(tiles("123m456p789sE")) == 0  # 10 tiles: a meld elsewhere, waiting on E
    assert shanten(tiles("147m258p369s")) == 1  # the knitted straight, a meld out of view, the pair to come
    assert shanten(tiles("147m258p369sE")) == 0


def test_useful_tiles_of_a_ready_hand_are_its_waits() -> None:
    assert [str(t) for t in useful_tiles(tiles("123m456p789sEEES"))] == ["S"]
    assert [str(t) for t in useful_tiles(tiles("1112345678999m"))] == [f"{r}m" for r in range(1, 10)]


def test_best_discard_of_fourteen_tiles_keeps_the_hand_ready() -> None:
    hand = tiles("123m456p789sEEES9m")
    ranked = best_discards(hand)
    assert ranked[0].shanten == 0 and str(ranked[0].tile) == "9m"
    assert ranked[0].useful == tuple(useful_tiles(tiles("123m456p789sEEES")))
    assert {str(d.tile) for d in ranked} == {str(t) for t in set(hand)}
    assert all(a.shanten <= b.shanten for a, b in pairwise(ranked))


# --- properties -------------------------------------------------------------------------------

ONE_SUIT_SETS = [tuple([i] * 3) for i in range(9)] + [(i, i + 1, i + 2) for i in range(7)]


def brute_force_standard(counts: Counter[int], sets: int) -> int:
    """min over every complete one-suit hand H of `sets` sets and a pair of |H - held| - 1."""
    best = 99
    for chosen in combinations_with_replacement(ONE_SUIT_SETS, sets):
        for pair in range(9):
            target = Counter([i for s in chosen for i in s] + [pair, pair])
            best = min(best, sum((target - counts).values()) - 1)
    return best


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=1, max_size=11))
def test_standard_shanten_equals_the_brute_force_on_one_suit(ranks: list[int]) -> None:
    held = Counter(ranks)
    sets = sets_needed(len(ranks), 0)
    melds = 4 - sets  # the rest out of view: only the sets-and-a-pair shape applies
    assert standard_shanten([Tile(i) for i in ranks], melds) == brute_force_standard(held, sets)
    assert shanten([Tile(i) for i in ranks], melds) == brute_force_standard(held, sets)


def _random_tiles(draw: st.DrawFn, n: int) -> list[Tile]:
    pool = [t for t in ALL_TILES for _ in range(4)]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n, unique=True))
    return [pool[i] for i in picks]


@st.composite
def thirteen(draw: st.DrawFn) -> list[Tile]:
    return _random_tiles(draw, 13)


@st.composite
def fourteen(draw: st.DrawFn) -> list[Tile]:
    return _random_tiles(draw, 14)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fourteen())
def test_minus_one_exactly_for_the_scorers_winning_hands(hand14: list[Tile]) -> None:
    win, standing = hand14[-1], tuple(hand14[:-1])
    assert (shanten(hand14) == -1) == is_winning(Hand((), standing, win, WinContext()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fourteen())
def test_the_best_discard_is_as_close_as_the_fourteen_allow(hand14: list[Tile]) -> None:
    """Letting a tile go never brings a hand closer; the best discard loses nothing (a complete hand: ready)."""
    ranked = best_discards(hand14)
    assert ranked[0].shanten == max(shanten(hand14), 0)
    assert all(d.shanten >= shanten(hand14) for d in ranked)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(thirteen())
def test_useful_draws_are_one_step_each(hand13: list[Tile]) -> None:
    now = shanten(hand13)
    useful = set(useful_tiles(hand13))
    for tile in ALL_TILES:
        after = shanten([*hand13, tile])
        assert after in (now, now - 1)
        assert (after == now - 1) == (tile in useful)


def test_every_generated_winning_hand_is_complete_and_ready_without_its_winning_tile() -> None:
    for hand in random_hands(seed=5, n=300):
        melds = len(hand.melds)
        standing = list(hand.concealed)
        assert shanten([*standing, hand.win_tile], melds) == -1, hand
        assert shanten(standing, melds) == 0, hand
        assert hand.win_tile in useful_tiles(standing, melds), hand


def test_a_ready_hand_is_one_the_scorer_can_complete() -> None:
    """Differential against the scorer: 13 random tiles are ready exactly when some tile wins."""
    rng = random.Random(11)
    pool = [t for t in ALL_TILES for _ in range(4)]
    for _ in range(150):
        hand13 = tuple(rng.sample(pool, 13))
        wins = any(is_winning(Hand((), hand13, t, WinContext())) for t in ALL_TILES if hand13.count(t) < 4)
        assert (shanten(hand13) == 0) == wins or max(Counter(hand13).values()) == 4, hand13
    for hand in random_hands(seed=9, n=60):  # ready hands, where random draws seldom are
        if not hand.melds:
            standing = hand.concealed
            assert shanten(standing) == 0
            assert any(is_winning(Hand((), standing, t, WinContext())) for t in ALL_TILES)
