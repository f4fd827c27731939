"""LAN mode: the access code (right, wrong, slower after wrong tries), the data root's refusals,
the certificate and QR code, and that LAN mode listens beyond loopback (tests talk to loopback only)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from app_support import APP, TIMEOUT
from browser_support import listening_addresses, streamlit_process, websocket_status
from lan_support import CODE, Clock, enter
from streamlit.testing.v1 import AppTest

from appui.access import AccessGuard, new_code
from appui.dataroot import OutsideDataRoot, data_root, resolve_inside, subfolders
from appui.lan import answer_plain_http, certificate_hosts, ensure_certificate, main, plain_http_answer, plan, qr_png, qr_text
from appui.settings import AppSettings


def test_the_right_code_is_granted_and_a_wrong_one_refused():
    guard = AccessGuard(CODE, clock=Clock())
    assert not guard.attempt("482914").granted
    assert not guard.attempt("").granted
    assert guard.attempt(f" {CODE} ").granted  # a pasted space does not matter


def test_wrong_tries_slow_further_tries_down_doubling():
    clock = Clock()
    settings = AppSettings(access_free_tries=3, access_first_delay_s=2.0, access_max_delay_s=30.0)
    guard = AccessGuard(CODE, settings, clock)
    waits = [guard.attempt("000000").wait_s for _ in range(3)]
    assert waits == [0.0, 0.0, 2.0]  # the third wrong try starts the waiting
    refused = guard.attempt(CODE)  # even the right code is not looked at while waiting
    assert not refused.granted and not refused.checked and refused.wait_s == pytest.approx(2.0)
    delays = []
    for _ in range(5):
        clock.now += 1000
        delays.append(guard.attempt("000000").wait_s)
    assert delays == [4.0, 8.0, 16.0, 30.0, 30.0]
    clock.now += 29
    assert not guard.attempt(CODE).checked
    clock.now += 2
    assert guard.attempt(CODE).granted
    assert guard.attempt("000000").wait_s == 0.0  # the right code reset the count


def test_generated_codes_are_six_digits_and_differ():
    codes = {new_code() for _ in range(50)}
    assert all(len(c) == 6 and c.isdigit() for c in codes) and len(codes) > 40


def lan_app(monkeypatch, code: str = CODE) -> AppTest:
    monkeypatch.setenv("MCR_LAN", "1")
    monkeypatch.setenv("MCR_LAN_URL", "https://192.168.1.20:8501")
    monkeypatch.setenv("MCR_ACCESS_CODE", code)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    return at


def sidebar_images(at: AppTest) -> list:
    return [e for e in at.sidebar.children.values() if type(e).__name__ == "Image"]


def test_lan_mode_shows_no_page_before_the_code(monkeypatch):
    at = lan_app(monkeypatch, code="731640")
    assert [t.value for t in at.title] == ["Enter the access code"]
    assert not [u for u in at.get("file_uploader")]
    enter(at, "111111")
    assert any("not the code" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.get("file_uploader")
    assert not sidebar_images(at)  # not even the QR code before the code
    enter(at, "731640")
    assert [t.value for t in at.title] == ["Score a photo"]  # the start page, now open
    assert at.get("file_uploader")
    assert len(sidebar_images(at)) == 1  # the URL's QR code, for the next phone


def test_without_lan_mode_there_is_no_code(monkeypatch):
    monkeypatch.delenv("MCR_LAN", raising=False)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert [t.value for t in at.title] == ["Score a photo"]


def test_lan_mode_without_a_code_stays_closed(monkeypatch):
    monkeypatch.setenv("MCR_LAN", "1")
    monkeypatch.delenv("MCR_ACCESS_CODE", raising=False)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert any("needs an access code" in e.value for e in at.error)
    assert not at.get("file_uploader")


# ---- the data root


def test_paths_inside_the_root_are_taken_relative_to_it(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    assert resolve_inside(root, "labeled") == root.resolve() / "labeled"
    assert resolve_inside(root, "a/../b") == root.resolve() / "b"
    assert resolve_inside(root, str(root / "x")) == root.resolve() / "x"
    assert resolve_inside(root, ".") == root.resolve()


@pytest.mark.parametrize("bad", ["..", "../elsewhere", "/etc", "labeled/../../x", "~", ""])
def test_paths_outside_the_root_are_refused(tmp_path, bad):
    root = tmp_path / "data"
    root.mkdir()
    with pytest.raises(OutsideDataRoot):
        resolve_inside(root, bad)


def test_a_symlink_out_of_the_root_is_refused_and_not_offered(tmp_path):
    root = tmp_path / "data"
    (root / "mine").mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    os.symlink(tmp_path / "secret", root / "link")
    with pytest.raises(OutsideDataRoot):
        resolve_inside(root, "link/labels")
    assert subfolders(root) == ["mine"]


def test_data_root_comes_from_mcr_data_or_the_home(tmp_path):
    assert data_root({"MCR_DATA": str(tmp_path)}) == tmp_path.resolve()
    assert data_root({}) == (Path.home() / ".mcr-scorer").resolve()


# ---- certificate and QR code


def test_certificate_names_the_lan_addresses_and_is_reused(tmp_path):
    first = ensure_certificate(tmp_path, ["192.168.1.20"])
    assert first.created
    hosts, expires = certificate_hosts(first.cert_path)
    assert {"127.0.0.1", "localhost", "192.168.1.20"} <= set(hosts)
    assert oct(first.key_path.stat().st_mode & 0o777) == "0o600"
    again = ensure_certificate(tmp_path, ["192.168.1.20"])
    assert not again.created and again.cert_path.read_bytes() == first.cert_path.read_bytes()
    moved = ensure_certificate(tmp_path, ["10.0.0.5"])  # another network: a certificate naming it
    assert moved.created and "10.0.0.5" in certificate_hosts(moved.cert_path)[0]
    late = ensure_certificate(tmp_path, ["10.0.0.5"], now=expires.replace(tzinfo=dt.UTC) - dt.timedelta(days=1))
    assert late.created  # about to expire: renewed


def test_qr_code_for_terminal_and_sidebar_reads_back_as_the_url():
    import cv2
    import numpy as np

    url = "https://192.168.1.20:8501"
    text = qr_text(url)
    assert len(text.splitlines()) > 10 and "█" in text and "▄" in text
    image = cv2.imdecode(np.frombuffer(qr_png(url), np.uint8), cv2.IMREAD_GRAYSCALE)
    decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decoded == url


def test_lan_plan_generates_a_code_or_keeps_the_users(tmp_path):
    generated = plan(8600, (), {"MCR_DATA": str(tmp_path)})
    assert generated.code_generated and generated.env["MCR_ACCESS_CODE"] == generated.code
    assert generated.env["MCR_LAN"] == "1" and generated.url.startswith("https://")
    mine = plan(8600, (), {"MCR_DATA": str(tmp_path), "MCR_ACCESS_CODE": "tea-time"})
    assert mine.code == "tea-time" and not mine.code_generated
    assert (tmp_path / "lan" / "lan-cert.pem").is_file()


@pytest.mark.slow
def test_lan_mode_listens_beyond_loopback_over_https(tmp_path):
    env = {"MCR_DATA": str(tmp_path), "MCR_ACCESS_CODE": CODE}
    with streamlit_process(["lan"], env, https=True) as (port, terminal):
        addresses = listening_addresses(port)
        lan = plan(port, (), {"MCR_DATA": str(tmp_path)})
        lan_host = lan.url.split("//")[1].split(":")[0]
        statuses = {host: websocket_status(port, f"{host}:{port}", https=True)
                    for host in ("127.0.0.1", lan_host, "rebound.example")}
        plain = http_get(port, f"127.0.0.1:{port}")  # http:// typed on the https port
    assert addresses & {"0.0.0.0", "*", "::"}, addresses
    assert statuses == {"127.0.0.1": 101, lan_host: 101, "rebound.example": 403}, statuses
    assert plain[0] == 301 and plain[1] == f"https://127.0.0.1:{port}/" and "served over <b>https</b>" in plain[2]
    assert f"Access code:  {CODE}" in terminal and "https://" in terminal
    assert "█" in terminal  # the QR code


def test_the_folder_picker_lists_folders_inside_the_root_and_fills_the_box(tmp_path, monkeypatch):
    (tmp_path / "club-set" / "images").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    root = tmp_path / "root"
    (root / "club-set").mkdir(parents=True)
    os.symlink(tmp_path / "outside", root / "sneaky")
    monkeypatch.setenv("MCR_DATA", str(root))

    def page() -> None:
        import streamlit as st

        from appui.widgets import data_folder_input

        st.write("typed:", data_folder_input("Photo folder", "f"))

    at = AppTest.from_function(page).run()
    assert at.selectbox(key="f.pick").options == ["club-set"]  # the symlink out is not offered
    at.selectbox(key="f.pick").set_value("club-set").run()
    assert at.text_input(key="f").value == "club-set"


def http_get(port: int, host: str) -> tuple[int, str, str]:
    """(status, Location, body) of a plain http:// GET on 127.0.0.1:`port` claiming Host `host`."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/photo", headers={"Host": host})
        response = connection.getresponse()
        return response.status, response.getheader("Location") or "", response.read().decode()
    finally:
        connection.close()


@pytest.mark.parametrize("request_tail, location", [
    (b"photo HTTP/1.1\r\nHost: 192.168.1.5:8501\r\nAccept: */*\r\n\r\n", "https://192.168.1.5:8501/"),
    (b"photo HTTP/1.1\r\nhost:  laptop.local:8501\r\n\r\n", "https://laptop.local:8501/"),
    (b"photo HTTP/1.1\r\nHost: evil.example/\"><script>\r\n\r\n", "https://10.0.0.2:8501/"),  # not a host: the printed URL
    (b"", "https://10.0.0.2:8501/"),
])
def test_plain_http_on_the_https_port_is_sent_to_https(request_tail, location):
    answer = plain_http_answer(request_tail, "https://10.0.0.2:8501")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 301 ") and f"\r\nLocation: {location}\r\n".encode() in head
    assert f"Content-Length: {len(body)}".encode() in head and f'<a href="{location}">'.encode() in body
    assert "请打开".encode() in body


def test_a_tls_server_answers_plain_http_with_the_redirect_and_still_speaks_https(tmp_path):
    import asyncio
    import http.client
    import ssl

    certificate = ensure_certificate(tmp_path, [])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate.cert_path, certificate.key_path)
    answer_plain_http("https://10.0.0.2:8501")
    answer_plain_http("https://10.0.0.2:8501")  # installed once

    async def hello(_reader, writer) -> None:  # type: ignore[no-untyped-def]
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        await writer.drain()
        writer.close()

    def both(port: int) -> tuple[tuple[int, str, str], str]:
        plain = http_get(port, f"127.0.0.1:{port}")
        secure = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=ssl._create_unverified_context())
        secure.request("GET", "/")
        return plain, secure.getresponse().read().decode()

    async def run() -> tuple[tuple[int, str, str], str]:
        server = await asyncio.start_server(hello, "127.0.0.1", 0, ssl=context)
        try:
            return await asyncio.get_running_loop().run_in_executor(None, both, server.sockets[0].getsockname()[1])
        finally:
            server.close()

    (status, location, body), secure = asyncio.run(run())
    assert status == 301 and location.startswith("https://127.0.0.1:") and "https" in body
    assert secure == "hello"


def test_a_dry_run_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    assert main(["serve", "--dry-run", "--port", "8600"]) == 0
    out = capsys.readouterr().out
    assert "streamlit run" in out and "none yet: a real start makes it" in out
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.pem"))
