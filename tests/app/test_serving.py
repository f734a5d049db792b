"""Two app workers behind nginx: new browsers dealt out evenly, sticky sessions, versioned
component files cached, and a worker killed mid-class.

Six browser sessions (separate cookies, as six students) work on different pages and
iterations, three on each worker; one worker is killed; every session must come back on its own
page, iteration and numbers (the link rebuilds it on the surviving worker), its cookie naming
the worker it moved to.  The routing itself (new browsers in turn, a dead worker's students
all to one other worker) is also checked on three stand-in workers that only say their name.
"""
import asyncio
import http.server
import re
import threading
import urllib.request
from collections import Counter
from contextlib import ExitStack

import pytest
from helpers import contexts_per_worker, require_chromium, settle, worker_of

from benchmarks.load_fleet import BACK_JS, WATCH_JS
from benchmarks.protocol import Tab
from cbviz.app.serve import nginx_config, proxy, route_values, serve_class
from cbviz.app.streamlit_server import free_port, wait_healthy

require_chromium()

pytestmark = pytest.mark.browser

STATUS = re.compile(r"Iteration \d+ of \d+: C-bound [0-9.]+, train error [0-9.]+")
STATUS_JS = ("() => { const m = document.body.innerText.match(/Iteration \\d+ of \\d+: "
             "C-bound [0-9.]+, train error [0-9.]+/); return m ? m[0] : ''; }")
# (page path and link, Step clicks): each student's own place in the app; the lessons page
# opens lesson 2 at stage 3 with 12 voters and a locked guess (its reveal is the status)
LESSON = "/lessons?lesson=2&stage=3&steps=12&guess=yes%2C+at+every+step"
LESSON_JS = ("() => { const m = document.body.innerText.match(/Over iterations 1 to \\d+ the "
             "C-bound fell from [0-9.]+ to [0-9.]+/); return m ? m[0] : ''; }")
PLACES = (("/step_through_cbboost?source=toy&toy=moons", 3),
          ("/step_through_cbboost?source=real&real=breast_cancer", 5),
          (LESSON, 0),
          ("/step_through_cbboost?source=toy&toy=circles&algorithm=adaboost", 4),
          ("/step_through_cbboost?source=real&real=ionosphere&algorithm=quadboost", 2),
          (LESSON, 0))


@pytest.fixture(scope="module")
def classroom():
    with serve_class(2) as cls:
        yield cls


def test_the_configuration_is_the_template_with_the_workers_filled_in(tmp_path):
    text = nginx_config(["127.0.0.1:9001", "127.0.0.1:9002"], 8080, tmp_path)
    assert "server 127.0.0.1:9001 max_fails=1" in text and "listen 0.0.0.0:8080;" in text
    assert "least_conn;" in text and "hash $cookie_cbviz_worker;" in text
    assert '"~(^| )127\\.0\\.0\\.1:9002$" w1;' in text
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert "${" not in body


def get(url, route=None):
    """GET ``url`` as a browser whose cookie is ``route`` (None: a new browser): (the body,
    the cookie value nginx sets or None, the worker nginx names, the Cache-Control headers)."""
    request = urllib.request.Request(url, headers={"Cookie": f"cbviz_worker={route}"}
                                     if route else {})
    with urllib.request.urlopen(request) as r:
        cookie = r.headers.get("Set-Cookie")
        return (r.read(), cookie and cookie.split(";")[0].removeprefix("cbviz_worker="),
                r.headers.get("X-Cbviz-Worker"), r.headers.get_all("Cache-Control"))


class Named(http.server.BaseHTTPRequestHandler):
    """A stand-in worker: healthy, and answers any other GET with its server's name."""

    def do_GET(self):
        body = b"ok" if self.path == "/_stcore/health" else self.server.name
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_new_browsers_go_in_turn_and_a_dead_worker_s_students_all_follow_one_other(tmp_path):
    tmp_path.chmod(0o755)   # nginx's workers (another user under root) write there
    with ExitStack() as stack:
        servers = []
        for i in range(3):
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Named)
            server.name = f"worker {i}".encode()
            threading.Thread(target=server.serve_forever, daemon=True).start()
            stack.callback(server.server_close)
            servers.append(server)
        port = free_port()
        nginx = stack.enter_context(proxy(
            [f"127.0.0.1:{s.server_address[1]}" for s in servers], port, tmp_path))
        url = f"http://127.0.0.1:{port}"
        assert wait_healthy(url, nginx, 30)
        names, routes = [s.name for s in servers], route_values(3)
        # nine new browsers: three on each worker, each given its worker's cookie value
        first = [get(url)[:2] for _ in range(9)]
        assert Counter(body for body, _ in first) == {name: 3 for name in names}
        assert all(cookie == routes[names.index(body)] for body, cookie in first)
        for name, route in zip(names, routes):   # a cookie keeps its browser, unchanged
            assert get(url, route)[:2] == (name, None)
        servers[0].shutdown()
        servers[0].server_close()
        # worker 0's students: every request to one other worker, the cookie following
        moved = {get(url, routes[0])[:2] for _ in range(5)}
        assert len(moved) == 1
        (body, cookie), = moved
        assert body != names[0] and cookie == routes[names.index(body)]
        assert get(url, cookie)[:2] == (body, None)


def test_requests_of_one_browser_stay_on_one_worker(classroom):
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    seen = set()
    for _ in range(10):
        with opener.open(classroom.url + "/_stcore/health") as r:
            seen.add(r.headers["X-Cbviz-Worker"])
    assert len(seen) == 1


def test_versioned_component_files_are_cached_for_a_year_others_keep_their_headers(classroom):
    from cbviz.ui.live_chart import PLOTLY_SRC   # the address the page loads plotly.js from

    async def step_page():   # registers the chart's component files on the tab's worker
        async with Tab(classroom.url, timeout=120) as tab:
            await tab.open("step_through_cbboost", "source=toy&toy=moons")
            return tab
    tab = asyncio.run(step_page())
    route = tab.cookies["cbviz_worker"]
    assert classroom.worker_of(tab.worker).route == route
    assert "?v=" in PLOTLY_SRC
    body, _, worker, cache = get(f"{classroom.url}/{PLOTLY_SRC.split('?')[0]}", route)
    assert len(body) > 1_000_000 and worker == tab.worker and cache == ["public"]  # Streamlit's
    first, again = (get(f"{classroom.url}/{PLOTLY_SRC}", route) for _ in range(2))
    for body, _, _, cache in (first, again):
        assert len(body) > 1_000_000 and cache == ["public, max-age=31536000, immutable"]
    assert first[2] == tab.worker and again[2] is None   # nginx's cache answered
    page = get(classroom.url + "/", route)[0].decode()
    bundle = re.search(r'src="\.?/?(static/js/[^"]+\.js)"', page).group(1)
    assert get(f"{classroom.url}/{bundle}", route)[3] == ["public, immutable, max-age=31536000"]


def status_of(page, path):
    page.wait_for_function(LESSON_JS if path == LESSON else STATUS_JS, timeout=90_000)
    return page.evaluate(LESSON_JS if path == LESSON else STATUS_JS)


def test_a_killed_worker_loses_no_student_s_place(classroom, browser):
    by_worker = contexts_per_worker(browser, classroom, per_worker=3)
    sessions = []
    contexts = [c for group in by_worker.values() for c in group]
    for context, (path, steps) in zip(contexts, PLACES):
        page = context.new_page()
        page.goto(classroom.url + path)
        settle(page)
        for i in range(1, steps + 1):
            page.locator(".st-key-step_once button").click()
            page.get_by_text(f"Iteration {i} of {i}").first.wait_for(timeout=90_000)
            settle(page)
        status = status_of(page, path)
        assert status.startswith(f"Iteration {steps} of {steps}:" if steps else
                                 "Over iterations 1 to 12"), status
        sessions.append((page, worker_of(context, classroom.url), status))
    victim = classroom.worker_of(sessions[0][1])
    survivor = next(w for w in classroom.workers if w is not victim)
    for page, _, _ in sessions:
        page.evaluate(WATCH_JS)
    victim.kill()
    for (page, worker, status), (path, _) in zip(sessions, PLACES):
        # a moved session loses its connection, reconnects to the live worker and its link
        # replays the run; the others never lose theirs
        page.wait_for_function(BACK_JS, arg=[status, worker == victim.address], timeout=120_000)
        assert page.locator("[data-testid='stException']").count() == 0
        assert status_of(page, path) == status
    moved = [s for s in sessions if s[1] == victim.address]
    assert len(moved) == 3
    for (page, _, status), (_, steps) in zip(sessions, PLACES):
        # the browser's own requests moved its cookie to the survivor
        cookies = {c["name"]: c["value"] for c in page.context.cookies()}
        assert cookies["cbviz_worker"] == survivor.route
        if worker_of(page.context, classroom.url) == victim.address:
            raise AssertionError("a session still routed to the killed worker")
        if not steps:
            continue
        # a live session on its own run: one more Step goes on from where it was
        page.locator(".st-key-step_once button").click()
        page.get_by_text(f"Iteration {steps + 1} of {steps + 1}").first.wait_for(timeout=90_000)
        settle(page)
