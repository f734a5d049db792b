"""Two app workers behind nginx: sticky sessions, and a worker killed mid-class.

Four browser sessions (separate cookies, as four students) work on different pages and
iterations, two on each worker; one worker is killed; every session must come back on its own
page, iteration and numbers (the link rebuilds it on the surviving worker).
"""
import re
import urllib.request

import pytest
from helpers import contexts_per_worker, require_chromium, settle, worker_of

from benchmarks.load_fleet import BACK_JS, WATCH_JS
from cbviz.app.serve import nginx_config, serve_class

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
    assert "hash $cbviz_route consistent;" in text
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert "${" not in body


def test_requests_of_one_browser_stay_on_one_worker(classroom):
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    seen = set()
    for _ in range(10):
        with opener.open(classroom.url + "/_stcore/health") as r:
            seen.add(r.headers["X-Cbviz-Worker"])
    assert len(seen) == 1


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
        if worker_of(page.context, classroom.url) == victim.address:
            raise AssertionError("a session still routed to the killed worker")
        if not steps:
            continue
        # a live session on its own run: one more Step goes on from where it was
        page.locator(".st-key-step_once button").click()
        page.get_by_text(f"Iteration {steps + 1} of {steps + 1}").first.wait_for(timeout=90_000)
        settle(page)
