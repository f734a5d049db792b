"""A live class (issue #28) in the real app and headless Chromium: a teacher and three students,
each in a browser context of their own (own cookies, own Streamlit session), on one SQLite class
store.

The teacher starts the class on the Lessons page (lesson 4, students follow, reveals held) and
reads its code and both links off the page; the dashboard opens from the teacher link.  The
students join through the student link with a nickname and lock three different answers.  The
dashboard must show "3 of 3 voted" and one bar per answer within 2 s of the last student's page
showing its guess locked, and the store must hold the three votes.  The students take the
stage's steps: each page says the answer is held, until the teacher releases it (then each
shows its verdict and the dashboard "1 of 3" right).  The projector view shows no name and no
teacher key.  After the teacher's Next stage, every student's page must show stage 2 within
15 s (the times are printed; the pages poll every 2 s).  No student's page ever holds another
student's nickname (its whole document), nor, before the release, another student's answer.

Times are taken in the pages themselves (``Date.now()`` when a MutationObserver first sees a
text), so Playwright's polling does not add to them; every wait is on the page's state.
Screenshots: /tmp/class_shots/.
"""
import re
import time
from pathlib import Path

import pytest
from helpers import WAIT, require_chromium, settle, wait_text
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from cbviz.app import ENTRY
from cbviz.app.streamlit_server import serve
from cbviz.classroom import DATABASE_ENV, open_database
from cbviz.lessons import LESSONS

SHOTS = Path("/tmp/class_shots")
LESSON = 4         # stage 1 and 2 ask a choice
CHOICES = LESSONS[LESSON - 1].stage(1).question.choices
NAMES = ("Alba7", "Brio8", "Cato9")   # nicknames no page text holds by chance
VOTED_WITHIN = 2.0  # s: the dashboard shows a vote this soon after the student's page locked it
FOLLOWED_WITHIN = 15.0   # s: a student's page follows the teacher's stage (2 s poll + a rerun)
VIEWPORT = {"width": 1280, "height": 800}

require_chromium()

pytestmark = pytest.mark.browser

# Date.now() when ``text`` first shows in the page's text, kept in window.__cbvizMarks[name]
MARK_JS = """([name, text]) => {
  window.__cbvizMarks = window.__cbvizMarks || {};
  const check = () => {
    if (name in window.__cbvizMarks || !document.body.innerText.includes(text)) return false;
    window.__cbvizMarks[name] = Date.now();
    return true;
  };
  if (check()) return;
  const seen = new MutationObserver(() => { if (check()) seen.disconnect(); });
  seen.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""
MARKED_JS = "name => (window.__cbvizMarks || {})[name] || null"
# the dashboard's votes chart, per trace: its answers, its counts and the bars drawn (Plotly's
# graph div keeps the figure's data; a bar is a path in a .point of the bar layer)
BARS_JS = """() => {
  const gd = document.querySelector('.st-key-class_votes .js-plotly-plot');
  if (!gd || !gd.data) return null;
  const drawn = [...gd.querySelectorAll('.barlayer .trace')].map(t =>
    [...t.querySelectorAll('.point path')].filter(p => p.getBBox().width * p.getBBox().height > 0)
      .length);
  return gd.data.map((t, i) => {
    const flat = t.orientation === 'h';
    return {answers: Array.from(flat ? t.y : t.x), counts: Array.from(flat ? t.x : t.y),
            drawn: drawn[i] || 0};
  });
}"""


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return tmp_path_factory.mktemp("class") / "classes.sqlite3"


@pytest.fixture(scope="module")
def server(store_path):
    # loopback only: the class links then carry the browser's own address (127.0.0.1)
    with serve(ENTRY, "--server.address", "127.0.0.1",
               env={DATABASE_ENV: str(store_path)}) as running:
        yield running.url


def keyed(page, key):
    return page.locator(f".st-key-{key}").first


def button(page, key):
    """The button of Streamlit key ``key`` (a button with help is drawn twice, one hidden)."""
    return page.locator(f".st-key-{key} button:visible").first


def press(page, target):
    """One real click in the middle of ``target`` (a locator), never repeated; the caller waits
    for its effect.  Playwright's own click tries again when the element is drawn anew under
    it, and the app may have taken the first press already (a Step or Next stage twice, or a
    click that waits for a button the press removed)."""
    settle(page)
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def switched(page, key, on):
    """Wait until the toggle of Streamlit key ``key`` is ``on``."""
    page.wait_for_function("([key, on]) => { const e = document.querySelector("
                           "`.st-key-${key} input[role=switch]`); return e && e.checked === on; }",
                           arg=[key, on], timeout=WAIT)
    settle(page)


def text_of(page):
    return page.evaluate("() => document.body.innerText")


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def mark(page, name, text):
    """Start watching ``page`` for ``text``: :func:`marked` gives when it first showed."""
    page.evaluate(MARK_JS, [name, text])


def marked(page, name, timeout=WAIT):
    """``Date.now()`` (ms) when the text :func:`mark` watches for showed (waits for it)."""
    page.wait_for_function(f"() => ({MARKED_JS})({name!r}) !== null", timeout=timeout)
    return page.evaluate(MARKED_JS, name)


def start_class(page, server):
    """The teacher's Lessons page: lesson 4, follow on, reveals held; ``(code, student link,
    teacher link)`` as the page shows them."""
    page.goto(server + "/lessons")
    settle(page)
    page.get_by_text("For teachers: a live class").first.click()
    button(page, "class_start").wait_for(state="visible")   # the form drawn
    option = page.locator("[role=option]", has_text=f"{LESSON}. {LESSONS[LESSON - 1].title}")
    for attempt in range(3):   # a click before the combobox is live opens nothing: again
        keyed(page, "class_lesson").get_by_role("combobox").click()
        try:
            option.wait_for(state="visible", timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    option.click()
    settle(page)
    for key in ("class_follow", "class_hold"):
        press(page, keyed(page, key).locator("label").first)
        switched(page, key, True)
    press(page, button(page, "class_start"))
    wait_text(page, "Class code:")
    code = re.search(r"Class code: (\w+)", text_of(page)).group(1)
    blocks = page.locator("[data-testid='stCode'] code").all_inner_texts()
    student = next(b.strip() for b in blocks if f"join={code}" in b)
    teacher = next(b.strip() for b in blocks if f"class={code}" in b and "key=" in b)
    return code, student, teacher


def join(page, link, name):
    page.goto(link)
    wait_text(page, "Nickname (optional)")
    page.get_by_label("Nickname (optional)").fill(name)
    press(page, button(page, "class_join_button"))
    wait_text(page, f"Stage 1 of {len(LESSONS[LESSON - 1].stages)}")
    wait_text(page, f"you are {name}")


def choose(page, k, choice):
    """Choose ``choice`` in stage ``k``'s question (the lock is clicked by the caller)."""
    keyed(page, f"lesson_q_{LESSON}_{k}").get_by_text(choice, exact=True).click()


def lock(page, k):
    press(page, button(page, f"lesson_lock_{LESSON}_{k}"))


def step_to_reveal(page, k):
    """Take stage ``k``'s Steps at once: the reveal is computed, and held by the teacher."""
    press(page, button(page, f"lesson_steps_{LESSON}_{k}"))
    wait_text(page, "Your guess is locked")


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def others_absent(pages, choices=None):
    """No student's page (its whole document) holds another student's nickname, nor, given
    ``choices``, does its text hold the answer another student chose."""
    for i, page in enumerate(pages):
        settle(page)
        document, text = page.content(), text_of(page)
        assert NAMES[i] in text
        for j, name in enumerate(NAMES):
            if j != i:
                assert name not in document, (NAMES[i], name)
                if choices is not None:
                    assert choices[j] not in text, (NAMES[i], choices[j])


def test_a_teacher_and_three_students_in_a_live_class(server, browser, store_path):
    contexts = []

    def context():
        c = browser.new_context(viewport=VIEWPORT)
        c.set_default_timeout(WAIT)
        contexts.append(c)
        return c

    try:
        teacher = context()
        lessons = teacher.new_page()
        code, student_link, teacher_link = start_class(lessons, server)
        assert student_link == f"{server}/lessons?join={code}"
        assert teacher_link.startswith(f"{server}/class?class={code}&key=")
        key = teacher_link.split("key=", 1)[1]
        board = teacher.new_page()
        board.goto(teacher_link)
        wait_text(board, f"Class {code} · Lesson {LESSON}")
        wait_text(board, "Students follow your stages")
        wait_text(board, "0 of 0 voted on stage 1")

        students = []
        for name in NAMES:
            page = context().new_page()
            join(page, student_link, name)
            students.append(page)
        wait_text(board, "0 of 3 voted on stage 1")

        # three different answers; the last one timed from its page showing it locked
        for page, choice in zip(students[:2], CHOICES[:2]):
            choose(page, 1, choice)
            lock(page, 1)
            wait_text(page, f"Your guess: {choice}")
        wait_text(board, "2 of 3 voted on stage 1")
        last = students[2]
        choose(last, 1, CHOICES[2])
        mark(last, "locked", f"Your guess: {CHOICES[2]}")
        mark(board, "voted", "3 of 3 voted on stage 1")
        clicked = time.time()
        lock(last, 1)
        locked = marked(last, "locked") / 1000
        voted = marked(board, "voted") / 1000
        latency = voted - locked
        print(f"\ndashboard: 3 of 3 shown {latency:.2f} s after the last guess showed locked "
              f"({voted - clicked:.2f} s after the click on Lock)")
        assert latency <= VOTED_WITHIN, latency
        board.wait_for_function(f"() => {{ const d = ({BARS_JS})(); return d && d.length === 1"
                                " && d[0].counts.reduce((a, b) => a + b, 0) === 3"
                                " && d[0].drawn === 3; }", timeout=WAIT)
        bars = board.evaluate(BARS_JS)
        assert bars == [{"answers": list(CHOICES), "counts": [1, 1, 1], "drawn": 3}], bars
        settle(board)
        no_exception(board)
        db = open_database(str(store_path))
        stored = db.votes(code, key, 1)
        assert sorted((v.nickname, v.value) for v in stored) == sorted(zip(NAMES, CHOICES))

        # the reveal computed and held: each page says so and holds no one else's answer
        for page in students:
            step_to_reveal(page, 1)
            assert "Right." not in text_of(page) and "Not this time." not in text_of(page)
            no_exception(page)
        others_absent(students, CHOICES)
        wait_text(board, "Answers held")
        shots = [shoot(board, "dashboard"), shoot(students[0], "student_held")]

        # the teacher releases the answer: each page shows its verdict by itself
        press(board, button(board, "class_release"))
        for page in students:
            page.locator("[data-testid='stAlert']").filter(
                has_text=re.compile(r"Right\.|Not this time\.")).first.wait_for(timeout=WAIT)
        wait_text(board, "Right, first vote: 1 of 3 (33 %)")
        others_absent(students)
        shots.append(shoot(students[0], "student_released"))

        # the projector view: no names, no teacher key in the address; then back to the controls
        press(board, keyed(board, "class_projector").locator("label").first)
        switched(board, "class_projector", True)
        board.wait_for_function(f"() => !document.body.innerText.includes({NAMES[0]!r})",
                                timeout=WAIT)
        wait_text(board, "1 of 3 (33 %)")
        projected = board.content()
        assert not any(name in projected for name in NAMES)
        assert "key=" not in board.url and key not in board.url
        shots.append(shoot(board, "dashboard_projector"))
        no_exception(board)
        press(board, keyed(board, "class_projector").locator("label").first)
        switched(board, "class_projector", False)
        button(board, "class_next").wait_for(state="visible")
        settle(board)

        # Next stage: every student's page follows, timed in each page
        stage2 = f"Stage 2 of {len(LESSONS[LESSON - 1].stages)}"
        for page in students:
            settle(page)
            assert stage2 not in text_of(page)
            mark(page, "stage2", stage2)
        settle(board)
        clicked = time.time()
        press(board, button(board, "class_next"))
        followed = [marked(page, "stage2") / 1000 - clicked for page in students]
        print("follow: stage 2 on each student's page "
              + ", ".join(f"{t:.2f} s" for t in followed) + " after the teacher's click")
        assert max(followed) <= FOLLOWED_WITHIN, followed
        for page in students:
            settle(page)
            no_exception(page)
            assert "stage=2" in page.url
        others_absent(students)
        assert all(s.stage == 2 for s in db.roster(code, key))
        wait_text(board, "0 of 3 voted on stage 2")

        print("screenshots: " + ", ".join(map(str, shots)))
    finally:
        for c in contexts:
            c.close()
