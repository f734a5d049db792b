"""cbviz.ui.live_chart's text alternative (issue 30, WCAG 2.1 1.1.1): each chart's payload
carries its summary ("a", :func:`cbviz.plots.figure_summary`: ``title``, else the figure's
own, then its values), on every redraw; a figure shared between sessions (``shared=``) has its
summary made once per key and title, the same as the unshared chart's.  (The PNG's file name,
made in the page from the chart's title, is checked in
tests/app/test_browser_chart_alternative.py.)"""
import json
from collections import OrderedDict

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from cbviz.plots import figure_summary
from cbviz.ui import live_chart as L

HOSTILE = "<img src=x onerror=alert(1)>"


def figure():
    return go.Figure(go.Scatter(x=[1, 2, 3], y=[0.5, 0.4, 0.32], mode="lines",
                                name="C-bound"),
                     layout=dict(title="C-bound by iteration<br><sup>a subtitle</sup>",
                                 xaxis_title="iteration", template={}))


def message(element):
    return json.loads(element.proto.bytes)


def charts(at):
    return [message(e) for e in at.get("bidi_component") if e.proto.component_name == L.NAME]


def test_the_payload_carries_the_summary():
    fig = figure()
    label = 'C-bound by "iteration". At iteration 3: C-bound 0.320 </script>\n' + HOSTILE
    sent = OrderedDict()
    data = L.payload(fig, sent, label=label)
    got = json.loads(data)
    assert got["a"] == label                                          # as given, as text
    assert L.figure_of(data, {}) == json.loads(fig.to_json())        # the figure unharmed
    again = json.loads(L.payload(fig, sent, label=label))
    assert again["p"] == {} and again["a"] == label                  # every redraw names it
    assert json.loads(L.payload(fig, OrderedDict()))["a"] == ""


def page(title):
    """One live chart under the key "bounds_chart"; ``title``: live_chart's own, or None."""
    import plotly.graph_objects as go

    from cbviz.ui.live_chart import live_chart
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[0.5, 0.4, 0.32], mode="lines", name="C-bound"),
                    layout=dict(title="C-bound by iteration<br><sup>a subtitle</sup>",
                                xaxis_title="iteration", template={}))
    live_chart(fig, key="bounds_chart", title=title)


def test_a_chart_is_named_by_its_summary_or_by_its_title():
    at = AppTest.from_function(page, args=(None,)).run()
    (chart,) = charts(at)
    assert chart["a"] == figure_summary(figure())
    assert chart["a"] == "C-bound by iteration. At iteration 3: C-bound 0.320."
    at.run()                                   # a rerun: named again, the same
    assert charts(at)[0]["a"] == chart["a"]
    at = AppTest.from_function(page, args=("Risk bounds",)).run()
    (chart,) = charts(at)
    assert chart["a"] == "Risk bounds. At iteration 3: C-bound 0.320."


def test_a_hostile_title_reaches_the_page_as_text():
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2], name=HOSTILE),
                    layout=dict(title=f"{HOSTILE} &amp; more", template={}))
    got = json.loads(L.payload(fig, OrderedDict(), label=figure_summary(fig)))
    assert got["a"].startswith(f"{HOSTILE} & more. ")     # a JSON string, set as an attribute


def shared_page(key, title):
    """A shared chart: the figure made once per key by whichever session comes first."""
    import plotly.graph_objects as go

    from cbviz.ui.live_chart import live_chart

    def build():
        return go.Figure(go.Scatter(x=[1, 2, 3], y=[0.5, 0.4, 0.32], mode="lines",
                                    name="C-bound"),
                         layout=dict(title="C-bound by iteration<br><sup>a subtitle</sup>",
                                     xaxis_title="iteration", template={}))
    live_chart(build, key="bounds_chart", shared=key, title=title)


@pytest.fixture
def counted(monkeypatch):
    """The figures live_chart summarizes, in order (its module's figure_summary counted)."""
    calls = []

    def counting(fig, title=None):
        calls.append(title)
        return figure_summary(fig, title)
    monkeypatch.setattr(L, "figure_summary", counting)
    return calls


def test_a_shared_figure_is_summarized_once_per_key_and_title(counted, tmp_path):
    key = L.content_key("summary test", str(tmp_path))   # a key no other test has used
    sessions = [AppTest.from_function(shared_page, args=(key, None)).run() for _ in range(3)]
    sessions[0].run()                                     # a rerun: still the one summary
    assert counted == [None]
    labels = {chart["a"] for s in sessions for chart in charts(s)}
    assert labels == {figure_summary(figure())}           # the unshared chart's label
    unshared = charts(AppTest.from_function(page, args=(None,)).run())[0]
    assert labels == {unshared["a"]}
    # the same content under another title: a summary of its own, once
    titled = [AppTest.from_function(shared_page, args=(key, "Risk bounds")).run()
              for _ in range(2)]
    assert counted == [None, None, "Risk bounds"]
    assert {c["a"] for s in titled for c in charts(s)} == {
        "Risk bounds. At iteration 3: C-bound 0.320."}
    # another content key: summarized again
    AppTest.from_function(shared_page, args=(key + "x", None)).run()
    assert counted == [None, None, "Risk bounds", None]
