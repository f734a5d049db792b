"""cbviz.ui.live_chart: a figure sent in parts is the figure Plotly would send whole, and a
second redraw sends only the parts that changed (issue #29: a Step sends what changed)."""
import json
from collections import OrderedDict

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from cbviz import plots
from cbviz.algorithms import CBBoost
from cbviz.problem import Settings, build_problem
from cbviz.ui import live_chart as L
from helpers import step_figures


def whole(fig):
    """The figure as Plotly serializes it (what ``st.plotly_chart`` and the page sent before)."""
    return json.loads(fig.to_json())


def drawn(fig, sent):
    """What the page draws from the payload, its earlier parts taken from ``sent``."""
    before = dict(sent)
    return L.figure_of(L.payload(fig, sent), before)


@pytest.fixture(scope="module")
def run():
    problem = build_problem(Settings(source="toy", toy="moons", n_samples=300,
                                     toy_noise=0.25, n_thresholds="10"))
    s = problem.split
    run = CBBoost(max_iter=50).start(problem.H_train, s.y_train, problem.H_test, s.y_test,
                                     describe=problem.pool.describe)
    return problem, run


def test_each_step_draws_the_figure_plotly_sends_whole_and_sends_only_what_changed(run):
    problem, run = run
    sent, first = OrderedDict(), None
    for t in range(1, 9):
        run.step()
        for fig in step_figures(problem, run, t):
            data = L.payload(fig, sent.copy())
            assert drawn(fig, sent) == whole(fig)
            if first is None:
                first = len(data)
            elif fig.layout.title.text.startswith("Majority vote"):
                parts = json.loads(data)["p"].values()
                # the points, the template and the layout went with the first Step only
                assert not any(isinstance(p, dict) and
                               p.get("name", "").startswith(("train", "test")) for p in parts)
                assert not any(isinstance(p, dict) and "data" in p and "layout" in p
                               for p in parts)
                assert len(data) < first / 3


def test_typed_arrays_are_plotly_s_own():
    """Every dtype Plotly turns into a typed array, the int64 narrowing, 2-D arrays, NaN, empty
    and object arrays: the same JSON as Plotly's ``to_dict``."""
    big = np.array([1, 2**40], dtype=np.int64)
    traces = [plots._figures.Scatter(x=np.arange(5), y=np.array([0.5, np.nan, 1, 2, 3]),
                                     customdata=np.array(["a", "b", "c", "d", "e"], dtype=object),
                                     name="a", hovertemplate="%{y}"),
              plots._figures.Scatter(x=big, y=np.arange(2, dtype=np.uint64) + 2**33,
                                     name="b", hovertemplate="%{y}"),
              plots._figures.Heatmap(z=np.arange(6.0).reshape(2, 3), x=np.array([], float),
                                     y=np.array([-200, 70000], dtype=np.int64),
                                     name="c", hovertemplate="%{z}"),
              plots._figures.Scatter(x=np.arange(3, dtype=np.float32), y=[1, 2, 3],
                                     marker=dict(color=np.array([1, 2, 3], dtype=np.int8)),
                                     name="d", hovertemplate="%{y}")]
    fig = plots._figures.styled(plots._figures.new_figure(*traces), title="t", x_title="x",
                                y_title="y", uirevision="u")
    assert drawn(fig, OrderedDict()) == whole(fig)


def test_the_session_forgets_the_oldest_parts_beyond_its_limits(run, monkeypatch):
    problem, run = run
    monkeypatch.setattr(L, "KEEP", 6)
    sent = OrderedDict()
    regions, bounds = step_figures(problem, run, 3)
    L.payload(regions, sent)
    assert len(sent) == 6          # the most recently used; the page keeps at least those
    assert drawn(bounds, sent) == whole(bounds)
    monkeypatch.setattr(L, "KEEP_BYTES", 1)
    L.payload(regions, sent)
    assert len(sent) == 1


def page():
    """A page with one live chart; ``lost`` in the session: the page said it lacks a part."""
    import plotly.graph_objects as go
    import streamlit as st

    from cbviz.ui.live_chart import _resend, live_chart
    if st.session_state.pop("lost", False):
        _resend()   # what the "missing" trigger's callback does
    live_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[4, 5, 6]), layout=dict(template={})),
               key="c")


def test_a_page_that_lacks_a_part_gets_every_part_again():
    at = AppTest.from_function(page).run()
    first = at.get("bidi_component")[0].proto
    at.run()
    again = at.get("bidi_component")[0].proto.bytes
    assert json.loads(again)["p"] == {} and len(again) < len(first.bytes)
    at.session_state["lost"] = True
    at.run()
    resent = json.loads(at.get("bidi_component")[0].proto.bytes)
    # the same parts, numbered on: the session's payloads 1, 2 and 3
    assert [json.loads(first.bytes).pop("n"), json.loads(again)["n"], resent.pop("n")] == [1, 2, 3]
    assert resent == {k: v for k, v in json.loads(first.bytes).items() if k != "n"}
    # each element carries a loader of the chart's module, not the module
    assert len(first.js_content) < 300 and L.CHART_SRC in first.js_content


def test_the_chart_files_are_addressed_by_their_content():
    """The module's address names plotly.js's version; the module finds plotly.js beside its
    own folder (live_chart.js's rule), so browsers may keep both for a year."""
    assert L.CHART_SRC.startswith(f"component/{L.__name__}.cbviz_js/live_chart.js?v=")
    version = L.CHART_SRC.rpartition("&p=")[2]
    derived = L.CHART_SRC.split("?")[0].replace("cbviz_js/live_chart.js",
                                                 "plotlyjs/plotly.min.js") + f"?v={version}"
    assert derived == L.PLOTLY_SRC
    assert 'replace(/cbviz_js\\/live_chart\\.js$/, "plotlyjs/plotly.min.js")' in \
        L.CHART_JS.read_text()


def test_a_figure_given_as_plots_spec_dict_draws_the_same_figure(run):
    """``spec=True`` (a dict, no ``go.Figure``) sends what the ``go.Figure`` would."""
    problem, run = run
    while len(run.history) < 4:
        run.step()
    s, frame = problem.split, run.to_frame()
    xe, ye, Z = problem.vote_grid(run.weights_at(4))
    for build in (lambda **k: plots.bounds_figure(frame, current=2, **k),
                  lambda **k: plots.error_figure(frame, current=3, **k),
                  lambda **k: plots.decision_figure(xe, ye, Z, s.X_train, s.y_train, s.X_test,
                                                    s.y_test, show_scale=False, **k)):
        spec = build(spec=True)
        assert isinstance(spec, dict)
        assert L.figure_of(L.payload(spec, OrderedDict()), {}) == whole(build())


def shared_page(counter, key):
    """Two charts of one content key: the figure is made once per process."""
    import plotly.graph_objects as go

    from cbviz.ui.live_chart import live_chart

    def build():
        with open(counter, "a") as f:
            f.write("built\n")
        return go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, 2]))

    live_chart(build, key="c", shared=key)


def test_sessions_share_a_figure_of_one_content_key(tmp_path):
    counter, key = tmp_path / "builds", L.content_key("test", tmp_path.name)
    sessions = [AppTest.from_function(shared_page, args=(str(counter), key)).run()
                for _ in range(3)]
    assert counter.read_text() == "built\n"
    sent = [s.get("bidi_component")[0].proto.bytes for s in sessions]
    assert sent[0] == sent[1] == sent[2] and json.loads(sent[0])["p"]   # each page sent all


def test_content_keys_differ_exactly_when_the_contents_do(run):
    _, run = run
    frame = run.to_frame()
    assert L.content_key("bounds", frame, 3) == L.content_key("bounds", run.to_frame(), 3)
    changed = frame.copy()
    changed.loc[0, "c_bound"] += 1e-12
    assert L.content_key("bounds", changed, 3) != L.content_key("bounds", frame, 3)
    assert L.content_key("bounds", frame, 3) != L.content_key("bounds", frame, 4)
    a = np.arange(4.0)
    assert L.content_key(a) != L.content_key(a.view(np.int64)) != L.content_key(a.reshape(2, 2))
