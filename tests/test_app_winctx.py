"""Win-context options the tiles rule out (appui.winctx): which, and the reason shown on hover."""

from dataclasses import replace

import pytest

from appui.i18n import LANGUAGES, label_keys, t
from appui.winctx import HandFacts, impossible_flags
from scoring.hand import Meld
from scoring.tiles import Tile

T = Tile.parse
NO_KONG = HandFacts.of([Meld.pung(T("E"))], [T("1m"), T("2m")], T("9s"))
WITH_KONG = HandFacts.of([Meld.kong(T("E"))], [T("1m"), T("2m")], T("9s"))


def reasons(facts, self_drawn=False):
    got = impossible_flags(facts, self_drawn=self_drawn)
    return {name: reason.key for name, reason in got.items()}


def test_kong_replacement_needs_a_kong_and_a_self_drawn_win():
    assert reasons(NO_KONG, self_drawn=True)["kong_replacement"] == "why_no_kong"
    assert reasons(WITH_KONG, self_drawn=False)["kong_replacement"] == "why_replacement_discard"
    assert "kong_replacement" not in reasons(WITH_KONG, self_drawn=True)


def test_robbing_the_kong_is_never_self_drawn_and_never_of_a_held_tile():
    assert reasons(NO_KONG, self_drawn=True)["robbing_kong"] == "why_robbing_self_drawn"
    assert "robbing_kong" not in reasons(NO_KONG, self_drawn=False)
    holds_copy = HandFacts.of([], [T("9s"), T("1m")], T("9s"))
    assert reasons(holds_copy)["robbing_kong"] == "why_robbing_holds_copy"


def test_last_tile_is_ruled_out_by_a_copy_in_the_standing_hand_only():
    assert reasons(HandFacts.of([], [T("9s")], T("9s")))["last_tile"] == "why_last_tile_holds_copy"
    assert "last_tile" not in reasons(HandFacts.of([Meld.pung(T("9s"))], [T("1m")], T("9s")))
    assert "last_of_wall" not in reasons(NO_KONG, self_drawn=True)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reason_has_a_label_with_its_fields(language):
    facts = HandFacts.of([], [T("9s")], T("9s"))
    found = impossible_flags(facts, self_drawn=False)
    assert {"kong_replacement", "robbing_kong", "last_tile"} <= set(found)
    for name in ("robbing_kong", "last_tile"):
        assert "9s" in t(found[name].key, language, **found[name].params())
    assert t(found["kong_replacement"].key, language)
    assert all(t(key, language) for key in label_keys() if "{" not in t(key, "en"))


def test_the_app_rules_out_exactly_what_the_scorer_ignores():
    """One set of rules: a flag the app leaves enabled is scored, one it disables is dropped with a warning."""
    from datasets.hands import random_hands
    from scoring.scorer import score

    for hand in random_hands(7, 150):
        held = [t for t in hand.concealed]
        facts = HandFacts.of(hand.melds, held, hand.win_tile)
        for self_drawn in (False, True):
            blocked = impossible_flags(facts, self_drawn=self_drawn)
            for flag in ("last_tile", "kong_replacement", "robbing_kong"):
                others = {f: False for f in ("last_tile", "last_of_wall", "kong_replacement", "robbing_kong")}
                context = replace(hand.context, self_drawn=self_drawn, **{**others, flag: True})
                warned = [w for w in score(replace(hand, context=context)).warnings if "ignored" in w]
                assert bool(warned) == (flag in blocked), (hand, self_drawn, flag, warned)
