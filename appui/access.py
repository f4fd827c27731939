"""LAN mode's access code: every browser session enters it before any page works.

`bash scripts/app.sh --lan` (appui.lan) puts the code in the environment of the Streamlit process
(`MCR_ACCESS_CODE`, generated when the user set none) and sets `MCR_LAN=1`.  The code is compared
in constant time; after a few wrong tries from one client (its IP address), each further try from
it waits longer, while other clients are not slowed (one guard per server process, so opening new
sessions does not reset it).

Beside the pages, LAN mode's server (`app_lan.py`) puts `AccessMiddleware` in front of Streamlit:
uploads are taken only for sessions that entered the code, the metrics and agent endpoints are off,
and every browser gets a random HttpOnly cookie; once that browser enters the code, a reload or a
new tab is let in without it for `access_remember_hours`.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from .settings import DEFAULT_APP_SETTINGS, AppSettings

ACCESS_CODE_ENV = "MCR_ACCESS_CODE"
LAN_ENV = "MCR_LAN"
CODE_DIGITS = 6
GRANTED_KEY = "access.granted"
CODE_INPUT_KEY = "access.code"
BROWSER_COOKIE = "mcr_browser"  # a random name for the browser, HttpOnly; the server remembers which entered the code


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


@dataclass
class _Tries:
    failures: int = 0
    next_try: float = 0.0


class AccessGuard:
    """Checks tries against the code; after `free_tries` wrong ones from a client each next try from it waits longer.

    A client is what `client_key` names (the IP address); wrong tries from one client never slow
    another down.  The `access_clients_kept` clients tried last are remembered.
    """

    def __init__(self, code: str, settings: AppSettings = DEFAULT_APP_SETTINGS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not code:
            raise ValueError("the access code must not be empty")
        self._code = code.encode()
        self._settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, _Tries] = OrderedDict()

    def delay_after(self, failures: int) -> float:
        """Seconds to wait after `failures` wrong tries in a row."""
        s = self._settings
        extra = failures - s.access_free_tries
        if extra < 0:
            return 0.0
        return min(s.access_max_delay_s, s.access_first_delay_s * 2.0**extra)

    def attempt(self, entered: str, client: str = "") -> Attempt:
        with self._lock:
            now = self._clock()
            tries = self._clients.pop(client, None) or _Tries()
            self._clients[client] = tries  # the newest at the end
            while len(self._clients) > self._settings.access_clients_kept:
                self._clients.popitem(last=False)
            if now < tries.next_try:
                return Attempt(False, tries.next_try - now, checked=False)
            if hmac.compare_digest(entered.strip().encode(), self._code):
                del self._clients[client]
                return Attempt(True)
            tries.failures += 1
            wait = self.delay_after(tries.failures)
            tries.next_try = now + wait
            return Attempt(False, wait)


class Grants:
    """Who entered the code: the app's sessions (their uploads are taken) and the browsers (their
    cookie lets a reload in for `access_remember_hours`)."""

    def __init__(self, settings: AppSettings = DEFAULT_APP_SETTINGS, clock: Callable[[], float] = time.monotonic) -> None:
        self._settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, None] = OrderedDict()
        self._browsers: OrderedDict[str, float] = OrderedDict()  # cookie value -> until (clock)

    def grant(self, session_id: str | None, browser: str | None) -> None:
        keep = self._settings.access_clients_kept
        with self._lock:
            if session_id:
                self._sessions.pop(session_id, None)
                self._sessions[session_id] = None
                while len(self._sessions) > keep:
                    self._sessions.popitem(last=False)
            if browser and _TOKEN.fullmatch(browser):
                self._browsers.pop(browser, None)
                self._browsers[browser] = self._clock() + self._settings.access_remember_hours * 3600
                while len(self._browsers) > keep:
                    self._browsers.popitem(last=False)

    def session_granted(self, session_id: str) -> bool:
        with self._lock:
            return session_id in self._sessions

    def browser_granted(self, browser: str | None) -> bool:
        if not browser:
            return False
        with self._lock:
            until = self._browsers.get(browser)
            if until is None:
                return False
            if self._clock() >= until:
                del self._browsers[browser]
                return False
            return True


_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,64}")
GRANTS = Grants()


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

    session_id, browser = _session_and_browser()
    if st.session_state.get(GRANTED_KEY) or GRANTS.browser_granted(browser):
        st.session_state[GRANTED_KEY] = True
        GRANTS.grant(session_id, browser)
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
        result = guard_for(code).attempt(entered or "", client_key())
        if result.granted:
            st.session_state[GRANTED_KEY] = True
            GRANTS.grant(session_id, browser)
            st.rerun()
        else:
            st.error(refusal(result))
    return False


def _session_and_browser() -> tuple[str | None, str | None]:
    """This script run's session id and its browser's cookie (None where there is none, as in AppTest)."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    try:
        browser = st.context.cookies.get(BROWSER_COOKIE)
    except Exception:  # no request behind this run (AppTest)
        browser = None
    return (ctx.session_id if ctx else None), (browser if isinstance(browser, str) else None)


def client_key() -> str:
    """Whose wrong tries these are: the client's IP address, else (no address known) the session."""
    import streamlit as st

    try:
        address = st.context.ip_address
    except Exception:  # no request behind this run (AppTest)
        address = None
    if isinstance(address, str) and address:
        return "ip:" + address
    session_id, _ = _session_and_browser()
    return "session:" + (session_id or "")


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
        result = guard_for(code).attempt(entered, client_key())
        if not result.granted:
            st.error(refusal(result))
        if result.checked:
            st.session_state[key + ".checked"] = (entered, result.granted)
        return result.granted
    if not checked[1]:
        st.error(t("access_wrong"))
    return bool(checked[1])


# ---- LAN mode's server: what Streamlit's own routes would give anyone who can reach the port

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_UPLOAD = re.compile(r"/_stcore/upload_file/([^/]+)")
_CLOSED = re.compile(r"/_stcore/(metrics|agent)(/|$)")


class AccessMiddleware:
    """An ASGI middleware in front of Streamlit in LAN mode.

    Refuses uploads (PUT/DELETE /_stcore/upload_file/SESSION/...) unless SESSION entered the code,
    answers 404 for the metrics and agent endpoints, and gives a browser that has none the random
    cookie `BROWSER_COOKIE` with the page, so that `gate` can let it in again after a reload.
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], grants: Grants | None = None,
                 settings: AppSettings = DEFAULT_APP_SETTINGS) -> None:
        self.app = app
        self.grants = grants or GRANTS
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if _CLOSED.search(path):
            await _plain(send, 404, "Not found. / 没有这个页面。")
            return
        upload = _UPLOAD.search(path)
        if upload and scope.get("method") != "OPTIONS" and not self.grants.session_granted(upload.group(1)):
            await _plain(send, 403, "Enter the access code first. / 请先输入访问码。")
            return
        if _cookie(scope, BROWSER_COOKIE) is not None:
            await self.app(scope, receive, send)
            return
        cookie = _browser_cookie(secrets.token_urlsafe(32), https=scope.get("scheme") == "https",
                                 max_age_s=round(self.settings.access_remember_hours * 3600))

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers):
                    message["headers"] = [*headers, (b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _browser_cookie(value: str, https: bool, max_age_s: int) -> str:
    return f"{BROWSER_COOKIE}={value}; Path=/; Max-Age={max_age_s}; HttpOnly; SameSite=Strict" + ("; Secure" if https else "")


def _cookie(scope: Scope, name: str) -> str | None:
    from http.cookies import CookieError, SimpleCookie

    for key, value in scope.get("headers", []):
        if key.lower() == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except CookieError:
                continue
            if name in jar:
                return jar[name].value
    return None


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
