"""The teacher's class link points to an address students' devices can open: the public URL
given to ``cbviz serve`` / ``cbviz app``, else this machine's network address when the server
listens on the network, else the browser's loopback address with a warning.  The QR code on
the Lessons page is read back to the link it shows."""
import io
import ipaddress
import os
import signal
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import zxingcpp
from PIL import Image
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module
from streamlit.testing.v1.util import patch_config_options

from cbviz.app import ENTRY, PAGES, serve
from cbviz.cli import main
from cbviz.ui import class_address
from cbviz.ui.class_address import (LISTEN_ENV, PUBLIC_URL_ENV, class_base, machine_address,
                                    public_url_problem)

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = "https://class.example.org/cbviz"
BAD_URLS = ["class.example.org", "ftp://class.example.org", "https://", "http://:8501/",
            "https://class.example.org/?lesson=1", "http://class.example.org:port/", ""]


@pytest.fixture
def no_class_env(monkeypatch):
    """Neither class address in the environment (whatever the shell exported)."""
    for name in (PUBLIC_URL_ENV, LISTEN_ENV):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def warns(warning):
    return warning is not None and "--public-url" in warning and "0.0.0.0" in warning


# ------------------------------------------------------------------------- the address chosen

@pytest.mark.parametrize("listen", [None, "127.0.0.1", "0.0.0.0", "192.168.1.9"])
def test_the_public_url_wins(listen):
    assert class_base("http://127.0.0.1:8501/lessons", PUBLIC + "/", listen) == (
        PUBLIC + "/lessons", None)
    assert class_base("http://localhost:8501/lessons", "http://10.0.0.5:80", listen) == (
        "http://10.0.0.5:80/lessons", None)


@pytest.mark.parametrize("listen, host, expected", [
    ("0.0.0.0", "192.168.1.20", "http://192.168.1.20:8501/lessons"),
    ("", "192.168.1.20", "http://192.168.1.20:8501/lessons"),     # Streamlit's default
    ("::", "fd00::20", "http://[fd00::20]:8501/lessons"),
    ("192.168.1.9", None, "http://192.168.1.9:8501/lessons"),      # one network address
    ("cbviz-server.school.example", None, "http://cbviz-server.school.example:8501/lessons"),
])
def test_a_server_on_the_network_links_to_the_machine_s_address(monkeypatch, listen, host,
                                                                  expected):
    monkeypatch.setattr(class_address, "machine_address", lambda families=(): host)
    for browser in ("http://127.0.0.1:8501/lessons", "http://localhost:8501/lessons/",
                    "http://[::1]:8501/lessons"):
        base, warning = class_base(browser, None, listen)
        assert (base.rstrip("/"), warning) == (expected, None)


def test_the_machine_s_address_is_one_of_its_own_and_not_loopback():
    ip = machine_address()
    if ip is None:   # a machine without a network: the link warns instead
        return
    parsed = ipaddress.ip_address(ip)
    assert not (parsed.is_loopback or parsed.is_link_local or parsed.is_unspecified)
    family = socket.AF_INET6 if parsed.version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.bind((ip, 0))   # only an address of this machine can be bound (nothing is sent)


@pytest.mark.parametrize("browser", ["http://127.0.0.1:8501/lessons",
                                     "http://localhost:8501/lessons",
                                     "http://[::1]:8501/lessons", "http://127.0.1.1/lessons"])
@pytest.mark.parametrize("listen", [None, "127.0.0.1", "localhost", "::1",
                                    "unix:///tmp/cbviz.sock"])
def test_only_a_loopback_address_known_keeps_it_and_warns(browser, listen):
    base, warning = class_base(browser, None, listen)
    assert base == browser and warns(warning)
    assert urlsplit(browser).hostname in warning


def test_on_the_network_without_a_network_address_warns(monkeypatch):
    monkeypatch.setattr(class_address, "machine_address", lambda families=(): None)
    base, warning = class_base("http://localhost:8501/lessons", None, "0.0.0.0")
    assert base == "http://localhost:8501/lessons" and warns(warning)


def test_a_browser_on_another_address_keeps_it():
    for url in ("http://192.168.1.9:8501/lessons", "https://cbviz.school.example/lessons"):
        assert class_base(url, None, "127.0.0.1") == (url, None)


@pytest.mark.parametrize("bad", BAD_URLS)
def test_a_bad_public_url_is_named_and_not_used(bad):
    assert public_url_problem(bad)
    base, warning = class_base("http://localhost:8501/lessons", bad or " ", "127.0.0.1")
    assert base == "http://localhost:8501/lessons"
    assert "not used" in warning and warns(warning)


@pytest.mark.parametrize("good", [PUBLIC, "http://192.168.1.9:8501", "https://[fd00::1]/"])
def test_good_public_urls(good):
    assert public_url_problem(good) is None


# ------------------------------------------------------------------------------ the commands

def exit_code(argv):
    try:
        return main(argv)
    except SystemExit as done:   # argparse's errors
        return done.code


@pytest.mark.parametrize("command", ["app", "serve"])
@pytest.mark.parametrize("bad", BAD_URLS[:3])
def test_a_bad_public_url_is_refused_with_exit_code_2(capsys, command, bad):
    assert exit_code([command, "--public-url", bad]) == 2
    err = capsys.readouterr().err
    assert "--public-url" in err and "http://" in err and repr(bad) in err


def test_cbviz_app_passes_the_public_url_to_the_app(no_class_env):
    monkeypatch = no_class_env
    monkeypatch.setenv(PUBLIC_URL_ENV, "")   # so that the value `cbviz app` sets is undone
    monkeypatch.delenv(PUBLIC_URL_ENV)
    monkeypatch.setattr(sys, "argv", sys.argv)
    monkeypatch.chdir(ROOT)
    seen = {}

    def streamlit_main(prog_name):
        seen.update(argv=sys.argv[1:], url=os.environ.get(PUBLIC_URL_ENV))
        return 0

    monkeypatch.setattr("streamlit.web.cli.main", streamlit_main)
    for option in (["--public-url", PUBLIC + "/"], ["--public-url=" + PUBLIC]):
        assert main(["app", "--server.port", "8600", *option, "--server.headless",
                     "true"]) == 0
        assert seen == {"argv": ["run", str(ENTRY), "--server.port", "8600",
                                 "--server.headless", "true"], "url": PUBLIC}


def test_cbviz_serve_passes_the_public_url_and_nginx_s_address_to_the_workers(no_class_env):
    monkeypatch = no_class_env
    started = []

    def worker(script, *options, env=None):   # stands for a worker: records, then stops
        started.append((options, env))
        raise serve.ServeError("not started in this test")

    monkeypatch.setattr(serve, "serve", worker)
    monkeypatch.setattr(signal, "signal", lambda *args: None)
    assert main(["serve", "--workers", "1", "--public-url", PUBLIC + "/"]) == 2
    assert main(["serve", "--workers", "1", "--host", "127.0.0.1"]) == 2
    (options, env), (_, env_local) = started
    assert options[:2] == ("--server.address", "127.0.0.1")   # workers stay local
    assert (env[PUBLIC_URL_ENV], env[LISTEN_ENV]) == (PUBLIC, "0.0.0.0")
    assert PUBLIC_URL_ENV not in env_local and env_local[LISTEN_ENV] == "127.0.0.1"
    assert len(env["STREAMLIT_SERVER_COOKIE_SECRET"]) == 64   # still the shared secret


# -------------------------------------------------------------------------- the Lessons page

def lessons_page(url):
    """A session of the Lessons page whose browser is at ``url``, its teacher panel shown."""
    at = AppTest.from_file(str(PAGES / "lessons.py"), default_timeout=180)
    at.context["url"] = url
    return at


def class_link(at):
    (code,) = at.code
    return code.value


def panel_warnings(at):
    return [w.value for w in at.warning if "--public-url" in w.value]


@pytest.fixture
def media(monkeypatch):
    """The media files (images) of the AppTest runs that follow, kept after each run."""
    kept = []

    class Kept(app_test_module.MemoryMediaFileStorage):
        def __init__(self, endpoint):
            super().__init__(endpoint)
            kept.append(self)

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", Kept)
    return kept


def test_a_loopback_address_warns_the_teacher(no_class_env):
    at = lessons_page("http://127.0.0.1:8501/lessons")
    with patch_config_options({"server.address": "127.0.0.1"}):
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert class_link(at).startswith("http://127.0.0.1:8501/lessons?")
    (warning,) = panel_warnings(at)
    assert "127.0.0.1" in warning and "students" in warning and "0.0.0.0" in warning


def test_the_public_url_is_in_the_link_and_in_its_qr_code(no_class_env, media):
    no_class_env.setenv(PUBLIC_URL_ENV, PUBLIC)
    at = lessons_page("http://127.0.0.1:8501/lessons")
    with patch_config_options({"server.address": "127.0.0.1"}):
        at.run()
        at.selectbox(key="teacher_lesson").set_value(4).run()
        at.number_input(key="teacher_stage_4").set_value(2).run()
    assert not at.exception, [e.message for e in at.exception]
    url = class_link(at)
    assert url.startswith(PUBLIC + "/lessons?") and "lesson=4&stage=2" in url
    assert not panel_warnings(at)

    (image,) = at.get("image")
    (shown,) = image.proto.imgs
    picture = media[-1].get_file(shown.url.rsplit("/", 1)[-1]).content   # as the page sends it
    (decoded,) = zxingcpp.read_barcodes(Image.open(io.BytesIO(picture)))
    assert decoded.format == zxingcpp.BarcodeFormat.QRCode and decoded.text == url


def test_the_worker_s_listen_address_is_nginx_s(no_class_env, monkeypatch):
    """Under ``cbviz serve`` the workers listen on 127.0.0.1; nginx's address decides."""
    monkeypatch.setattr(class_address, "machine_address", lambda families=(): "192.168.1.20")
    env = serve.worker_env("secret", "0.0.0.0")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    at = lessons_page("http://127.0.0.1:8501/lessons")
    with patch_config_options({"server.address": "127.0.0.1"}):
        at.run()
    assert class_link(at).startswith("http://192.168.1.20:8501/lessons?")
    assert not panel_warnings(at)
