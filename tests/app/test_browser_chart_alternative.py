"""The charts' text alternative, the status line and the page titles in the real app and
headless Chromium (issue 30, WCAG 2.1 1.1.1, 4.1.3, 2.4.2).

On the step page (two moons) after three Steps: each chart is an image (role "img") named by
its title and current values, the bounds chart's name stating the values of the status line's
iteration; no Plotly toolbar; every SVG hidden from screen readers; "Data table" opens the
chart's data (aria-expanded), where iteration 3 holds the status line's C-bound, and a fourth
Step updates the name and the open table; "Download PNG" saves a PNG; the status line is one
element (role "status") that a Step updates in place.  Each page and lesson stage has its own
document title.  At 1024 x 768 both chart buttons sit under their chart, in view, not cut off.

Every wait is on the page's state (the script idle, a text or an attribute), never a sleep.
"""
import re

import pytest
from helpers import WAIT, require_chromium, settle, wait_text

from cbviz.app.streamlit_server import serve
from cbviz.lessons import LESSONS

require_chromium()

pytestmark = pytest.mark.browser

BOUNDS = ".st-key-step_fig_bounds"
PNG = b"\x89PNG\r\n\x1a\n"
NUMBER = r"-?\d+(?:\.\d+)?"


@pytest.fixture(scope="module")
def server():
    with serve() as running:   # results in the tests' data folder (conftest)
        yield running.url


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page.set_default_timeout(WAIT)
    yield page
    page.close()


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def step(page, i):
    """One Step, to iteration ``i``: the status line says so and the bounds chart drew it."""
    page.locator(".st-key-step_once button").first.click()
    wait_text(page, f"Iteration {i} of {i}")
    page.wait_for_function(DRAWN_AT, arg=[BOUNDS, i], timeout=WAIT)


# the chart under ``key`` drew the figure of iteration t: its C-bound curve ends at t and its
# "current iteration" line stands at t (its name is set before Plotly draws, its SVGs hidden
# and its count of draws raised after)
DRAWN_AT = """([key, t]) => {
  const d = document.querySelector(`${key} .cbviz-live-chart`);
  if (!d || !d._fullData || !(Number(d.dataset.draws) >= 1)) return false;
  const curve = d._fullData.find(x => x.name === 'empirical C-bound');
  const line = d._fullData.find(x => x.name === 'current iteration');
  return !!curve && Number(curve.x[curve.x.length - 1]) === t && !!line
    && Number(line.x[0]) === t;
}"""

# every live chart: its role, its name, the first line of its title as Plotly drew it, and
# its SVGs that a screen reader would read
CHARTS = """() => [...document.querySelectorAll('.cbviz-live-chart')].map(d => {
  const title = d.querySelector('.g-gtitle text');
  const first = title && (title.querySelector('tspan.line') || title);
  return {key: (d.closest('[class*="st-key-"]').className.match(/st-key-(\\S+)/) || [])[1],
          role: d.getAttribute('role'), label: d.getAttribute('aria-label'),
          title: first ? first.textContent.replace(/\\u200b/g, '').trim() : null,
          svgs: d.querySelectorAll('svg').length,
          readable: [...d.querySelectorAll('svg')].filter(
            s => s.getAttribute('aria-hidden') !== 'true').length};
})"""

# the bounds chart's open data table: its first table (the curves over the iterations) as
# {head: [...], rows: [[...], ...]}, with the button's and the region's state
TABLE = """key => {
  const outer = document.querySelector(`${key} .cbviz-chart`);
  const button = [...outer.querySelectorAll('.cbviz-chart-tools button')]
    .find(b => b.textContent === 'Data table');
  const region = document.getElementById(button.getAttribute('aria-controls'));
  const table = region && region.querySelector('table');
  return {expanded: button.getAttribute('aria-expanded'), hidden: !region || region.hidden,
          inside: !!region && outer.contains(region),
          visible: !!table && table.getBoundingClientRect().height > 0,
          caption: table ? table.caption.textContent : null,
          head: table ? [...table.tHead.rows[0].cells].map(c => c.textContent) : [],
          rows: table ? [...table.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))
                      : []};
}"""

# role "status" is a polite live region unless aria-live says otherwise
STATUS = """() => [...document.querySelectorAll('[role="status"]')]
  .filter(e => e.textContent.includes('Iteration'))
  .map(e => ({tag: e.tagName, live: e.getAttribute('aria-live') || 'polite', text: e.textContent,
              mark: e.cbvizMark || null}))"""


MARK_STATUS = """() => { [...document.querySelectorAll('[role="status"]')]
  .filter(e => e.textContent.includes('Iteration')).forEach(e => { e.cbvizMark = 'before'; }); }"""


def status_values(text):
    """``(t, {name: value})`` of the status line "Iteration t of n: C-bound v, train error v,
    ...; tightest PAC-Bayes bound: name = v (δ = ...); KL v"."""
    t = int(re.match(r"Iteration (\d+) of \d+: ", text).group(1))
    values = {"empirical C-bound": re.search(rf"\bC-bound ({NUMBER})", text).group(1),
              "train error": re.search(rf"\btrain error ({NUMBER})", text).group(1)}
    tightest = re.search(rf"tightest PAC-Bayes bound: (.+?) = ({NUMBER})", text)
    if tightest:
        values[tightest.group(1)] = tightest.group(2)
    return t, {k: float(v) for k, v in values.items()}


def label_values(label):
    """``(t, text)``: the iteration the chart's name reads its curves at and what it says
    there ("... At iteration ... 3: train error 0.167, empirical C-bound 0.402, ...;")."""
    found = re.search(r"(?:^|\. |; )[Aa]t [^:;]*? (\d+): ([^;]*)", label)
    assert found, label
    return int(found.group(1)), found.group(2)


def said(text, name):
    """The value ``text`` states for ``name``, or for ``name`` without its citation (the
    status line's "PAC-Bound 1 (Germain et al. 2015)" may be "PAC-Bound 1" in a chart's name)."""
    for v in (name, re.sub(r"\s+\([^()]*\b\d{4}\b[^()]*\)", "", name)):
        found = re.findall(rf"(?:^|, ){re.escape(v)} ({NUMBER}|none)(?=, |\.$|$)", text)
        if found:
            assert len(found) == 1, (name, text)
            return float(found[0])
    raise AssertionError(f"no value for {name!r} in {text!r}")


def check_bounds_label(page):
    """The bounds chart's name states, at the status line's iteration, the status line's
    C-bound, train error and tightest bound (4 decimals there, 3 here)."""
    status = page.evaluate(STATUS)
    assert len(status) == 1, status
    t, values = status_values(status[0]["text"])
    label = page.get_attribute(f"{BOUNDS} .cbviz-live-chart", "aria-label")
    at, text = label_values(label)
    assert at == t, (label, status)
    assert len(values) == 3, status   # C-bound, train error and the tightest bound
    for name, value in values.items():
        assert said(text, name) == pytest.approx(value, abs=5e-4 + 5e-5 + 1e-9), (name, label)
    return t, values


def check_table(page, t, values):
    table = page.evaluate(TABLE, BOUNDS)
    assert table["expanded"] == "true" and not table["hidden"] and table["visible"], table
    assert table["inside"] and table["caption"].startswith("Risk bounds and train error")
    assert [r[0] for r in table["rows"]] == [str(i) for i in range(1, t + 1)], table
    row = dict(zip(table["head"], table["rows"][t - 1]))
    for name, value in values.items():   # the status line's 4 decimals, the table's too
        assert float(row[name]) == pytest.approx(value, abs=1e-12), (name, row)
    return table


def test_the_step_page_charts_are_named_and_their_data_one_click_away(server, page):
    page.goto(server + "/step_through_cbboost?toy=moons")
    settle(page)
    for i in (1, 2, 3):
        step(page, i)
    no_exception(page)
    page.wait_for_function("() => [...document.querySelectorAll('.cbviz-live-chart')]"
                           ".every(d => Number(d.dataset.draws) >= 1 && d.querySelector("
                           "'.g-gtitle text'))")
    charts = page.evaluate(CHARTS)
    assert {c["key"] for c in charts} >= {"step_fig_regions", "step_fig_bounds"}, charts
    for chart in charts:
        assert chart["role"] == "img", chart
        assert chart["label"] and chart["title"], chart
        assert chart["label"].startswith(chart["title"] + ". "), chart
        assert chart["svgs"] >= 1 and chart["readable"] == 0, chart   # every SVG aria-hidden
    assert page.locator(".modebar").count() == 0        # Plotly's toolbar is off
    t, values = check_bounds_label(page)
    assert t == 3

    # the status line: one element, polite; marked, then a Step: the same node, new text
    status = page.evaluate(STATUS)
    assert status == [{"tag": "P", "live": "polite", "text": status[0]["text"], "mark": None}]
    page.evaluate(MARK_STATUS)

    # the data table, opened: iteration 3 holds the status line's C-bound
    button = page.locator(f"{BOUNDS} .cbviz-chart-tools button", has_text="Data table")
    assert button.get_attribute("aria-expanded") == "false"
    button.click()
    page.wait_for_function("k => document.querySelector(`${k} .cbviz-chart-data table`)",
                           arg=BOUNDS)
    check_table(page, 3, values)

    step(page, 4)   # the name and the open table follow the Step
    page.wait_for_function("([k, t]) => (document.querySelector(`${k} .cbviz-chart-data`)"
                           ".querySelectorAll('tbody')[0] || {rows: []}).rows.length === t",
                           arg=[BOUNDS, 4])
    t, values = check_bounds_label(page)
    assert t == 4
    check_table(page, 4, values)
    status = page.evaluate(STATUS)
    assert len(status) == 1 and status[0]["mark"] == "before", status   # updated in place
    assert status[0]["text"].startswith("Iteration 4 of 4: ")

    button.click()   # and closed again
    page.wait_for_function("k => document.querySelector(`${k} .cbviz-chart-data`).hidden",
                           arg=BOUNDS)
    assert button.get_attribute("aria-expanded") == "false"

    # "Download PNG": Plotly draws the chart into a PNG file
    save = page.locator(f"{BOUNDS} .cbviz-chart-tools button", has_text="Download PNG")
    with page.expect_download(timeout=WAIT) as download:
        save.click()
    png = download.value
    # named after the chart's title, as a student would look for it among downloads
    title = next(c["title"] for c in charts if c["key"] == "step_fig_bounds")
    assert png.suggested_filename == re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") \
        + ".png", (png.suggested_filename, title)
    with open(png.path(), "rb") as f:
        assert f.read(8) == PNG
    no_exception(page)


STAGES = len(LESSONS[0].stages)
TITLES = [
    ("", "PAC-Bayesian majority votes · cbviz"),
    ("lessons", "Lessons · cbviz"),
    ("lessons?lesson=1&stage=1", f"Stage 1 of {STAGES} · Lesson 1: {LESSONS[0].title} · cbviz"),
    ("lessons?lesson=1&stage=2", f"Stage 2 of {STAGES} · Lesson 1: {LESSONS[0].title} · cbviz"),
    ("step_through_cbboost?toy=moons", "Step through CB-Boost · cbviz"),
    ("compare_algorithms", "Compare algorithms · cbviz"),
    ("cbound_explorer", "C-bound explorer · cbviz"),
    ("gradient_vs_exhaustive", "Gradient vs exhaustive · cbviz"),
    ("paper_experiments", "Paper experiments · cbviz"),
    ("class", "Class dashboard · cbviz"),
]


def title_of(page, name):
    """The document title once it names ``name`` (Streamlit sets it as the page runs)."""
    page.wait_for_function("n => document.title.includes(n)", arg=name, timeout=WAIT)
    return page.title()


def test_each_page_and_lesson_stage_has_its_own_title(server, page):
    seen = {}
    for path, expected in TITLES:
        page.goto(f"{server}/{path}")
        settle(page)
        no_exception(page)
        assert title_of(page, expected.split(" · ")[0]) == expected, path
        if path.startswith("lessons?"):
            stage = re.search(r"stage=(\d+)", path).group(1)
            assert f"stage={stage}" in page.url          # the stage asked for, not another
        seen[path] = page.title()
    assert len(set(seen.values())) == len(TITLES), seen
    # within the app (Streamlit's own navigation, no page load): the new page's title
    page.goto(server)
    settle(page)
    page.locator("[data-testid='stSidebarNav'] a", has_text="Compare algorithms").click()
    settle(page)
    assert title_of(page, "Compare algorithms") == "Compare algorithms · cbviz"


# each chart's two buttons: under the chart, inside its width, whole (not cut off by a box
# that clips), and on top at their centre once scrolled into view
BUTTONS = """() => [...document.querySelectorAll('.cbviz-chart')].map(outer => {
  const chart = outer.querySelector('.cbviz-live-chart').getBoundingClientRect();
  return [...outer.querySelectorAll('.cbviz-chart-tools button')].map(b => {
    const r = b.getBoundingClientRect();
    const bad = [];
    if (r.top < chart.bottom - 1 || r.top > chart.bottom + 48) bad.push('not under the chart');
    if (r.left < chart.left - 1 || r.right > chart.right + 1) bad.push('wider than the chart');
    if (r.width < 20 || r.height < 16) bad.push('too small to click');
    if (b.scrollWidth > b.clientWidth + 1) bad.push('text cut off');
    for (let e = b.parentElement; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const c = e.getBoundingClientRect();
      if (r.left < c.left - 1 || r.right > c.right + 1) bad.push('cut off at the side');
    }
    if (r.right > document.documentElement.clientWidth + 1) bad.push('past the window');
    return {text: b.textContent, bad};
  });
})"""

IN_VIEW = """b => {
  const r = b.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
    && (top === b || b.contains(top));
}"""


def test_the_chart_buttons_are_in_view_under_their_chart_at_1024_px(server, browser):
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.set_default_timeout(WAIT)
    try:
        page.goto(server + "/step_through_cbboost?toy=moons")
        settle(page)
        for i in (1, 2, 3):
            step(page, i)
        page.wait_for_function("() => [...document.querySelectorAll('.cbviz-live-chart')]"
                               ".every(d => Number(d.dataset.draws) >= 1)")
        found = page.evaluate(BUTTONS)
        assert len(found) >= 2 and all(len(b) == 2 for b in found), found
        assert [b["text"] for b in found[0]] == ["Data table", "Download PNG"]
        assert [b for chart in found for b in chart if b["bad"]] == []
        buttons = page.locator(".cbviz-chart-tools button")
        for k in range(buttons.count()):
            button = buttons.nth(k)
            button.scroll_into_view_if_needed()
            assert button.evaluate(IN_VIEW), button.text_content()
        no_exception(page)
    finally:
        page.close()
