"""Whole lessons in the real app and headless Chromium, as a student walks them.

Each stage: answer (right, from the package's own walk of the preset) and lock it with ONE
click, act, wait for the verdict and check it is in view without scrolling, take a
screenshot, go on.  Two lessons (one with a slider, one with steps), at 1280x800 and 1024x768.
Every wait is on the page's state (the script idle, a text shown), never a sleep.
"""
from pathlib import Path

import pytest
from helpers import WAIT, require_chromium, settle, wait_text

from cbviz.app.streamlit_server import serve
from cbviz.lessons import LESSONS, Compute, Lab, Move, Step

LOCKED = ("() => [...document.querySelectorAll('p[role=status]')]"
          ".some(p => p.textContent.startsWith('Your guess:'))")

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots" / "lessons"

require_chromium()

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    with serve() as running:
        yield running.url


def keyed(page, key):
    return page.locator(f".st-key-{key}").first


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def answer(page, n, k, question, value):
    """Type or choose the answer, then ONE click on Lock (no Enter, no second click)."""
    box = keyed(page, f"lesson_q_{n}_{k}")
    if question.numeric:
        box.locator("input").fill(f"{value:g}")
    else:
        box.get_by_text(value, exact=True).click()
    keyed(page, f"lesson_lock_{n}_{k}").locator("button").click()
    locked(page)


def locked(page):
    """Wait until the stage's status line says the guess (the answer box's own name, for a
    screen reader, also starts "Your guess:")."""
    page.wait_for_function(LOCKED, timeout=WAIT)
    settle(page)


def act(page, n, k, action):
    if isinstance(action, Step):
        button = keyed(page, f"lesson_steps_{n}_{k}")
        if button.count() == 0:   # one step left: Step alone
            button = keyed(page, f"lesson_step_{n}_{k}")
        button.locator("button").click()
    elif isinstance(action, Compute):
        keyed(page, f"lesson_compute_{n}_{k}").locator("button").click()
    elif isinstance(action, Move):
        slider = keyed(page, f"lesson_move_{n}_{k}").locator("input[type=range]")
        slider.focus()   # by keyboard: Page Up while far, then the arrow keys (the hint's)
        while (value := float(slider.input_value())) < action.target - action.tolerance - 1e-9:
            slider.press("PageUp" if action.target - value > 0.1 else "ArrowRight")
            settle(page)


def verdict_box(page):
    """The alert that holds the verdict (and the run's first sentence)."""
    return page.locator("[data-testid='stAlert']").filter(has_text="Right.").first


def assert_in_view(page, box, width, height):
    """The whole box lies inside the viewport as the page is now (no scrolling done)."""
    rect = box.bounding_box()
    assert rect is not None
    assert rect["y"] >= 0 and rect["y"] + rect["height"] <= height, (rect, width, height)
    assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width, (rect, width, height)


def formulas_fit(page, scroll=True):
    """Every typeset formula on the page fits its box (to KaTeX's 2-3 px of glyph overhang);
    with ``scroll``, a box that scrolls sideways counts (never one that clips)."""
    return page.evaluate("""(scroll) => [...document.querySelectorAll('.katex-display')].every(
        e => e.scrollWidth <= e.clientWidth + 3
             || (scroll && getComputedStyle(e).overflowX === 'auto'))""", scroll)


@pytest.mark.parametrize("n, width, height", [(n, w, h) for n in (1, 2)
                                               for w, h in ((1280, 800), (1024, 768))],
                         ids=lambda v: str(v))
def test_a_whole_lesson_answered_right_verdicts_in_view(server, browser, n, width, height):
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
        assert_in_view(page, verdict_box(page), width, height)   # no scrolling to see it
        page.screenshot(path=f"{shot}_reveal.png")
        page.get_by_text("Why, with the numbers").first.click()
        page.get_by_text("Source:").first.wait_for(timeout=WAIT)
        assert formulas_fit(page)
        assert f"stage={k}" in page.url and f"lesson={n}" in page.url
        if k < len(lesson.stages):
            keyed(page, "lesson_next").locator("button").click()
    wait_text(page, f"End of lesson {n}")
    page.reload()
    wait_text(page, f"Stage {len(lesson.stages)} of {len(lesson.stages)}")
    wait_text(page, "Right.")   # the reloaded link lands on the same stage, run and guess
    no_exception(page)
    page.close()


def test_the_longest_formula_fits_at_1024(server, browser):
    """Lesson 7, stage 2: the condition the stage teaches ("if P does not depend on S") is
    shown whole."""
    lesson = LESSONS[6]
    stage = lesson.stage(2)
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{server}/lessons?lesson=7&stage=2&computed=held_out&guess={stage.question.choices[0]}")
    wait_text(page, "Stage 2 of")
    locked(page)
    page.get_by_text("Why, with the numbers").first.click()
    page.locator(".katex-display").first.wait_for(timeout=WAIT)
    assert formulas_fit(page, scroll=False)
    assert "depend" in page.locator(".katex-display").first.inner_text()
    page.screenshot(path=str(SHOTS / "lesson7_stage2_formula_1024x768.png"))
    page.close()
