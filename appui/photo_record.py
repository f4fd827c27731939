"""Photo page, recording: one tap records the win as the open match's deal (the live page uses the same
tap and status), and the corrected photo saved for training.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from scoring.hand import Hand

from .dataroot import OutsideDataRoot, data_root, relative_name, resolve_inside
from .i18n import t
from .photo_match import MatchClosed, NotRecorded, OpenDeal, Recorded, open_deal, record_win
from .photo_read import MATCH_CURRENT, PREFIX, RECORD_MESSAGE, RECORDED, SAVE_DIR, SETTINGS, PhotoRead
from .photo_score import Asked, Scored
from .saving import SaveError, photo_name, save_for_training
from .widgets import data_folder_input

# --- the win recorded in the match: one tap ---------------------------------------------------------


def _fingerprint(match_id: int, photo: PhotoRead, asked: Asked) -> str:
    """This photo's hand as corrected, who won and how, in this match (not the deal's winds: once
    recorded the match moves on to the next deal, and the same hand must not go in again)."""
    tiles = [(tile.cls, tile.group) for tile in photo.reading.tiles]
    how = asked.context.self_drawn if asked.context is not None else None
    return hashlib.sha1(json.dumps([match_id, photo.key, tiles, asked.winner, asked.discarder, how]).encode()).hexdigest()


def record_tap(deal: OpenDeal, winner: str, discarder: str | None, hand: Hand, print_: str, recorded_key: str = RECORDED,
               message_key: str = RECORD_MESSAGE) -> bool:
    """The tap on "Record" (this page's, or the live page's with its own state keys): the ledger reads the match
    afresh and refuses a deal already taken. What became of it is kept for `record_status`; True when recorded."""
    from .match_state import SEEN, saw, store

    state = st.session_state
    done = record_win(store(), deal, winner, discarder, hand)
    if isinstance(done, Recorded):
        state.setdefault(recorded_key, {}).setdefault(deal.match_id, {})[print_] = deal.number
        if state.get(SEEN, {}).get(deal.match_id) == deal.revision:
            saw(deal.match_id, done.ledger.revision)  # this phone's own deal: the Match page does not call it another's
        row = done.ledger.rows[deal.number - 1]
        points = " · ".join(f"{p} {row.points[i]:+d}" for i, p in enumerate(done.ledger.match.players))
        said = ("recorded_win", {"n": deal.number, "id": deal.match_id, "winner": winner, "fan": done.deal.total,
                                 "points": points})
        state[message_key] = (print_, "success", said)  # put in words when shown: in the page's language then
        return True
    state[message_key] = (print_, "error", _refusal(done))
    return False


def _on_record(deal: OpenDeal, winner: str, discarder: str | None, hand: Hand, print_: str) -> None:
    record_tap(deal, winner, discarder, hand, print_)


def record_status(deal: OpenDeal, print_: str, recorded_key: str = RECORDED, message_key: str = RECORD_MESSAGE) -> int | None:
    """What became of the last tap on "Record" for this hand (`print_`), shown; the deal it was recorded as, or
    None while it can be recorded (a deal undone since is offered again)."""
    state = st.session_state
    done = state.get(recorded_key, {}).get(deal.match_id, {}).get(print_)
    message = state.get(message_key)
    if message and message[0] != print_:
        message = None  # about another hand, winner or match
    if done is not None and done >= deal.number:  # undone since (the match is back at that deal): offer it again
        state[recorded_key][deal.match_id].pop(print_)
        done, message = None, None
        state[message_key] = None
    if message:
        said = message[2]
        (st.success if message[1] == "success" else st.error)(t(said[0], **said[1]) if isinstance(said, tuple) else said)
    if done is not None and not (message and message[1] == "success"):
        st.success(t("already_recorded", n=done, id=deal.match_id))
    return done


def refusal_text(refused: NotRecorded) -> str:
    key, values = _refusal(refused)
    return t(key, **values)


def _refusal(refused: NotRecorded) -> tuple[str, dict[str, Any]]:
    """Why a win was not recorded, as a label and its values (put in words in the language it is shown in)."""
    if refused.reason == "under_minimum":
        return "record_under_minimum", {"fan": refused.total, "without": refused.total - refused.flowers}
    return "record_refused", {"msg": refused.detail}


def record_panel(photo: PhotoRead, deal: OpenDeal, asked: Asked, scored: Scored) -> None:
    """One tap records the win as the deal's; the same hand twice records one deal."""
    assert asked.winner is not None
    print_ = _fingerprint(deal.match_id, photo, asked)
    if record_status(deal, print_) is not None:
        return
    if not scored.hand.context.self_drawn and asked.discarder is None:
        st.caption(t("ask_discarder_player"))
        return
    st.button(t("record_win", n=deal.number, winner=asked.winner, fan=scored.result.total), key=PREFIX + "record",
              type="primary", icon=":material/scoreboard:", width="stretch", on_click=_on_record,
              args=(deal, asked.winner, asked.discarder, scored.hand, print_))


def deal_in_match() -> OpenDeal | None:
    """The next deal of the match this session has open, None without one (said why, when it is over)."""
    match_id = st.session_state.get(MATCH_CURRENT)
    if match_id is None:
        return None
    try:
        from ledger.match import LedgerError

        from .match import store

        found = open_deal(store(), match_id)
    except (LedgerError, ImportError, OSError) as exc:
        st.caption(t("match_unreadable", msg=str(exc)))
        return None
    if isinstance(found, MatchClosed):
        if found.reason == "over":
            st.caption(t("match_over_here", id=match_id))
        elif found.reason == "database":
            st.caption(t("match_unreadable", msg=found.detail))
        return None
    return found


def save_panel(photo: PhotoRead) -> None:
    """Save the corrected photo under the data root (a folder typed outside it is refused)."""
    with st.expander(t("save")):
        root = data_root()
        try:
            default = relative_name(root, SETTINGS.labeled_dir)
        except ValueError:
            default = "labeled"
        st.session_state.setdefault(SAVE_DIR, default)
        data_folder_input(t("save_dir"), SAVE_DIR, placeholder=default)
        if st.button(t("save"), key=PREFIX + "save"):
            try:
                folder = resolve_inside(root, st.session_state[SAVE_DIR])
            except OutsideDataRoot as exc:
                st.error(t("outside_root", root=str(root), msg=str(exc)))
                return
            try:
                image_path, label_path = save_for_training(
                    photo.image_bgr, photo.reading, folder, photo_name(photo.image_bytes), model=photo.model
                )
            except SaveError as exc:
                st.error(t("save_failed", msg=str(exc)))
            else:
                st.success(t("saved", image=str(image_path), labels=str(label_path)))


