"""The live chart's code (``live_chart.js``) in headless Chromium, given payloads in the orders
and states Streamlit can deliver them (issue 29).

The load test once lost a student this way: a chart of the gradient page lacked a part, asked
the server for every part again just as the student clicked "Step through an algorithm", and
the ask, which names the page the browser is on until the server answers, took the student
back.  Logged in a browser beside a busy server: a chart's figures reach it out of order while
its module loads (the newer one drawn first, then the older), a figure that cannot be drawn
dropped the parts it carried for the others, and charts already taken off the page asked.

Each test imports the module the app serves and calls its ``draw`` on elements of its own,
with payloads made by :func:`cbviz.ui.live_chart.payload`.  Every wait is on the page's state
(a draw counted, an ask recorded), never a sleep: charts that lack a part retry on one schedule,
so once a chart drawn after another has asked, the first would have asked too.
"""
import zlib
from collections import OrderedDict

import numpy as np
import pytest
from helpers import WAIT, require_chromium, settle

from cbviz.app.streamlit_server import serve
from cbviz.plots.style import TEMPLATE
from cbviz.ui import live_chart as L

require_chromium()

pytestmark = pytest.mark.browser

# draw(payload) on a new element of the page, its asks recorded in window.asks
HARNESS = """async (src) => {
  const module = await import(new URL(src, location.href));
  window.asks = [];
  window.charts = {};
  window.drawOn = (id, bytes) => {
    let el = document.getElementById(id);
    if (!el) {
      el = document.createElement("div");
      el.id = id;
      el.style.width = "400px";
      document.body.appendChild(el);
    }
    const cleanup = module.draw({data: new TextEncoder().encode(bytes), parentElement: el,
                                 setTriggerValue: (name, value) => window.asks.push([id, name])});
    window.charts[id] = cleanup;
  };
}"""
# the trace names the chart under ``id`` shows once it has drawn
DRAWN = """(id) => {
  const d = document.querySelector(`#${id} .cbviz-live-chart`);
  return d && Number(d.dataset.draws || 0) >= 1 ? d.data.map(t => t.name) : null;
}"""


def figure(name, y, title):
    rng = np.random.default_rng(zlib.crc32(f"{name} {title}".encode()))
    return {"data": [{"type": "scatter", "name": name, "x": rng.random(5),
                      "y": np.asarray(y, dtype=float)}],
            "layout": {"title": {"text": title}, "template": TEMPLATE}}


@pytest.fixture(scope="module")
def server():
    with serve() as running:
        yield running.url


@pytest.fixture
def page(browser, server):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(WAIT)
    # the step page draws a chart: the server then serves the chart's module
    page.goto(f"{server}/step_through_cbboost?source=toy&toy=moons")
    settle(page)
    page.evaluate(HARNESS, L.CHART_SRC)
    yield page
    page.close()


def drawn(page, element):
    return page.wait_for_function(DRAWN, arg=element).json_value()


def test_a_chart_draws_its_newest_figure_whichever_order_they_come_in(page):
    sent = OrderedDict()
    older = L.payload(figure("older", [1, 2, 3, 4, 5], "order"), sent, "older", number=1)
    newer = L.payload(figure("newer", [5, 4, 3, 2, 1], "order"), sent, "newer", number=2)
    assert b'"p":{}' not in newer and len(newer) < len(older)  # it leans on the older's parts
    page.evaluate("([a, b]) => { drawOn('c1', a); drawOn('c1', b); }",
                  [newer.decode(), older.decode()])
    assert drawn(page, "c1") == ["newer"]
    assert page.evaluate("asks") == []


def test_a_figure_that_cannot_draw_keeps_the_parts_it_carries_for_the_others(page):
    lost = figure("first", [1, 1, 2, 3, 5], "a layout the page lost")
    # the page was sent the first chart's layout but never drew it (a redraw it never got)
    sent = OrderedDict(L.split(lost)[1][1:2])
    first = L.payload(lost, sent, "first", number=1)
    second_fig = figure("second", [8, 13, 21, 34, 55], "its own layout")
    second_fig["data"][0]["x"] = lost["data"][0]["x"]   # an array the first chart carries
    second = L.payload(second_fig, sent, "second", number=2)
    assert len(second) < len(L.payload(second_fig, OrderedDict(), "second", number=2))
    page.evaluate("([a, b]) => { drawOn('c2', a); drawOn('c3', b); }",
                  [first.decode(), second.decode()])
    assert drawn(page, "c3") == ["second"]
    # the first chart, still shown, asks for every part again: the server's way to repair it
    page.wait_for_function("() => asks.length > 0")
    assert page.evaluate("asks") == [["c2", "missing"]]


def test_a_chart_taken_off_the_page_never_asks(page):
    payloads = []
    for name in ("unmounted", "removed", "shown"):
        fig = figure(name, [1, 2, 3, 4, 5], f"lost layout of {name}")
        sent = OrderedDict(L.split(fig)[1][1:2])   # each lacks its layout
        payloads.append(L.payload(fig, sent, name, number=1).decode())
    page.evaluate("""([a, b, c]) => {
      drawOn('gone1', a); charts.gone1();   // Streamlit unmounts it
      drawOn('gone2', b); document.getElementById('gone2').remove();  // or drops its element
      drawOn('kept', c);
    }""", payloads)
    # the shown chart asks on the same schedule as the two others, drawn before it
    page.wait_for_function("() => asks.length > 0")
    assert page.evaluate("asks") == [["kept", "missing"]]
