"""A long step in the real app: its progress bar and its Cancel, in headless Chromium.

MinCq on the 'magic' set with every midpoint as a threshold (13,314 training examples,
213,430 voters) is one quadratic program of ~2,600 operator products (~13 s on one core):
the step page and the compare page must show a progress bar and a Cancel button after a
second, Cancel must stop it with the run as it was, and a second Solve must finish.
Waits are on the page's state (a text, a button, the script idle), never a fixed sleep.
"""
from pathlib import Path

import pytest
from helpers import chromium, require_chromium

from benchmarks.browser import IDLE
from cbviz.app.streamlit_server import serve

ROOT = Path(__file__).resolve().parents[2]

require_chromium()

pytestmark = pytest.mark.browser

SHOTS = ROOT / "screenshots"
MAGIC = "source=real&real=magic&n_thresholds=all"
LONG = 300_000   # ms: a whole solve on a loaded machine


@pytest.fixture(scope="module")
def page():
    with serve() as server, chromium() as browser:
        tab = browser.new_page(viewport={"width": 1280, "height": 800})
        tab.server = server.url
        yield tab


def settle(page, timeout=60_000):
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=timeout)
    page.wait_for_function(IDLE, timeout=timeout)


def wait_text(page, text, timeout=60_000):
    page.get_by_text(text, exact=False).first.wait_for(timeout=timeout)
    settle(page, timeout)


def keyed(page, key):
    """The button drawn with Streamlit key ``key`` (a button with help text holds two)."""
    return page.locator(f".st-key-{key} button").first


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def cancel_when_the_bar_moves(page, key, what):
    """Wait for the bar (its text names ``what`` and a duality gap: the solve has begun its
    iterations) and its Cancel button, take a screenshot, click Cancel."""
    bar = page.locator("[data-testid='stProgress']").filter(has_text=what)
    bar.filter(has_text="relative duality gap").first.wait_for(timeout=LONG)
    cancel = keyed(page, f"{key}_task_cancel")
    cancel.wait_for(timeout=LONG)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"cancel_{key}_running.png"))
    cancel.click()
    wait_text(page, "Cancelled:", timeout=LONG)
    assert page.locator("[data-testid='stProgress']").count() == 0
    page.screenshot(path=str(SHOTS / f"cancel_{key}_cancelled.png"))


def test_step_page_cancels_then_finishes_mincq_on_every_midpoint(page):
    page.goto(f"{page.server}/step_through_cbboost?{MAGIC}&algorithm=mincq")
    wait_text(page, "Press Solve", timeout=LONG)
    assert page.get_by_text("213430 voters").count() == 1
    keyed(page, "step_once").click()
    cancel_when_the_bar_moves(page, "step", "Solving MinCq's quadratic program")
    assert page.get_by_text("Press Solve").count() == 1          # no step was taken
    assert page.get_by_text("Iteration 1 of 1").count() == 0
    no_exception(page)
    keyed(page, "step_once").click()
    wait_text(page, "Stopped after 1 iteration: MinCq", timeout=LONG)
    assert page.get_by_text("Cancelled:").count() == 0             # the notice was once
    no_exception(page)
    page.screenshot(path=str(SHOTS / "cancel_step_solved.png"))


def test_compare_page_cancels_mincq_and_keeps_the_others_steps(page):
    page.goto(f"{page.server}/compare_algorithms?{MAGIC}")
    settle(page, LONG)
    page.locator(".st-key-cmp_entries input").first.click()
    page.get_by_role("option", name="MinCq").click()
    page.keyboard.press("Escape")
    wait_text(page, "Hyper-parameters of MinCq")
    keyed(page, "cmp_run").click()
    cancel_when_the_bar_moves(page, "cmp", "MinCq")
    # the algorithms before MinCq took their first iteration: their curves are drawn
    page.locator(".js-plotly-plot").first.wait_for(timeout=LONG)
    assert page.get_by_text("Press Run all to the end").count() == 0
    assert keyed(page, "cmp_run").is_enabled()     # not done: can go on
    no_exception(page)


def test_gradient_page_cancels_and_goes_on(page):
    page.goto(f"{page.server}/gradient_vs_exhaustive?{MAGIC}")
    settle(page, LONG)
    box = page.get_by_role("spinbutton", name="Iterations for both rules")
    box.fill("1000")
    box.press("Enter")
    bar = page.locator("[data-testid='stProgress']").filter(has_text="Running both rules")
    bar.first.wait_for(timeout=LONG)
    keyed(page, "gx_task_cancel").click()
    wait_text(page, "Cancelled:", timeout=LONG)
    go_on = keyed(page, "gx_go_on")
    assert go_on.inner_text().startswith("Go on to iteration 1000")
    page.locator(".js-plotly-plot").first.wait_for(timeout=LONG)  # what the runs reached
    no_exception(page)
    page.screenshot(path=str(SHOTS / "cancel_gx_cancelled.png"))
    go_on.click()
    page.get_by_text("Go on to iteration").first.wait_for(state="detached", timeout=LONG)
    settle(page, LONG)
    assert page.get_by_text("Cancelled:").count() == 0
    no_exception(page)
