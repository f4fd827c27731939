"""The Match pages' session state and database: the store shared by every session, and what this session
has shown of each match (every write names that revision; a refusal is told in the page's language)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ledger.match import (
    LedgerError,
    StaleWrite,
)
from ledger.store import LedgerStore, default_url

from .match_words import plain, refusal_words

PREFIX = "match."
MATCH_ID = PREFIX + "id"
MESSAGE = PREFIX + "message"
NOTATION = PREFIX + "notation"
SOURCE = PREFIX + "source"
PENDING = PREFIX + "pending"  # the deal sent to another page for scoring (widget state does not survive a page switch)
CURRENT = PREFIX + "current"  # the match this session's Match page shows (not a widget key: kept on other pages)
ADDED = PREFIX + "added"  # the last win "Add to match" recorded: a second click of the same hand adds nothing
SEEN = PREFIX + "seen"  # {match id: the revision this session last showed}: every write names it
ASK = PREFIX + "ask"  # an undo / close / reopen waiting for its confirmation: (what, match id, deal number, question, yes)
UNDONE = PREFIX + "undone"  # (match id, the deal this session undid, the revision after): it may be redone
MATCH_PARAM = "match"  # ?match=UID: a table's link opens its own match
TOURNAMENT = PREFIX + "tournament"
# the other pages' session keys (appui.manual / appui.photo; read, not imported: the photo page loads the models)
MANUAL_PREFIX, PHOTO_PREFIX = "manual.", "photo."
MANUAL_DRAFT, PHOTO_READ = "manual.draft", "photo.photo"
PAGE_PREFIXES = {"manual": MANUAL_PREFIX, "photo": PHOTO_PREFIX}
MATCH_PAGE = "appui/pages/match.py"


@st.cache_resource(show_spinner=False)
def _store(url: str) -> LedgerStore:
    return LedgerStore(url)


def store() -> LedgerStore:
    """The process's store for the current database URL (one engine shared by every session)."""
    return _store(default_url())


# --- what this session has shown ------------------------------------------------


def seen_revision(match_id: int, current: int) -> int:
    """The revision of `match_id` this session last showed its player (`current` the first time)."""
    seen: dict[int, int] = st.session_state.setdefault(SEEN, {})
    return seen.setdefault(match_id, current)


def saw(match_id: int, revision: int) -> None:
    st.session_state.setdefault(SEEN, {})[match_id] = revision


def catch_up(exc: LedgerError, match_id: int) -> None:
    """After a refusal that told the player what changed, the page shows the match as it is."""
    if isinstance(exc, StaleWrite) and exc.changes:
        saw(match_id, exc.changes[-1].revision)


def flash(text: str | None, kind: str = "error") -> None:
    """What the last click did, shown once by the next run: an "error" (refused), "success" or "info"."""
    st.session_state[MESSAGE] = None if text is None else (kind, text)


def show_flash() -> None:
    """The last click's message, once."""
    message = st.session_state.pop(MESSAGE, None)
    if message:
        kind, text = message
        {"success": st.success, "info": st.info}.get(kind, st.error)(plain(text))


def write(match_id: int, action: Callable[[int], object]) -> bool:
    """Run one write with the revision this session showed; a refusal is told in the page's language."""
    seen = seen_revision(match_id, 0)
    try:
        action(seen)
    except LedgerError as exc:
        catch_up(exc, match_id)
        flash(refusal_words(exc))
        return False
    saw(match_id, seen + 1)
    flash(None)
    return True


