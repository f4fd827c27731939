"""Waits: every tile that completes a ready hand, scored on a discard and self-drawn."""

from __future__ import annotations

import pytest

from datasets.hands import random_hands
from scoring.hand import HandError, Meld
from scoring.notation import format_hand, parse_hand
from scoring.scorer import NotWinningHand, is_winning, score
from scoring.tiles import ALL_TILES, Tile
from scoring.waits import waits


def _ready(text: str) -> tuple[tuple[Meld, ...], tuple[Tile, ...]]:
    """Melds and standing tiles of a notation written with a stand-in winning tile."""
    hand = parse_hand(text)
    return hand.melds, hand.concealed


def _tiles(names: str) -> list[str]:
    return names.split()


def test_nine_gates_waits_on_all_nine_and_each_is_nine_gates() -> None:
    melds, standing = _ready("1112345678999m +5p")
    found = waits(melds, standing)
    assert [str(w.tile) for w in found] == _tiles("1m 2m 3m 4m 5m 6m 7m 8m 9m")
    for w in found:
        assert w.discard is not None and w.self_drawn is not None
        assert 4 in {fc.fan.id for fc in w.discard.fans}, w.tile
        assert w.self_drawn.total == w.discard.total + 1  # Self-Drawn, 1 point, is all that changes


def test_thirteen_orphans_thirteen_sided_wait() -> None:
    melds, standing = _ready("19m19p19sESWNCFP +5p")
    found = waits(melds, standing)
    assert [str(w.tile) for w in found] == _tiles("1m 9m 1p 9p 1s 9s E S W N C F P")
    assert all(w.discard is not None and w.discard.total >= 88 for w in found)


def test_two_sided_wait_scores_differently_self_drawn() -> None:
    melds, standing = _ready("123m456p789sEE45s +5p")
    found = {str(w.tile): w for w in waits(melds, standing)}
    assert sorted(found) == ["3s", "6s"]
    discard, drawn = found["3s"].discard, found["3s"].self_drawn
    assert discard is not None and drawn is not None
    assert 62 in {fc.fan.id for fc in discard.fans}  # Concealed Hand on a discard
    assert 56 in {fc.fan.id for fc in drawn.fans}  # Fully Concealed Hand when self-drawn


def test_a_tile_held_four_times_is_no_wait() -> None:
    melds, standing = _ready("[3333m] [EEE] [SSS] 12mNN +5p")
    assert waits(melds, standing) == []
    melds, standing = _ready("[3333p] [EEE] [SSS] 12mNN +5p")
    assert [str(w.tile) for w in waits(melds, standing)] == ["3m"]


def test_a_hand_that_is_not_ready_has_no_waits() -> None:
    melds, standing = _ready("1357m2468p13579s +E")
    assert waits(melds, standing) == []


def test_wrong_tile_count_is_a_hand_error() -> None:
    melds, standing = _ready("123m456p789sEE45s +5p")
    with pytest.raises(HandError, match="13 standing tiles"):
        waits(melds, standing[:-1])


def test_the_winning_tile_of_random_hands_is_among_the_waits_with_the_same_score() -> None:
    for hand in random_hands(11, 150):
        found = {w.tile: w for w in waits(hand.melds, hand.concealed, hand.context)}
        assert hand.win_tile in found, format_hand(hand)
        wait = found[hand.win_tile]
        result = wait.self_drawn if hand.context.self_drawn else wait.discard
        assert result is not None and result.total == score(hand).total, format_hand(hand)
        held = hand.tile_counts()
        held[hand.win_tile] -= 1
        for tile in ALL_TILES:
            if tile not in found and held[tile] < 4:
                with pytest.raises(NotWinningHand):
                    score(type(hand)(hand.melds, hand.concealed, tile, hand.context))
                assert not is_winning(type(hand)(hand.melds, hand.concealed, tile, hand.context))
        assert is_winning(hand)
