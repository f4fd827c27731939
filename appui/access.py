"""LAN mode's access code: every browser session enters it before any page works.

`bash scripts/app.sh --lan` (appui.lan) puts the code in the environment of the Streamlit process
(`MCR_ACCESS_CODE`, generated when the user set none) and sets `MCR_LAN=1`.  The code is compared
in constant time; after a few wrong tries, from any browser, each further try waits longer
(one guard per server process, so opening new sessions does not reset it).
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .settings import DEFAULT_APP_SETTINGS, AppSettings

ACCESS_CODE_ENV = "MCR_ACCESS_CODE"
LAN_ENV = "MCR_LAN"
CODE_DIGITS = 6
GRANTED_KEY = "access.granted"
CODE_INPUT_KEY = "access.code"


def lan_mode() -> bool:
    """The app was started with `scripts/app.sh --lan`: other computers may reach it."""
    return os.environ.get(LAN_ENV) == "1"


def new_code(digits: int = CODE_DIGITS) -> str:
    """A random numeric code (a phone's number pad types it)."""
    return f"{secrets.randbelow(10**digits):0{digits}d}"


def expected_code() -> str | None:
    code = os.environ.get(ACCESS_CODE_ENV, "").strip()
    return code or None


@dataclass(frozen=True)
class Attempt:
    """The answer to one try: granted, or refused (and how long until the next try is taken)."""

    granted: bool
    wait_s: float = 0.0  # seconds until the next try is looked at
    checked: bool = True  # False: refused unseen, too soon after wrong tries


class AccessGuard:
    """Checks tries against the code; after `free_tries` wrong ones each next try waits longer."""

    def __init__(self, code: str, settings: AppSettings = DEFAULT_APP_SETTINGS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not code:
            raise ValueError("the access code must not be empty")
        self._code = code.encode()
        self._settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._next_try = 0.0

    def delay_after(self, failures: int) -> float:
        """Seconds to wait after `failures` wrong tries in a row."""
        s = self._settings
        extra = failures - s.access_free_tries
        if extra < 0:
            return 0.0
        return min(s.access_max_delay_s, s.access_first_delay_s * 2.0**extra)

    def attempt(self, entered: str) -> Attempt:
        with self._lock:
            now = self._clock()
            if now < self._next_try:
                return Attempt(False, self._next_try - now, checked=False)
            if hmac.compare_digest(entered.strip().encode(), self._code):
                self._failures = 0
                self._next_try = 0.0
                return Attempt(True)
            self._failures += 1
            wait = self.delay_after(self._failures)
            self._next_try = now + wait
            return Attempt(False, wait)


_guards: dict[str, AccessGuard] = {}
_guards_lock = threading.Lock()


def guard_for(code: str) -> AccessGuard:
    """The one guard of this server process for `code`."""
    with _guards_lock:
        if code not in _guards:
            _guards[code] = AccessGuard(code)
        return _guards[code]


def gate() -> bool:
    """True when this session may use the app; otherwise draws the code form and returns False.

    Outside LAN mode (loopback only) there is no code and the app is open.
    """
    if not lan_mode():
        return True
    import streamlit as st

    from .i18n import t

    if st.session_state.get(GRANTED_KEY):
        return True
    code = expected_code()
    st.title(t("access_title"))
    if code is None:  # LAN mode without a code would be open to the whole network: refuse
        st.error(t("access_no_code"))
        return False
    st.caption(t("access_intro"))
    with st.form("access.form"):
        entered = st.text_input(t("access_code"), type="password", key=CODE_INPUT_KEY, max_chars=64)
        submitted = st.form_submit_button(t("access_enter"), type="primary")
    if submitted:
        result = guard_for(code).attempt(entered or "")
        if result.granted:
            st.session_state[GRANTED_KEY] = True
            st.rerun()
        else:
            st.error(refusal(result))
    return False


def refusal(result: Attempt) -> str:
    """Why a try was refused, in the page's language."""
    from .i18n import t

    wait = t("access_wait", s=max(1, round(result.wait_s))) if result.wait_s > 0 else ""
    if not result.checked:
        return t("access_too_soon") + " " + wait
    return (t("access_wrong") + " " + wait).strip()


def confirm_again(key: str) -> bool:
    """For actions that change the app for everyone (the model in use): in LAN mode the code again.

    Draws a code box under `key` and returns whether it holds the right code; always True outside
    LAN mode.  Wrong codes count against the same guard as the sign-in.
    """
    if not lan_mode():
        return True
    import streamlit as st

    from .i18n import t

    code = expected_code()
    if code is None:
        return False
    entered = st.text_input(t("access_again"), type="password", key=key, max_chars=64)
    if not entered:
        return False
    checked = st.session_state.get(key + ".checked")  # (entry, granted): each entry is tried once
    if checked is None or checked[0] != entered:
        result = guard_for(code).attempt(entered)
        if not result.granted:
            st.error(refusal(result))
        if result.checked:
            st.session_state[key + ".checked"] = (entered, result.granted)
        return result.granted
    if not checked[1]:
        st.error(t("access_wrong"))
    return bool(checked[1])
