"""Photo page, scoring: the few taps the total needs (with a match open: who won and how; without:
the winds and how), the total with its 8-fan check and what changed since the last fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import streamlit as st

from scoring.hand import Hand, HandError, WinContext
from scoring.tiles import Tile

from .correction import HAND, MELD_GROUPS, WIN, Reading
from .i18n import lang, t, tile_short, tile_words, translator
from .photo_doubts import TILE_NAMES, winning_hints
from .photo_match import OpenDeal
from .photo_read import CONTEXT_SEEN, DISCARDER_PLAYER, FIX_FROM, FIXED, PREFIX, SCROLLED_FOR, SHOWN_TOTAL, WINNER, PhotoRead, select
from .widgets import FLAG_NAMES, WIND_NAMES, wind_label
from .winctx import HandFacts, impossible_flags

# --- the win context: a tap each, asked again for every photo ------------------------------------


def _context_now() -> dict[str, object]:
    state = st.session_state
    names = ("won_by", "discarder", "seat", "prevalent", "winner", "discarder_player", *FLAG_NAMES)
    return {name: state.get(PREFIX + name) for name in names}


def start_context(deal: OpenDeal | None) -> None:
    """A new photo: every question asked again, nothing kept from the last photo.

    A context another page put here since the photo page last showed it (the Match page's "Score a
    photo": the winner's seat, the round, how, the discarder's seat) is kept; with a match open it
    names the players sitting at those seats in this deal.
    """
    state = st.session_state
    now = _context_now()
    if now.get("won_by") is not None and now != state.get(CONTEXT_SEEN):
        if deal is not None:
            seat, discarding = now.get("seat"), now.get("discarder")
            state[WINNER] = deal.players[deal.seat_winds.index(seat)] if seat in deal.seat_winds else None
            state[DISCARDER_PLAYER] = (deal.players[deal.seat_winds.index(discarding)]
                                       if discarding in deal.seat_winds else None)
        return
    for name in ("won_by", "discarder", "seat", "prevalent", "winner", "discarder_player"):
        state[PREFIX + name] = None
    for name in FLAG_NAMES:
        state[PREFIX + name] = False


def remember_context() -> None:
    st.session_state[CONTEXT_SEEN] = _context_now()


def _special_cases(facts: HandFacts, self_drawn: bool) -> dict[str, bool]:
    """Last tile, last of the wall, kong replacement, robbing the kong: folded away (rare), impossible
    ones disabled with the reason as help."""
    blocked = impossible_flags(facts, self_drawn=self_drawn)
    ticked = [name for name in FLAG_NAMES if st.session_state.get(PREFIX + name) and name not in blocked]
    flags: dict[str, bool] = {}
    with st.expander(t("special_cases") + (f" ({len(ticked)})" if ticked else "")):
        for name in FLAG_NAMES:
            reason = blocked.get(name)
            value = st.checkbox(t(name), key=PREFIX + name, disabled=reason is not None,
                                help=t(reason.key, **reason.params()) if reason else None)
            flags[name] = value and reason is None
    return flags


def _how_won() -> str | None:
    return st.segmented_control(t("win_by"), ["discard", "self_drawn"], format_func=translator(),
                                key=PREFIX + "won_by")


@dataclass(frozen=True)
class Asked:
    """The answers the total needs; `context` is None until every one is given."""

    context: WinContext | None
    discarder_seat: str | None = None
    winner: str | None = None  # with a match open: the player who won, and who discarded
    discarder: str | None = None


def table_questions(facts: HandFacts, flowers: int, cases_box: Any) -> Asked:
    """No match open: the winner's seat wind, the prevalent wind, how it was won and who discarded."""
    state = st.session_state
    seat = st.segmented_control(t("seat_wind"), WIND_NAMES, format_func=wind_label, key=PREFIX + "seat")
    prevalent = st.segmented_control(t("prevalent_wind"), WIND_NAMES, format_func=wind_label,
                                     key=PREFIX + "prevalent")
    won_by = _how_won()
    discarder = None
    if won_by == "discard" and seat is not None:
        others = [w for w in WIND_NAMES if w != seat]
        if state.get(PREFIX + "discarder") not in others:
            state[PREFIX + "discarder"] = None  # asked, not guessed
        discarder = st.segmented_control(t("discarder"), others, format_func=wind_label, key=PREFIX + "discarder")
    with cases_box:  # drawn below the photo: rare, and the total comes first
        flags = _special_cases(facts, won_by == "self_drawn")
    if seat is None or prevalent is None:
        st.info(t("ask_winds"))
        return Asked(None)
    if won_by is None:
        st.info(t("ask_won_by"))
        return Asked(None)
    context = WinContext(self_drawn=won_by == "self_drawn", seat_wind=Tile.parse(seat),
                         prevalent_wind=Tile.parse(prevalent), flowers=flowers, last_tile=flags["last_tile"],
                         last_of_wall=flags["last_of_wall"], kong_replacement=flags["kong_replacement"],
                         robbing_kong=flags["robbing_kong"])
    return Asked(context, discarder)


def match_questions(deal: OpenDeal, facts: HandFacts, flowers: int, cases_box: Any) -> Asked:
    """A match open: the deal's winds come from the ledger; asked are who won, how, and who discarded."""
    state = st.session_state
    round_name = wind_label(deal.prevalent) if lang() == "en" else wind_label(deal.prevalent).split()[-1]
    st.caption(t("deal_line", id=deal.match_id, n=deal.number, round=round_name, dealer=deal.dealer))
    if state.get(WINNER) not in deal.players:
        state[WINNER] = None
    winner = st.segmented_control(
        t("who_won"), list(deal.players), key=WINNER,
        format_func=lambda p: t("player_seat", player=p, wind=wind_label(deal.seat_of(p))),
    )
    won_by = _how_won()
    discarder = None
    if won_by == "discard" and winner is not None:
        others = [p for p in deal.players if p != winner]
        if state.get(DISCARDER_PLAYER) not in others:
            state[DISCARDER_PLAYER] = None
        discarder = st.segmented_control(
            t("discarder"), others, key=DISCARDER_PLAYER,
            format_func=lambda p: t("player_seat", player=p, wind=wind_label(deal.seat_of(p))),
        )
    with cases_box:
        flags = _special_cases(facts, won_by == "self_drawn")
    if winner is None:
        st.info(t("ask_winner"))
        return Asked(None)
    if won_by is None:
        st.info(t("ask_won_by"))
        return Asked(None)
    context = deal.context(winner, won_by == "self_drawn", WinContext(
        flowers=flowers, last_tile=flags["last_tile"], last_of_wall=flags["last_of_wall"],
        kong_replacement=flags["kong_replacement"], robbing_kong=flags["robbing_kong"]))
    return Asked(context, None if discarder is None else deal.seat_of(discarder), winner, discarder)


def hand_facts(reading: Reading) -> HandFacts:
    wins = [tile.cls for tile in reading.tiles if tile.group == WIN and tile.cls in TILE_NAMES]
    win = Tile.parse(wins[0]) if len(wins) == 1 else None
    standing = [Tile.parse(tile.cls) for tile in reading.tiles if tile.group == HAND and tile.cls in TILE_NAMES]
    meld_tiles = [Tile.parse(tile.cls) for tile in reading.tiles if tile.group in MELD_GROUPS and tile.cls in TILE_NAMES]
    has_kong = any(
        sum(tile.group == g for tile in reading.tiles) == 4 for g in MELD_GROUPS
    )
    return HandFacts(
        has_kong=has_kong,
        win_tile=win,
        standing_copies_of_win=sum(x == win for x in standing) if win else 0,
        meld_copies_of_win=sum(x == win for x in meld_tiles) if win else 0,
    )


@dataclass(frozen=True)
class Scored:
    hand: Hand
    result: Any  # scoring.scorer.ScoreResult


def score_photo(photo: PhotoRead, context: WinContext) -> Scored | None:
    """The hand scored, or (None) why not: a hand that does not win says which tile to look at."""
    try:
        from scoring.scorer import NotWinningHand, score
    except ImportError as exc:
        st.error(t("scorer_missing", msg=str(exc)))
        return None
    try:
        hand = photo.reading.to_hand(context)
        return Scored(hand, score(hand))
    except NotWinningHand:
        hints = winning_hints(photo.reading, context)
        lines = [t("not_winning_hint")] + [
            t("look_at", tile=tile_words(photo.reading.tiles[h.index].cls), face=tile_words(h.face)) for h in hints
        ]
        if not hints:
            lines.append(t("look_at_none"))
        st.error("\n\n".join(lines))
        if hints:
            with st.container(horizontal=True, gap="small"):
                for h in hints:
                    st.button(tile_short(photo.reading.tiles[h.index].cls), key=f"{PREFIX}hint.{h.index}",
                              on_click=select, args=(h.index, "photo"), icon=":material/search:")
    except HandError as exc:
        st.warning(t("cannot_score", msg=str(exc)))
    return None


def context_key(context: WinContext) -> str:
    return json.dumps([context.self_drawn, context.seat_wind.name, context.prevalent_wind.name, context.flowers,
                       [getattr(context, name) for name in FLAG_NAMES]])


# after a fix the page scrolls back to the total, wherever the editor was (a fix's number makes each script new)
SCROLL_TO_TOTAL_JS = """<script>/* fix FIX */
setTimeout(() => document.querySelector('.st-key-photo_total')?.scrollIntoView({block: 'start'}), 250);
</script>"""


def total_panel(scored: Scored, doubted: list[int], hand_doubts: int) -> None:
    """The total, and beside it the 8-fan check, what it rests on, and the change the last fix made."""
    result, context = scored.result, scored.hand.context
    state = st.session_state
    shown = (result.total, context_key(context))
    before = state.get(FIX_FROM)
    delta = result.total - before[0] if before and before[1] == shown[1] and before[0] != result.total else None
    state[SHOWN_TOTAL] = shown
    without_flowers = result.total - context.flowers
    with st.container(horizontal=True, vertical_alignment="center", key="photo_total"):
        st.metric(t("total"), result.total, delta=delta, delta_color="off", width="content")
        with st.container(gap="xsmall"):
            if result.meets_minimum:
                st.markdown(f":green[:material/check_circle: {t('meets_short', n=without_flowers)}]")
            else:
                st.markdown(f":red[:material/cancel: {t('fails_short', n=without_flowers)}]")
            if doubted:
                st.markdown(f":orange[:material/warning: {t('rests_on_tiles', n=len(doubted))}]")
            elif hand_doubts:
                st.markdown(f":orange[:material/warning: {t('rests_on_hand')}]")
    fixed = state.get(FIXED)
    if fixed and state.get(SCROLLED_FOR) != fixed:  # a fix was just made, perhaps far below: show its total
        state[SCROLLED_FOR] = fixed
        st.html(SCROLL_TO_TOTAL_JS.replace("FIX", str(int(fixed))), unsafe_allow_javascript=True)


