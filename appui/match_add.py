"""\"Add to match\" on the photo and manual pages, and the Match page's \"Score in ...\" that carries the deal's
winds to them: the hand scored there built into the open match's next deal."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import streamlit as st

from ledger.match import (
    Deal,
    Ledger,
    LedgerError,
    MatchLocked,
    StaleWrite,
    UnderMinimum,
    win,
)
from ledger.rules import prevalent_wind
from ledger.store import MatchNotFound
from scoring.hand import Hand, HandError, WinContext

from .match_state import (
    ADDED,
    CURRENT,
    MANUAL_DRAFT,
    MANUAL_PREFIX,
    MATCH_PAGE,
    PAGE_PREFIXES,
    PENDING,
    PHOTO_PREFIX,
    PHOTO_READ,
    PREFIX,
    catch_up,
    saw,
    seen_revision,
    store,
)
from .match_words import plain, refusal_words, tr, wind_name
from .widgets import WIND_ZH


def context_from_page(prefix: str, flowers: int) -> WinContext:
    """The flags the other page's form holds (last tile, ...); winds and self-drawn are the ledger's."""
    state = st.session_state

    def ticked(name: str) -> bool:
        return bool(state.get(prefix + name))

    return WinContext(flowers=flowers, last_tile=ticked("last_tile"), last_of_wall=ticked("last_of_wall"),
                      kong_replacement=ticked("kong_replacement"), robbing_kong=ticked("robbing_kong"))


def hand_from_pages(source: str) -> Hand | None:
    """The hand built on the manual scorer or the photo page in this session, None when there is none."""
    state = st.session_state
    try:
        if source == "manual" and state.get(MANUAL_DRAFT) is not None:
            flowers = int(state.get(MANUAL_PREFIX + "flowers") or 0)
            return state[MANUAL_DRAFT].to_hand(context_from_page(MANUAL_PREFIX, flowers))
        if source == "photo" and state.get(PHOTO_READ) is not None:
            reading = state[PHOTO_READ].reading
            return reading.to_hand(context_from_page(PHOTO_PREFIX, int(reading.flower_count)))
    except (HandError, AttributeError, TypeError, ValueError):
        return None
    return None


def carry_to_page(prefix: str, ledger: Ledger, number: int, winner: str, discarder: str | None) -> None:
    """Put the deal's winds, the winner's seat and the discarder's seat into another page's context form."""
    match = ledger.match
    state = st.session_state
    state[prefix + "seat"] = match.seat_of(winner, number)
    state[prefix + "prevalent"] = prevalent_wind(number)
    state[prefix + "won_by"] = "discard" if discarder else "self_drawn"
    if discarder:
        state[prefix + "discarder"] = match.seat_of(discarder, number)
    # the photo page remembers the winds for the session and keeps a context another page set since
    # it last looked (appui.photo._start_context): tell it both
    state[prefix + "winds"] = {"seat": state[prefix + "seat"], "prevalent": state[prefix + "prevalent"]}
    state.setdefault(prefix + "context_seen", {})


# --- "Add to match" on the photo and manual pages ------------------------------------------


class Refused(Exception):
    """Why a hand scored on another page cannot be added now (a message in the page's language)."""

    def __init__(self, text: str, *, to_match_page: bool = False):
        super().__init__(text)
        self.text, self.to_match_page = text, to_match_page


@dataclass(frozen=True)
class PageWin:
    """A win scored on the photo or manual page, built into the current match's next deal."""

    match_id: int
    deal: Deal
    seat: str  # the winner's seat wind in that deal
    guard: str  # the scored hand with its page context, in this match: the same one twice adds one deal
    revision: int = 0  # the match's revision it was planned on


def page_fingerprint(source: str) -> str | None:
    """The hand scored on `source`'s page with the context picked there (None when there is no hand)."""
    hand = hand_from_pages(source)
    return None if hand is None else _fingerprint(source, hand)


def _fingerprint(source: str, hand: Hand) -> str:
    prefix, state = PAGE_PREFIXES[source], st.session_state
    picked = [state.get(prefix + name) for name in ("seat", "won_by", "discarder")]
    return hashlib.sha1(json.dumps([source, hand.to_json(), picked], sort_keys=True).encode()).hexdigest()


def page_win(source: str) -> PageWin:
    """The hand scored on the photo or manual page as the next deal of the match open in this session:
    the winner is the player at the seat picked there, the discarder the one at the discarding seat;
    the ledger scores it with the deal's winds. Refused (with the reason) when it cannot be added."""
    state = st.session_state
    match_id = state.get(CURRENT)
    if match_id is None:
        raise Refused(tr("no_open_match"), to_match_page=True)
    try:
        ledger = store().ledger(match_id)
    except MatchNotFound:
        raise Refused(tr("no_open_match"), to_match_page=True) from None
    except LedgerError as exc:
        raise Refused(tr("db_error", msg=str(exc))) from None
    hand = hand_from_pages(source)
    if hand is None:
        raise Refused(tr("no_hand_there"))
    guard = f"{match_id}:{_fingerprint(source, hand)}"
    added = state.get(ADDED)
    if (added and added["guard"] == guard and added["number"] <= len(ledger.rows)
            and ledger.rows[added["number"] - 1].deal.hand == added["hand"]):  # still there (not undone)
        raise Refused(tr("already_added", id=match_id, n=added["number"]))
    number = ledger.next_deal
    if number is None:
        raise Refused(tr("match_over", id=match_id), to_match_page=True)
    prefix, match = PAGE_PREFIXES[source], ledger.match
    won_by, seat, discarding = (state.get(prefix + name) for name in ("won_by", "seat", "discarder"))
    if won_by not in ("discard", "self_drawn") or seat not in WIND_ZH:
        raise Refused(tr("ask_won_by_first"))
    discarder = None
    if won_by == "discard":
        if discarding not in WIND_ZH or discarding == seat:
            raise Refused(tr("ask_discarder_first"))
        discarder = match.player_at(discarding, number)
    try:
        deal = win(match, number, match.player_at(seat, number), discarder=discarder, hand=hand)
    except UnderMinimum as exc:
        raise Refused(tr("under_minimum", fan=exc.total, without=exc.total - exc.flowers)) from None
    except LedgerError as exc:
        raise Refused(tr("not_added", msg=str(exc))) from None
    return PageWin(match_id, deal, seat, guard, ledger.revision)


def _page_message_key(source: str) -> str:
    return f"{PREFIX}message.{source}"


def _on_add_to_match(source: str) -> None:
    """The click (read afresh from the database and the page: a double click's second run sees the first deal)."""
    state = st.session_state
    shown_with = (state.get(CURRENT), page_fingerprint(source))
    try:
        planned = page_win(source)
        seen = seen_revision(planned.match_id, planned.revision)
        ledger = store().add_deal(planned.match_id, planned.deal, seen=seen)
    except Refused as refusal:
        state[_page_message_key(source)] = (shown_with, "error", refusal.text, refusal.to_match_page)
        return
    except LedgerError as exc:  # another phone recorded this deal first, the match is over, the database went away...
        catch_up(exc, planned.match_id)
        told = refusal_words(exc) if isinstance(exc, (StaleWrite, MatchLocked)) else tr("not_added", msg=str(exc))
        state[_page_message_key(source)] = (shown_with, "error", told, False)
        return
    saw(planned.match_id, seen + 1)
    deal = planned.deal
    row = ledger.rows[deal.number - 1]
    points = " · ".join(f"{p} {row.points[i]:+d}" for i, p in enumerate(ledger.match.players))
    state[ADDED] = {"guard": planned.guard, "number": deal.number, "hand": deal.hand}
    pending = state.get(PENDING)
    if pending and pending.get("match") == planned.match_id:
        state.pop(PENDING)  # that deal is recorded: the Match page must not offer it again
    text = tr("added", id=planned.match_id, n=deal.number, winner=deal.winner, fan=deal.total, points=points)
    state[_page_message_key(source)] = (shown_with, "success", text, False)


def add_to_match_panel(source: str) -> None:
    """Under a hand scored on the photo ("photo") or manual ("manual") page: what "Add to match" would
    record in the match open in this session, the button, and what the last click did."""
    state = st.session_state
    try:
        preview: PageWin | None = page_win(source)
    except Refused:
        preview = None  # the click says why
    if preview is not None:
        deal = preview.deal
        how = tr("how_discard", who=deal.discarder) if deal.discarder else tr("how_self_drawn")
        st.caption(plain(tr("will_add", id=preview.match_id, n=deal.number, winner=deal.winner,
                            seat=wind_name(preview.seat), how=how, fan=deal.total)))
    st.button(tr("add_to_match"), key=PAGE_PREFIXES[source] + "add_to_match", icon=":material/scoreboard:",
              on_click=_on_add_to_match, args=(source,))
    message = state.get(_page_message_key(source))
    if message is None or message[0] != (state.get(CURRENT), page_fingerprint(source)):
        return  # none yet, or about another hand or match than the one shown now
    _, kind, text, to_match_page = message
    (st.success if kind == "success" else st.error)(plain(text))
    if to_match_page:
        st.page_link(MATCH_PAGE, label=tr("open_match_page"), icon=":material/scoreboard:")


