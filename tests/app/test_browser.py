"""The real app in headless Chromium: start it, click through each page, take screenshots.

Needs a Chromium (Debian's, or BROWSER_PATH; ``.ci/run`` installs it and sets
CBVIZ_REQUIRE_BROWSER=1, which turns a missing browser into a failure).
"""
from pathlib import Path

import pytest
from helpers import require_chromium

from benchmarks.browser import CHROMIUM, FLAGS, IDLE
from benchmarks.latency import MARK, REDRAWN
from cbviz.app.streamlit_server import serve

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"

require_chromium()

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    with serve() as running:   # results in the tests' data folder (conftest)
        yield running.url


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(60_000)   # a busy machine: waits on state, never a sleep
        yield page
        browser.close()


def settle(page):
    """Wait until the app is drawn and its script is idle (state, never a fixed sleep)."""
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=60_000)
    page.wait_for_function(IDLE, timeout=60_000)


def wait_text(page, text, timeout=60_000):
    """Wait until ``text`` is on the page, then until the script is idle."""
    page.get_by_text(text, exact=False).first.wait_for(timeout=timeout)
    settle(page)


def iteration_shown(page):
    """The iteration number of the status line ("Iteration t of n"), or 0 before any step."""
    return page.evaluate(
        "() => { const m = document.body.innerText.match(/Iteration (\\d+) of (\\d+)/);"
        " return m ? Number(m[2]) : 0; }")


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def shoot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def button(page, text):
    return page.get_by_role("button", name=text).first


def keyed(page, key):
    """The button drawn with Streamlit key ``key``."""
    return page.locator(f".st-key-{key} button").first


# both live charts of the step page kept their <div> and were redrawn since it was marked; the
# bounds chart ends at iteration n (its curves and its "current iteration" line), the plane
# draws the newest voter
PAUSED_CHARTS = """n => {
  const charts = [...document.querySelectorAll('.cbviz-live-chart')];
  const trace = (key, name) => {
    const d = document.querySelector(`.st-key-${key} .cbviz-live-chart`);
    return d && d._fullData && d._fullData.find(t => t.name.startsWith(name));
  };
  const curve = trace('step_fig_bounds', 'empirical C-bound');
  const line = trace('step_fig_bounds', 'current iteration');
  return charts.length === 2
    && charts.every(d => d.dataset.mark && Number(d.dataset.draws) > Number(d.dataset.mark))
    && curve && Number(curve.x[curve.x.length - 1]) === n && line && Number(line.x[0]) === n
    && !!trace('step_fig_regions', 'new voter');
}"""


def test_home_then_step_through(server, page):
    page.goto(server)
    settle(page)
    no_exception(page)
    shoot(page, "home")
    button(page, "Start on the two-moons toy set").click()
    wait_text(page, "Press Step")
    for i in range(1, 4):
        keyed(page, "step_once").click()
        wait_text(page, f"Iteration {i} of {i}")
    no_exception(page)
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=60_000)  # the plane and the bounds
    shoot(page, "step_through")
    page.evaluate("() => document.querySelectorAll('.cbviz-live-chart')"
                  ".forEach(d => { d.dataset.mark = d.dataset.draws; })")
    keyed(page, "step_play").click()
    page.wait_for_function(  # playing: the run moves by itself past iteration 5
        "() => { const m = document.body.innerText.match(/Iteration \\d+ of (\\d+)/);"
        " return m && Number(m[1]) >= 5; }", timeout=60_000)
    keyed(page, "step_play").click()
    page.locator(".st-key-step_play button", has_text="Play").wait_for(timeout=60_000)
    settle(page)
    paused_at = iteration_shown(page)
    keyed(page, "step_once").wait_for()
    settle(page)
    assert iteration_shown(page) <= paused_at + 1  # pause stops at the next step at most
    # the end state, not each frame (a busy machine may skip redraws while playing): both
    # charts are the <div>s drawn before Play (their mark survived: redrawn in place, never
    # removed) and show the iteration the run paused at
    page.wait_for_function(PAUSED_CHARTS, arg=iteration_shown(page), timeout=60_000)
    assert page.locator(".cbviz-live-chart").count() == 2
    no_exception(page)
    page.mouse.wheel(0, 900)
    shoot(page, "step_through_scrolled")


def test_step_page_with_another_algorithm(server, page):
    page.goto(server + "/step_through_cbboost")
    settle(page)
    page.get_by_role("combobox", name="Algorithm").click()
    page.get_by_role("option", name="CqBoost").click()
    wait_text(page, "Step through CqBoost")
    keyed(page, "step_ten").click()
    wait_text(page, "Iteration")
    for chart in ("Column generation", "Example weights", "Objective"):  # add three charts
        page.locator(".st-key-step_charts button", has_text=chart).first.click()
        wait_text(page, chart)
    page.locator(".js-plotly-plot").nth(4).wait_for()  # plane, bounds + the three
    no_exception(page)
    shoot(page, "step_through_cqboost")


def test_gradient_page(server, page):
    page.goto(server + "/gradient_vs_exhaustive")
    settle(page)
    page.locator(".js-plotly-plot").nth(1).wait_for()
    no_exception(page)
    shoot(page, "gradient_vs_exhaustive")


def test_bad_csv_upload_shows_message(server, page, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,label\n1,x,0\n2,y,1\n3,z,0\n")
    page.goto(server + "/step_through_cbboost?source=csv")
    settle(page)
    page.locator("input[type='file']").first.set_input_files(str(bad))
    wait_text(page, "could not be used")
    no_exception(page)
    shoot(page, "bad_csv")


def test_compare_page(server, page):
    page.goto(server + "/compare_algorithms")
    settle(page)
    keyed(page, "cmp_run").click()
    wait_text(page, "At the last iteration")
    page.locator(".js-plotly-plot").nth(6).wait_for()  # six curves and the bound panel
    no_exception(page)
    shoot(page, "compare_algorithms")


def test_explorer_page(server, page):
    page.goto(server + "/cbound_explorer")
    settle(page)
    page.locator(".js-plotly-plot").nth(1).wait_for()
    no_exception(page)
    shoot(page, "cbound_explorer")


def test_experiments_page(server, page):
    page.goto(server + "/paper_experiments")
    settle(page)
    page.get_by_role("combobox", name="Experiment").click()
    page.get_by_role("option", name="Fig. 5", exact=False).click()
    wait_text(page, "No unit of this experiment is saved yet")
    keyed(page, "exp_run").click()
    wait_text(page, "Tables")
    page.locator(".js-plotly-plot").first.wait_for()
    no_exception(page)
    shoot(page, "paper_experiments")


PLANE = ".st-key-step_fig_regions .cbviz-live-chart"


def x_range(page, selector):
    return page.evaluate("s => document.querySelector(s).layout.xaxis.range.slice()", selector)


def test_a_step_redraws_the_plane_in_place_and_keeps_the_zoom(server, page):
    page.goto(server + "/step_through_cbboost?source=toy&toy=moons")
    settle(page)
    page.wait_for_function("s => document.querySelector(s)?.dataset.draws >= 1", arg=PLANE)
    keyed(page, "step_once").click()
    wait_text(page, "Iteration 1 of 1")
    page.wait_for_function("s => document.querySelector(s)?.dataset.draws >= 2", arg=PLANE)
    full = x_range(page, PLANE)
    drag = page.locator(f"{PLANE} .nsewdrag").first
    drag.scroll_into_view_if_needed()
    box = drag.bounding_box()
    page.mouse.move(box["x"] + 0.3 * box["width"], box["y"] + 0.3 * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + 0.6 * box["width"], box["y"] + 0.6 * box["height"], steps=8)
    page.mouse.up()
    page.wait_for_function("([s, w]) => { const r = document.querySelector(s).layout.xaxis.range;"
                           " return r[1] - r[0] < w; }", arg=[PLANE, 0.5 * (full[1] - full[0])])
    zoomed = x_range(page, PLANE)
    page.evaluate("s => { document.querySelector(s).dataset.mark = 'before the step'; }", PLANE)
    page.evaluate(MARK)
    keyed(page, "step_once").click()
    wait_text(page, "Iteration 2 of 2")
    page.wait_for_function(REDRAWN)  # the plane and the bounds drew the new iteration
    assert page.evaluate("s => document.querySelector(s).dataset.mark", PLANE) == "before the step"
    assert x_range(page, PLANE) == pytest.approx(zoomed, rel=1e-12)  # uirevision kept the zoom
    no_exception(page)


def test_reset_at_the_end_starts_again_with_the_answer_in_view(server, page):
    """Reset redraws only the steps' part: the run starts again, the link drops its
    iteration, and the next Step's status line is in view without scrolling."""
    page.goto(server + "/step_through_cbboost?source=toy&toy=moons&max_iter=12")
    settle(page)
    keyed(page, "step_run_end").click()
    wait_text(page, "Stopped after 12 iterations")
    keyed(page, "step_reset").click()
    wait_text(page, "Press Step to take the first iteration")
    assert page.get_by_text("Stopped after").count() == 0
    page.wait_for_function("() => location.search.includes('steps=0')"
                           " && !location.search.includes('view=')")
    assert not keyed(page, "step_once").is_disabled()
    keyed(page, "step_once").click()
    wait_text(page, "Iteration 1 of 1")
    line = page.locator("[role=status]", has_text="Iteration 1 of 1").first
    rect, size = line.bounding_box(), page.viewport_size
    assert rect and 0 <= rect["y"] and rect["y"] + rect["height"] <= size["height"], rect
    page.wait_for_function("() => location.search.includes('steps=1')")
    no_exception(page)
    shoot(page, "step_after_reset")


NEWEST_TREE = """s => { const d = document.querySelector(s); if (!d || !d._fullData) return null;
  const t = d._fullData.find(t => (t.name || '').startsWith('new voter:'));
  return t ? {name: t.name, drawn: Array.from(t.x).filter(v => Number.isFinite(v)).length} : null;
}"""


def test_trees_fitted_each_round_on_the_step_page(server, page):
    page.goto(server + "/step_through_cbboost?toy=moons&pool=trees&tree_depth=3"
                       "&algorithm=adaboost")
    settle(page)
    page.get_by_text("trees of depth 3 fitted each round").wait_for()
    for i in (1, 2):
        keyed(page, "step_once").click()
        wait_text(page, f"Iteration {i} of {i}")
        page.wait_for_function("([s, n]) => document.querySelector(s)?.dataset.draws >= n",
                               arg=[PLANE, i + 1])
    status = page.get_by_text("no PAC-Bayes bound or KL term", exact=False).first
    status.wait_for()
    newest = page.evaluate(NEWEST_TREE, PLANE)
    assert newest["name"].startswith("new voter: x") and " ? " in newest["name"]
    assert newest["drawn"] >= 2          # the tree's splits, at least one segment
    no_exception(page)
    shoot(page, "step_through_trees")


FITS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(d => {
  const box = d.getBoundingClientRect();
  const at = s => d.querySelector(s) && d.querySelector(s).getBoundingClientRect();
  const legend = at('g.legend'), xtitle = at('.g-xtitle'), title = at('.g-gtitle');
  const name = (d.querySelector('.g-gtitle text') || {}).textContent || '?';
  const bad = [];
  if (legend && xtitle && legend.top < xtitle.bottom - 1) bad.push('legend over the axis title');
  if (legend && legend.bottom > box.bottom + 1) bad.push('legend below the chart');
  if (title && title.right > box.right + 1) bad.push('title wider than the chart');
  if ([...d.querySelectorAll('g.colorbar')].some(g => g.getBoundingClientRect().right
      > box.right + 0.5)) bad.push('colour scale cut off at the right');
  return bad.length ? name.slice(0, 50) + ': ' + bad.join(', ') : null;
}).filter(x => x)"""
CLIPPED = """() => [...document.querySelectorAll('button, button *, label')]
  .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1
          && getComputedStyle(e).overflow !== 'visible')
  .map(e => e.textContent.trim().slice(0, 50))"""
NARROW = [("", None), ("step_through_cbboost?source=real&real=breast_cancer", "step_ten"),
          ("step_through_cbboost?source=toy&toy=moons", "step_ten"),
          ("step_through_cbboost?toy=moons&pool=trees&algorithm=vebboost", "step_ten"),
          ("gradient_vs_exhaustive", None), ("compare_algorithms", "cmp_step10"),
          ("cbound_explorer", None), ("paper_experiments", None)]


@pytest.mark.parametrize(("path", "click"), NARROW)
def test_every_page_fits_a_1024_px_window(server, page, path, click):
    """No chart legend over its axis title or out of the chart, no title wider than its chart,
    no colour scale past its right edge, no button or label text cut off, in a 1024 x 768
    window with the sidebar open."""
    page.set_viewport_size({"width": 1024, "height": 768})
    try:
        page.goto(f"{server}/{path}")
        settle(page)
        if click:
            keyed(page, click).click()
            settle(page)
        if path.split("?")[0] not in ("", "paper_experiments"):  # pages with charts at once
            page.locator(".js-plotly-plot .g-gtitle").nth(1).wait_for(timeout=60_000)
            settle(page)
        page.wait_for_function(  # every chart drawn (live charts count their draws)
            "() => [...document.querySelectorAll('.cbviz-live-chart')]"
            ".every(d => d.dataset.draws >= 1) && [...document.querySelectorAll("
            "\"[data-testid='stPlotlyChart']\")].every(c => c.querySelector('.g-gtitle'))")
        no_exception(page)
        assert page.evaluate(FITS) == []
        assert page.evaluate(CLIPPED) == []
        if click == "step_ten" and "moons" in path:
            shoot(page, "step_through_1024")
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})


def test_a_text_that_does_not_come_is_reported_with_what_the_page_shows(server, page):
    """The shared wait (``helpers.wait_text``) fails with the page's address, states and
    text, so a loop run that fails on a busy machine says what the student would have seen."""
    import helpers
    page.goto(f"{server}/")
    settle(page)
    with pytest.raises(AssertionError) as missing:
        helpers.wait_text(page, "No such words on any page", timeout=1000)
    message = str(missing.value)
    assert message.startswith("'No such words on any page' not shown within 1000 ms;")
    assert f"the page at {server}/?source=toy" in message   # the address, with the settings
    assert "(connection, script: ['CONNECTED', 'notRunning']) shows: " in message
    assert "Step through an algorithm" in message   # the navigation, read from the page
