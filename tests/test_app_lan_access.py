"""LAN mode's access code beyond the form: wrong tries slow down only the client that made them,
uploads need a session that entered the code, metrics and the agent API are off, and a browser that
entered the code keeps it across a reload for `access_remember_hours` (appui.access)."""

from __future__ import annotations

import asyncio
import http.client
import re
import ssl

import httpx
import pytest
from app_support import APP, TIMEOUT
from browser_support import CHROMIUM, CHROMIUM_ARGS, require_browser, streamlit_process, wait_for_app
from lan_support import CODE, Clock, enter
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route
from streamlit.testing.v1 import AppTest

import appui.access as access
from appui.access import BROWSER_COOKIE, AccessGuard, AccessMiddleware, Grants
from appui.settings import AppSettings

TIMEOUT_MS = 60_000


def test_wrong_tries_from_one_client_do_not_lock_out_another():
    settings = AppSettings(access_free_tries=3, access_first_delay_s=2.0, access_max_delay_s=120.0)
    guard = AccessGuard(CODE, settings, Clock())
    for _ in range(6):
        guard.attempt("000000", "ip:192.168.1.66")
    locked = guard.attempt(CODE, "ip:192.168.1.66")
    assert not locked.granted and not locked.checked and locked.wait_s > 0
    assert guard.attempt(CODE, "ip:192.168.1.20").granted  # the player's phone: right in
    assert guard.attempt("000000", "ip:192.168.1.21").wait_s == 0.0  # a third phone starts with free tries


def test_only_the_clients_tried_last_are_remembered():
    settings = AppSettings(access_free_tries=1, access_first_delay_s=5.0, access_clients_kept=3)
    guard = AccessGuard(CODE, settings, Clock())
    guard.attempt("000000", "ip:10.0.0.1")
    assert not guard.attempt("000000", "ip:10.0.0.1").granted
    assert not guard.attempt(CODE, "ip:10.0.0.1").checked  # waiting
    for i in range(2, 6):
        guard.attempt("000000", f"ip:10.0.0.{i}")
    assert guard.attempt(CODE, "ip:10.0.0.1").granted  # forgotten beyond the 3 kept


def test_a_browser_keeps_the_code_for_the_hours_set_and_sessions_their_grant():
    clock = Clock()
    grants = Grants(AppSettings(access_remember_hours=2.0), clock)
    browser = "b" * 43
    assert not grants.browser_granted(browser) and not grants.session_granted("s1")
    grants.grant("s1", browser)
    assert grants.session_granted("s1") and not grants.session_granted("s2")
    clock.now += 2 * 3600 - 1
    assert grants.browser_granted(browser)
    clock.now += 2
    assert not grants.browser_granted(browser)
    grants.grant(None, "short")  # not a cookie the server gives out: never remembered
    assert not grants.browser_granted("short")


class Client:
    """Requests to an ASGI app in this process (httpx's ASGI transport)."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, content: bytes | None = None) -> httpx.Response:
        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="https://testserver", cookies=self.cookies) as client:
                response = await client.request(method, path, content=content)
                self.cookies.update(client.cookies)
                return response

        return asyncio.run(send())

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def put(self, path: str, content: bytes) -> httpx.Response:
        return self.request("PUT", path, content)

    def delete(self, path: str) -> httpx.Response:
        return self.request("DELETE", path)

    def options(self, path: str) -> httpx.Response:
        return self.request("OPTIONS", path)


def middleware_client(grants: Grants) -> Client:
    async def page(request):  # type: ignore[no-untyped-def]
        return HTMLResponse("<html>the app</html>")

    async def anything(request):  # type: ignore[no-untyped-def]
        return PlainTextResponse("streamlit answered")

    app = Starlette(
        routes=[Route("/", page), Route("/photo", page), Route("/_stcore/{rest:path}", anything, methods=["GET", "PUT", "DELETE", "OPTIONS"])],
        middleware=[Middleware(AccessMiddleware, grants=grants)],
    )
    return Client(app)


def test_uploads_need_a_session_that_entered_the_code():
    grants = Grants()
    client = middleware_client(grants)
    assert client.put("/_stcore/upload_file/s1/f1", content=b"x" * 1000).status_code == 403
    assert client.delete("/_stcore/upload_file/s1/f1").status_code == 403
    assert client.options("/_stcore/upload_file/s1/f1").status_code == 200  # the browser's preflight
    grants.grant("s1", None)
    assert client.put("/_stcore/upload_file/s1/f1", content=b"x").text == "streamlit answered"
    assert client.put("/_stcore/upload_file/s2/f1", content=b"x").status_code == 403


@pytest.mark.parametrize("path", ["/_stcore/metrics", "/_stcore/metrics?families=x", "/_stcore/agent/openapi.json",
                                  "/_stcore/agent/interact", "/_stcore/agent"])
def test_metrics_and_the_agent_api_are_off(path):
    response = middleware_client(Grants()).get(path)
    assert response.status_code == 404 and "streamlit" not in response.text


def test_the_page_gives_a_browser_its_cookie_once():
    client = middleware_client(Grants())
    first = client.get("/photo")
    cookie = first.headers["set-cookie"]
    assert re.match(rf"{BROWSER_COOKIE}=[A-Za-z0-9_-]{{43}}; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$", cookie)
    assert "set-cookie" not in client.get("/").headers  # it has one now
    assert "set-cookie" not in middleware_client(Grants()).get("/_stcore/health").headers  # only pages set it


def test_wrong_codes_in_one_session_leave_another_clients_session_open(monkeypatch):
    """The gate counts tries against the client that made them (here two phones by their addresses)."""
    monkeypatch.setenv("MCR_LAN", "1")
    monkeypatch.setenv("MCR_ACCESS_CODE", CODE)
    monkeypatch.setattr(access, "_guards", {})
    phone = {"address": "ip:192.168.1.66"}
    monkeypatch.setattr(access, "client_key", lambda: phone["address"])

    other = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    for _ in range(6):
        enter(other, "000000")
    assert any("Try again in" in e.value for e in other.error), [e.value for e in other.error]
    phone["address"] = "ip:192.168.1.20"
    player = enter(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), CODE)
    assert [t.value for t in player.title] == ["Score a photo"]


# ---- the server and a browser


def request(port: int, method: str, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=ssl._create_unverified_context())
    connection.request(method, path, body=b"x" if method == "PUT" else None, headers=headers or {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.mark.slow
def test_lan_server_closes_uploads_metrics_and_keeps_the_code_over_a_reload(tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    env = {"MCR_DATA": str(tmp_path / "data"), "MCR_ACCESS_CODE": CODE}
    with streamlit_process(["lan"], env, https=True) as (port, _), sync_playwright() as p:
        assert request(port, "GET", "/_stcore/metrics").status == 404
        assert request(port, "PUT", "/_stcore/upload_file/any-session/any-file").status == 403
        assert request(port, "GET", "/_stcore/health").status == 200
        url = f"https://127.0.0.1:{port}"
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport={"width": 390, "height": 844}, ignore_https_errors=True)
        page = context.new_page()
        page.goto(f"{url}/photo")  # a page's own address before the code: the code form, nothing else
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_text("Enter the access code").wait_for(timeout=TIMEOUT_MS)
        assert "not found" not in page.locator("body").inner_text().lower()
        cookies = {c["name"]: c for c in context.cookies()}
        assert cookies[BROWSER_COOKIE]["httpOnly"] and cookies[BROWSER_COOKIE]["secure"]

        page.locator("input[type=password]").fill(CODE)
        page.get_by_role("button", name="Enter").click()
        page.get_by_role("heading", name="Score a photo").wait_for(timeout=TIMEOUT_MS)
        assert "not found" not in page.locator("body").inner_text().lower()  # the start page, at the root
        with page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT") as upload:
            page.locator("input[type=file]").first.set_input_files(files=[{"name": "photo.jpg", "mimeType": "image/jpeg",
                                                                           "buffer": b"not really a photo"}])
        assert upload.value.status < 300  # this session entered the code: its upload is taken

        page.reload()  # a reload is a new session of the same browser: still in
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_role("heading", name="Score a photo").wait_for(timeout=TIMEOUT_MS)
        assert page.locator("input[type=password]").count() == 0

        stranger = chromium.new_context(viewport={"width": 390, "height": 844}, ignore_https_errors=True).new_page()
        stranger.goto(f"{url}/photo")  # another browser asks
        wait_for_app(stranger, TIMEOUT_MS)
        stranger.get_by_text("Enter the access code").wait_for(timeout=TIMEOUT_MS)
        chromium.close()
