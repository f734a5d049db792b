"""The app asks nothing of the network: opening Home and the Lessons page in headless
Chromium requests only the app's own server (no font CDN for the favicon, no analytics)."""
from urllib.parse import urlsplit

import pytest
from helpers import chromium, require_chromium

from benchmarks.browser import IDLE
from cbviz.app.streamlit_server import serve

require_chromium()

pytestmark = pytest.mark.browser
LOCAL = {"127.0.0.1", "localhost"}


def test_home_and_lessons_request_only_the_local_server():
    requested, icons = [], []
    with serve() as server, \
            chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.on("request", lambda request: requested.append(request.url))
        for path in ("", "/lessons"):
            page.goto(server.url + path)
            page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=60_000)
            page.wait_for_function(IDLE, timeout=60_000)
            assert page.locator("[data-testid='stException']").count() == 0
            icons += page.evaluate("() => [...document.querySelectorAll(\"link[rel~='icon']\")]"
                                   ".map(l => l.href)")
        page.close()
    remote = sorted({url for url in requested
                     if urlsplit(url).scheme not in ("data", "blob")
                     and urlsplit(url).hostname not in LOCAL})
    assert requested and remote == []
    assert icons and all(urlsplit(url).hostname in LOCAL for url in icons), icons  # app's file
