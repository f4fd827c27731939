"""LAN mode: serve the app over HTTPS to the phones on the network (`bash scripts/app.sh --lan`).

A phone browser opens its camera only on a secure page, so LAN mode serves HTTPS with a
self-signed certificate made on first run (kept under the data root, reused while it still
names this computer's addresses), listens on every interface, and prints the URL, a QR code of
it and the access code every browser session must enter (`appui.access`).

    python -m appui.lan serve [--port 8501] [STREAMLIT ARGS...]   # what scripts/app.sh --lan runs (--server.port too)
    python -m appui.lan addresses                                 # the LAN addresses the certificate names
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import ipaddress
import os
import socket
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .access import ACCESS_CODE_ENV, LAN_ENV, new_code
from .dataroot import data_root

LAN_URL_ENV = "MCR_LAN_URL"
CERT_DAYS = 825  # the longest a browser accepts for a server certificate
RENEW_BEFORE_DAYS = 30
DEFAULT_PORT = 8501
LOOPBACK_NAMES = ("127.0.0.1", "localhost")
SERVER_SCRIPT = "app_lan.py"  # app.py behind the access check of uploads, metrics and reloads (appui.access)


def lan_addresses() -> tuple[str, ...]:
    """This computer's IPv4 addresses other than loopback, the default route's first (no packet is sent)."""
    found: list[str] = []
    try:  # the address the default route leaves from: a UDP "connect" sends nothing
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.254.254.254", 1))
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    try:
        import psutil

        for addresses in psutil.net_if_addrs().values():
            found.extend(a.address for a in addresses if a.family == socket.AF_INET)
    except ImportError:
        with contextlib.suppress(OSError):
            found.extend(str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    return tuple(dict.fromkeys(a for a in found if _is_lan(a)))


def _is_lan(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


@dataclass(frozen=True)
class Certificate:
    cert_path: Path
    key_path: Path
    hosts: tuple[str, ...]  # the names and addresses in its subject alternative names
    created: bool  # made now (the phone accepts it once more) or reused


def certificate_hosts(cert_path: Path) -> tuple[tuple[str, ...], dt.datetime]:
    """The DNS names and IP addresses a certificate names, and when it expires (UTC)."""
    from cryptography import x509

    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    hosts = [*san.get_values_for_type(x509.DNSName), *(str(ip) for ip in san.get_values_for_type(x509.IPAddress))]
    return tuple(hosts), cert.not_valid_after_utc


def ensure_certificate(folder: Path, addresses: Iterable[str], now: dt.datetime | None = None, *,
                       write: bool = True) -> Certificate:
    """The certificate in `folder`, reused if it names every address and is not about to expire; else a new one
    (`write` False: nothing is written, and `created` says a new one would be made)."""
    now = now or dt.datetime.now(dt.UTC)
    hosts = tuple(dict.fromkeys([*LOOPBACK_NAMES, *addresses]))
    cert_path, key_path = folder / "lan-cert.pem", folder / "lan-key.pem"
    if cert_path.is_file() and key_path.is_file():
        from cryptography.x509 import ExtensionNotFound

        try:
            named, expires = certificate_hosts(cert_path)
        except (ValueError, OSError, ExtensionNotFound):  # unreadable or not ours: make a new one
            named, expires = (), now
        if set(hosts) <= set(named) and expires - now > dt.timedelta(days=RENEW_BEFORE_DAYS):
            return Certificate(cert_path, key_path, named, created=False)
    if write:
        _write_certificate(cert_path, key_path, hosts, now)
    return Certificate(cert_path, key_path, hosts, created=True)


def _write_certificate(cert_path: Path, key_path: Path, hosts: Sequence[str], now: dt.datetime) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "MCR scorer on this computer")])
    alt_names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            alt_names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alt_names.append(x509.DNSName(host))
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=CERT_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_private(key_path, key_bytes)
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM), mode=0o644)


def _write_private(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write atomically, readable by the owner only (the key)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def qr_text(text: str) -> str:
    """A QR code of `text` drawn with block characters, for the terminal."""
    import io

    import qrcode

    qr = qrcode.QRCode(border=2)
    qr.add_data(text)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


@functools.lru_cache(maxsize=8)
def qr_png(text: str, box_size: int = 8) -> bytes:
    """A QR code of `text` as a PNG (the app's sidebar shows it)."""
    import io

    import qrcode

    qr = qrcode.QRCode(border=2, box_size=box_size)
    qr.add_data(text)
    out = io.BytesIO()
    qr.make_image().save(out)
    return out.getvalue()


PLAIN_HTTP_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Use https</title></head><body>
<p>The MCR scorer on this network is served over <b>https</b>: open <a href="{url}">{url}</a>.</p>
<p>局域网中的 MCR 算番服务使用 <b>https</b>：请打开 <a href="{url}">{url}</a>。</p></body></html>
"""
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")


def plain_http_answer(request_tail: bytes, url: str) -> bytes:
    """What a plain http:// request on the HTTPS port is answered: a redirect to https on the host it asked for
    (its Host header, when one is readable in `request_tail`, the request's bytes after the first ones), else to
    `url`, with a page in both languages saying to use https."""
    target = url.rstrip("/") + "/"
    for line in request_tail.split(b"\r\n"):
        name, _, value = line.partition(b":")
        host = value.strip().decode("ascii", "replace")
        if name.strip().lower() == b"host" and host and set(host) <= _HOST_CHARS:
            target = f"https://{host}/"
            break
    body = PLAIN_HTTP_PAGE.format(url=target).encode()
    head = (f"HTTP/1.1 301 Moved Permanently\r\nLocation: {target}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    return head + body


def answer_plain_http(url: str) -> None:
    """Make a plain http:// request on this process's TLS ports answered with `plain_http_answer` instead of a
    closed connection (a phone typing the address without https gets nothing otherwise). The server's TLS is
    asyncio's own (uvicorn without uvloop): the handshake that fails because the bytes are an HTTP request
    writes the answer on the raw connection first. Installed once per process."""
    import asyncio.sslproto
    import ssl

    protocol = asyncio.sslproto.SSLProtocol
    if getattr(protocol, "_mcr_answers_http", False):
        return
    handshake_complete = protocol._on_handshake_complete

    def on_handshake_complete(self: Any, handshake_exc: BaseException | None) -> None:
        raw = getattr(self, "_transport", None)
        if isinstance(handshake_exc, ssl.SSLError) and handshake_exc.reason == "HTTP_REQUEST" and raw is not None:
            with contextlib.suppress(Exception):
                incoming = getattr(self, "_incoming", None)
                raw.write(plain_http_answer(incoming.read() if incoming is not None else b"", url))
        handshake_complete(self, handshake_exc)

    protocol._on_handshake_complete = on_handshake_complete  # type: ignore[method-assign]
    protocol._mcr_answers_http = True  # type: ignore[attr-defined]


def lan_url(address: str, port: int) -> str:
    return f"https://{address}:{port}"


@dataclass(frozen=True)
class LanPlan:
    """Everything `serve` starts Streamlit with."""

    url: str
    code: str
    code_generated: bool
    certificate: Certificate
    streamlit_args: tuple[str, ...]
    env: dict[str, str]


def plan(port: int, extra_args: Sequence[str] = (), environ: dict[str, str] | None = None, *,
         dry_run: bool = False) -> LanPlan:
    """What `serve` starts; `dry_run`: the same, with nothing written (no certificate made)."""
    environ = dict(os.environ if environ is None else environ)
    addresses = lan_addresses()
    certificate = ensure_certificate(data_root(environ) / "lan", addresses, write=not dry_run)
    shown = addresses[0] if addresses else "127.0.0.1"
    certificate_names = tuple(dict.fromkeys([*LOOPBACK_NAMES, *addresses]))  # the only Host names let in
    url = lan_url(shown, port)
    code = environ.get(ACCESS_CODE_ENV, "").strip()
    generated = not code
    code = code or new_code()
    args = (
        "--server.address", "0.0.0.0",
        "--server.port", str(port),
        "--server.sslCertFile", str(certificate.cert_path),
        "--server.sslKeyFile", str(certificate.key_path),
        # the URL printed and trusted as an origin; Streamlit then never asks the internet for an address
        "--browser.serverAddress", shown,
        *(arg for host in certificate_names for arg in ("--server.allowedHosts", host)),
        *extra_args,
    )
    env = {**environ, LAN_ENV: "1", ACCESS_CODE_ENV: code, LAN_URL_ENV: url}
    return LanPlan(url, code, generated, certificate, args, env)


def announce(lan: LanPlan, dry_run: bool = False) -> str:
    """What the terminal shows: the URL, its QR code, the access code."""
    made = " (none yet: a real start makes it, and the phone asks once to accept it)" if dry_run else \
        " (new: the phone asks once to accept it)"
    lines = [
        "",
        "  MCR scorer on your network (HTTPS). On the phone, scan this or open the URL:",
        "",
        qr_text(lan.url),
        f"  URL:          {lan.url}",
        f"  Access code:  {lan.code}" + ("   (new every start; set MCR_ACCESS_CODE to keep one)" if lan.code_generated else ""),
        f"  Certificate:  {lan.certificate.cert_path}" + (made if lan.certificate.created else ""),
        "  The browser warns about the self-signed certificate: accept it once (Advanced > Proceed).",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m appui.lan", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="make or reuse the certificate, print URL, QR and code, start Streamlit")
    serve.add_argument("--port", "--server.port", dest="port", type=int, default=DEFAULT_PORT,
                       help="the one port of the server, the printed URL and the QR codes")
    serve.add_argument("--dry-run", action="store_true", help="print what would be started; start and write nothing")
    sub.add_parser("addresses", help="print this computer's LAN addresses")
    args, rest = parser.parse_known_args(argv)
    if args.command == "addresses":
        print("\n".join(lan_addresses()) or "no LAN address found")
        return 0
    lan = plan(args.port, rest, dry_run=args.dry_run)
    print(announce(lan, dry_run=args.dry_run), flush=True)
    command = [sys.executable, "-m", "streamlit", "run", str(Path(__file__).resolve().parent.parent / SERVER_SCRIPT),
               *lan.streamlit_args]
    if args.dry_run:
        print(" ".join(command))
        return 0
    os.chdir(Path(__file__).resolve().parent.parent)  # .streamlit/config.toml is read from here
    os.execve(sys.executable, command, lan.env)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
