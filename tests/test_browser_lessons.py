"""A whole lesson in the real app and headless Chromium, as a student walks it.

Each stage: answer (right, from the package's own walk of the preset), lock the guess, act,
wait for the reveal, take a screenshot, go on.  Two lessons, at 1280x800 and 1024x768.
"""
import pytest
from helpers import chromium, require_chromium

from cbviz.lessons import LESSONS, Compute, Lab, Move, Step
from cbviz.tools.server import IDLE, ROOT, serve

SHOTS = ROOT / "screenshots" / "lessons"

require_chromium()

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    with serve(ROOT / "app.py") as running:
        yield running.url


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def settle(page):
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=60_000)
    page.wait_for_function(IDLE, timeout=60_000)


def wait_text(page, text):
    page.get_by_text(text, exact=False).first.wait_for(timeout=60_000)
    settle(page)


def keyed(page, key):
    return page.locator(f".st-key-{key}").first


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def answer(page, n, k, question, value):
    box = keyed(page, f"lesson_q_{n}_{k}")
    if question.numeric:
        field = box.locator("input")
        field.fill(f"{value:g}")
        field.press("Enter")
    else:
        box.get_by_text(value, exact=True).click()
    settle(page)
    keyed(page, f"lesson_lock_{n}_{k}").locator("button").click()
    wait_text(page, "Your guess:")


def act(page, n, k, action):
    if isinstance(action, Step):
        keyed(page, f"lesson_steps_{n}_{k}").locator("button").click()
    elif isinstance(action, Compute):
        keyed(page, f"lesson_compute_{n}_{k}").locator("button").click()
    elif isinstance(action, Move):
        slider = keyed(page, f"lesson_move_{n}_{k}").get_by_role("slider")
        slider.focus()
        while float(slider.get_attribute("aria-valuenow")) < action.target - 1e-9:
            slider.press("ArrowRight")
            settle(page)


@pytest.mark.parametrize("n, width, height", [(n, w, h) for n in (2, 4)
                                               for w, h in ((1280, 800), (1024, 768))],
                         ids=lambda v: str(v))
def test_a_whole_lesson_answered_right(server, browser, n, width, height):
    lesson = LESSONS[n - 1]
    lab = Lab.preset(lesson)
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(server + "/lessons")
    settle(page)
    keyed(page, f"lesson_start_{n}").locator("button").click()
    wait_text(page, f"Lesson {n}:")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for k, stage in enumerate(lesson.stages, start=1):
        wait_text(page, f"Stage {k} of {len(lesson.stages)}")
        shot = str(SHOTS / f"lesson{n}_stage{k}_{width}x{height}")
        page.screenshot(path=f"{shot}_question.png")
        acted = stage.action.done(lab)   # e.g. a stage that reads the run of the one before
        stage.action.perform(lab)
        expected = stage.reveal(lab)
        answer(page, n, k, stage.question, expected.answer)
        if not acted:
            act(page, n, k, stage.action)
        wait_text(page, "Right.")
        assert page.get_by_text("Not this time.").count() == 0
        no_exception(page)
        page.get_by_text("Right.").first.scroll_into_view_if_needed()
        page.screenshot(path=f"{shot}_reveal.png")
        assert f"stage={k}" in page.url and f"lesson={n}" in page.url
        if k < len(lesson.stages):
            keyed(page, "lesson_next").locator("button").click()
    wait_text(page, f"End of lesson {n}")
    page.reload()
    wait_text(page, f"Stage {len(lesson.stages)} of {len(lesson.stages)}")
    wait_text(page, "Right.")   # the reloaded link lands on the same stage, run and guess
    no_exception(page)
    page.close()
