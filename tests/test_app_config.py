"""The app is safe by default: loopback only, no statistics, no request to the internet, small toolbar.

Checked on the values Streamlit itself uses after reading the repository's .streamlit/config.toml,
and on a started server: which addresses it listens on.
"""

from __future__ import annotations

import pytest
from browser_support import REPO, listening_addresses, streamlit_process, websocket_status
from streamlit import config


@pytest.fixture
def repo_config(monkeypatch):
    """Streamlit's options as read from the repository's config file (as `scripts/app.sh` runs it)."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HOME", str(REPO / ".streamlit" / "no-such-home"))  # no user config mixes in
    config.get_config_options(force_reparse=True)
    yield config
    config.get_config_options(force_reparse=True)


def test_default_config_is_loopback_only_without_statistics(repo_config):
    assert repo_config.get_where_defined("server.address").endswith(".streamlit/config.toml")
    assert repo_config.get_option("server.address") == "127.0.0.1"
    assert repo_config.get_option("browser.gatherUsageStats") is False
    assert repo_config.get_option("server.headless") is True  # no browser opened, no e-mail prompt
    assert repo_config.get_option("client.toolbarMode") in ("viewer", "minimal")  # no Deploy button
    assert repo_config.get_option("server.maxUploadSize") == 50
    assert repo_config.get_option("server.enableXsrfProtection") is True
    assert repo_config.get_option("server.allowedHosts") == ["localhost", "127.0.0.1"]
    assert repo_config.get_where_defined("server.enableAgentApi").endswith(".streamlit/config.toml")
    assert repo_config.get_option("server.enableAgentApi") is False  # no HTTP API that drives the app


def test_starting_never_asks_the_internet_for_an_address(repo_config, monkeypatch):
    """Streamlit asks a web service for the external address when it prints a wildcard address's URLs."""
    from streamlit import net_util
    from streamlit.web import bootstrap

    asked: list[str] = []
    monkeypatch.setattr(net_util, "get_external_ip", lambda: asked.append("external") or None)
    monkeypatch.setattr(net_util, "_make_blocking_http_get", lambda url, timeout=5: asked.append(url) or None)
    bootstrap._print_url(False)
    # LAN mode: every interface, and the URL to print given (appui.lan passes these flags)
    repo_config.set_option("server.address", "0.0.0.0", where_defined="command-line argument or environment variable")
    repo_config.set_option("browser.serverAddress", "192.0.2.7", where_defined="command-line argument or environment variable")
    bootstrap._print_url(False)
    assert asked == []


def test_lan_flags_leave_no_option_for_the_external_address(monkeypatch, tmp_path):
    from appui.lan import plan

    monkeypatch.setenv("MCR_DATA", str(tmp_path))
    args = plan(8600, ()).streamlit_args
    flags = dict(zip(args[::2], args[1::2], strict=False))
    assert flags["--server.address"] == "0.0.0.0"
    assert flags["--browser.serverAddress"]  # printed instead of asking the internet
    assert flags["--server.sslCertFile"].startswith(str(tmp_path))


@pytest.mark.slow
def test_the_default_server_listens_on_loopback_only_and_only_for_its_own_names(tmp_path):
    with streamlit_process([], {"MCR_DATA": str(tmp_path)}, https=False) as (port, _):
        addresses = listening_addresses(port)
        statuses = {host: websocket_status(port, f"{host}:{port}", https=False)
                    for host in ("127.0.0.1", "localhost", "rebound.example")}
    assert addresses == {"127.0.0.1"}, addresses
    # a page whose domain was re-pointed at 127.0.0.1 (DNS rebinding) cannot open the app's socket
    assert statuses == {"127.0.0.1": 101, "localhost": 101, "rebound.example": 403}, statuses
