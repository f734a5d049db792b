"""A live class survives a worker killed mid-stage (issue #28): two app workers behind nginx
(:func:`cbviz.app.serve.serve_class`) share one SQLite class store.

The class and its students are made through the store (:func:`cbviz.classroom.open_database`),
as the app makes them.  Four students open their own class link in Chromium through nginx, two
on each worker (nginx's sticky cookie decides), and three of them lock a guess; four more
students' answers reach the store directly, half before the kill and half after.  The worker
that serves the first student is killed (SIGKILL, as a crash).  Then: the other worker and
nginx still answer their health checks; the killed worker's pages reconnect by themselves and
are drawn again from their links; every student in the browser reloads their link and is
back, on the survivor, on stage 1 with their own locked guess ("Your guess: …") and their link
still in the address (the moved students reload it a second time); the student of the killed
worker who had not voted yet votes on the survivor; and the store holds every answer, exactly
one vote per student, a second lock refused.
"""
import time

import pytest
from helpers import WAIT, contexts_per_worker, require_chromium, settle, wait_text, worker_of

from benchmarks.load_fleet import BACK_JS, WATCH_JS
from cbviz.app.serve import serve_class
from cbviz.app.streamlit_server import healthy
from cbviz.classroom import AnswerRefused, open_database
from cbviz.lessons import LESSONS

LESSON = 4
STAGES = len(LESSONS[LESSON - 1].stages)
CHOICES = LESSONS[LESSON - 1].stage(1).question.choices

require_chromium()

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return tmp_path_factory.mktemp("drill") / "classes.sqlite3"


@pytest.fixture(scope="module")
def classroom(store_path):
    with serve_class(2, database=str(store_path)) as cls:
        yield cls


def spread(browser, cls, per_worker):
    """:func:`contexts_per_worker`, as ``[(context, worker address)]`` alternating between the
    workers."""
    kept = contexts_per_worker(browser, cls, per_worker)
    return [(c, w) for pair in zip(*kept.values()) for c, w in zip(pair, kept)]


def press(page, target):
    """One real click in the middle of ``target`` (a locator), never repeated (Playwright's
    own click tries again when the button is drawn anew under it, after the app took the
    press); the caller waits for its effect."""
    settle(page)
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def lock(page, choice):
    """Choose ``choice`` on stage 1 and lock it with one click."""
    page.locator(f".st-key-lesson_q_{LESSON}_1").get_by_text(choice, exact=True).click()
    press(page, page.locator(f".st-key-lesson_lock_{LESSON}_1 button:visible").first)
    wait_text(page, f"Your guess: {choice}")


def on_stage_with_guess(page, name, token, choice):
    """The student's page: stage 1, as this student, the guess locked, the link in the
    address (what the next reload opens)."""
    wait_text(page, f"Stage 1 of {STAGES}")
    wait_text(page, f"you are {name}")
    wait_text(page, f"Your guess: {choice}")
    assert page.locator(f".st-key-lesson_lock_{LESSON}_1").count() == 0   # no second lock
    assert page.locator("[data-testid='stException']").count() == 0
    assert "class=" in page.url and f"me={token}" in page.url, page.url


def test_a_worker_killed_mid_stage_loses_no_answer(classroom, browser, store_path):
    db = open_database(str(store_path))
    pacing, key = db.create_class(LESSON)
    code = pacing.code
    contexts = spread(browser, classroom, per_worker=2)
    try:
        students = []   # (page, name, token, choice or None, worker)
        for i, (context, worker) in enumerate(contexts):
            name = f"Drill{i}"
            _, token = db.join(code, name)
            page = context.new_page()
            page.goto(f"{classroom.url}/lessons?class={code}&me={token}&lesson={LESSON}&stage=1")
            wait_text(page, f"you are {name}")
            wait_text(page, f"Stage 1 of {STAGES}")
            students.append([page, name, token, None, worker])
        # students 0 and 2 are on the worker to be killed: 2 votes only after the kill
        for student, choice in zip([students[0], students[1], students[3]], CHOICES):
            lock(student[0], choice)
            student[3] = choice
            assert f"class={code}" in student[0].url and f"me={student[2]}" in student[0].url
        # answers that reach the store directly: two before the kill, two after
        direct = []   # (name, token, choice)
        for i in range(4):
            _, token = db.join(code, f"Direct{i}")
            direct.append((f"Direct{i}", token, CHOICES[i % 3]))
        for name, token, choice in direct[:2]:
            db.answer(code, token, 1, choice)

        victim = classroom.worker_of(students[0][4])
        survivor = next(w for w in classroom.workers if w is not victim)
        assert [s[4] == victim.address for s in students] == [True, False, True, False]
        for student in students:
            student[0].evaluate(WATCH_JS)   # records the page's connection states
        victim.kill()
        killed = time.perf_counter()
        for name, token, choice in direct[2:]:
            db.answer(code, token, 1, choice)
        assert not victim.healthy(timeout=5) and survivor.healthy() and healthy(classroom.url)

        # each page of the killed worker reconnects by itself (through nginx, to the survivor)
        # and is drawn again from its link; the others never lost their connection
        for page, name, token, choice, worker in students:
            page.wait_for_function(BACK_JS, arg=[f"Your guess: {choice}" if choice else
                                                 f"you are {name}", worker == victim.address],
                                   timeout=WAIT)
        back = time.perf_counter() - killed
        # then every student reloads the link: on the survivor, stage 1, their guess
        for student in students:
            page, name, token, choice, _ = student
            page.reload()
            settle(page)
            assert worker_of(page.context, classroom.url) == survivor.address
            if choice is None:   # the student who had not voted votes on the survivor
                wait_text(page, f"you are {name}")
                choice = student[3] = CHOICES[1]
                lock(page, choice)
            on_stage_with_guess(page, name, token, choice)
            if student[4] == victim.address:   # the address the page left: the same place
                page.reload()
                on_stage_with_guess(page, name, token, choice)
        print(f"\nkill drill: the killed worker's pages back by themselves {back:.1f} s after "
              f"the kill; every student reloaded (the moved ones twice) "
              f"{time.perf_counter() - killed:.1f} s after it")

        expected = {s[1]: s[3] for s in students} | {d[0]: d[2] for d in direct}
        votes = db.votes(code, key, 1)
        assert sorted((v.nickname, v.value) for v in votes) == sorted(expected.items())
        assert len({v.student for v in votes}) == len(votes) == 8   # once each
        assert all(v.round == 1 for v in votes)
        assert len(db.roster(code, key)) == 8
        assert db.answers_csv(code, key).count("\n") == 1 + 8
        for page, name, token, choice, _ in students:   # a locked vote is not cast again
            with pytest.raises(AnswerRefused, match="already locked"):
                db.answer(code, token, 1, choice)
        assert len(db.votes(code, key, 1)) == 8
    finally:
        for context, _ in contexts:
            context.close()
