"""Checks of the figure builders in cbviz.plots on a real CB-Boost run.

Each figure is built from a small CB-Boost run on two moons (stump pool) and inspected
as data: trace names, titles, axis titles, hover templates, uirevision, the positions
of the marker lines, and that the figure serializes to JSON.
"""
from __future__ import annotations

import html
import json

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from cbviz import bounds
from cbviz import plots as P
from cbviz.algorithms import CBBoost, lockstep
from cbviz.algorithms.base import Candidates
from helpers import check_valid

ROOT = Path(__file__).resolve().parents[2]


def names(fig):
    return [t.name for t in fig.data]


def trace(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert len(found) == 1, f"expected one trace named {name!r}, got {names(fig)}"
    return found[0]


def check_common(fig, uirevision, expected_names):
    """The conventions every figure keeps."""
    assert isinstance(fig, go.Figure)
    assert fig.layout.title.text and fig.layout.title.text.strip()
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.uirevision == uirevision
    assert fig.layout.template.layout.paper_bgcolor is not None  # a template is applied
    legend_room = fig.layout.margin.b - 60  # the rows of the legend under the plot
    assert legend_room >= 0 and legend_room % 21 == 0
    assert 340 <= fig.layout.height - legend_room <= 520  # the plot area, titles and axes
    for name in expected_names:
        trace(fig, name)
    for t in fig.data:
        assert t.name, "every trace has a name"
        assert t.hovertemplate, f"trace {t.name!r} has no hover template"
    visible = [t for t in fig.data if t.showlegend is not False]
    if len(visible) > 1:
        assert fig.layout.showlegend is True
        assert fig.layout.legend.orientation == "h"
    check_colorbars(fig)
    check_valid(fig)



def shown_colorbars(fig):
    return [t.colorbar for t in fig.data if "colorbar" in t and t.showscale is not False]


def check_colorbars(fig):
    """Each colorbar Plotly draws stays in the figure at any width: it starts at the plot's right
    edge (x = 1 in paper units, anchored on its left), spans at most the plot's height, and
    the fixed right margin (px) holds its pad, bar, tick labels (6.5 px a character of a 12 px
    font) and a title on its right side; the margin still leaves most of a 480 px plot."""
    for bar in shown_colorbars(fig):
        assert (bar.xref or "paper") == "paper" and bar.x == 1.0 and bar.xanchor == "left"
        y, half = 0.5 if bar.y is None else bar.y, (1.0 if bar.len is None else bar.len) / 2
        assert (bar.yanchor or "middle") == "middle" and 0 <= y - half and y + half <= 1
        labels = list(bar.ticktext or ()) or ["−0.5", "0.8"]
        title = bar.title.text and bar.title.side == "right"
        need = bar.xpad + bar.thickness + 6.5 * max(len(t) for t in labels) + 16 * bool(title)
        assert need <= fig.layout.margin.r <= 0.3 * 480, (fig.layout.margin.r, need)


def test_the_template_is_plotly_white_cut_to_what_the_figures_use(frame):
    """Every value kept is plotly_white's but the font color (dark text, 4.5:1 or more on
    white); what is cut are the defaults of trace types cbviz never draws and the layout of
    maps, polar, ternary and 3-D plots (``check_valid`` checks each figure uses none of
    them)."""
    import plotly.io as pio
    from cbviz.plots.style import TEXT, TRACE_TYPES
    full = pio.templates["plotly_white"].to_plotly_json()
    kept = P.bounds_figure(frame).layout.template.to_plotly_json()
    assert kept["data"] == {k: v for k, v in full["data"].items() if k in TRACE_TYPES}
    assert kept["layout"]["font"] == {**full["layout"]["font"], "color": TEXT}
    assert {k: v for k, v in kept["layout"].items() if k != "font"} == {
        k: v for k, v in full["layout"].items()
        if k not in ("geo", "polar", "scene", "ternary", "font")}
    assert len(json.dumps(kept)) < 0.45 * len(json.dumps(full))


BOUND_TRACES = ["empirical C-bound", "PAC-Bayes C-bound (Roy et al. 2016, Thm 2)",
                "first-order bound, PAC-Bound 0 (Germain et al. 2015)",
                "PAC-Bound 1 (Germain et al. 2015)", "tandem bound (Masegosa et al. 2020)",
                "train error", "lowest value of each bound"]


def test_bounds_figure(frame):
    fig = P.bounds_figure(frame, current=4, uirevision="b-test")
    check_common(fig, "b-test", BOUND_TRACES + ["current iteration"])
    assert list(fig.layout.yaxis.range) == [0.0, 1.02]
    marker = trace(fig, "current iteration")
    assert set(marker.x) == {4}
    c = trace(fig, "empirical C-bound")
    np.testing.assert_allclose(c.y, frame["c_bound"])
    np.testing.assert_allclose(c.x, frame["iteration"])
    train = trace(fig, "train error")
    assert np.all(np.asarray(train.y) <= np.asarray(c.y) + 1e-12)  # the guarantee shown
    assert train.line.dash == "dash" and train.fill == "tozeroy"
    assert "current iteration" not in names(P.bounds_figure(frame))
    assert P.bounds_figure(frame).layout.uirevision == "bounds"
    stars = trace(fig, "lowest value of each bound")  # each bound's minimum, where it is
    for x, y, name in zip(stars.x, stars.y, stars.customdata):
        col = {v: k for k, v in bounds.PAC_BOUNDS.items()}[name]
        k = int(np.argmin(frame[col].to_numpy()))
        assert (x, y) == (frame["iteration"].iloc[k], frame[col].iloc[k])


def test_error_figure(frame):
    fig = P.error_figure(frame, current=3)
    check_common(fig, "errors", ["train error", "test error", "current iteration"])
    np.testing.assert_allclose(trace(fig, "test error").y, frame["test_error"])
    assert set(trace(fig, "current iteration").x) == {3}


def test_error_figure_without_test_data(frame):
    no_test = frame.assign(test_error=None)
    fig = P.error_figure(no_test)
    assert names(fig) == ["train error"]
    check_common(fig, "errors", ["train error"])
    assert names(P.error_figure(frame.assign(test_error=np.nan))) == ["train error"]


def test_kl_figure(frame, pool):
    n = pool.n_voters_
    fig = P.kl_figure(frame, n, current=2)
    check_common(fig, "kl", ["KL(Q‖P)", "ln n (ceiling)", "current iteration"])
    np.testing.assert_allclose(trace(fig, "ln n (ceiling)").y, math.log(n))
    np.testing.assert_allclose(trace(fig, "KL(Q‖P)").y, frame["kl"])
    assert "nats" in fig.layout.yaxis.title.text
    assert P.kl_figure(frame, np.int64(n)).data[1].y[0] == pytest.approx(math.log(n))
    for bad in (0, 2.5, "many", None):
        with pytest.raises(ValueError):
            P.kl_figure(frame, bad)


def test_alpha_figure(frame):
    fig = P.alpha_figure(frame, current=3)
    check_common(fig, "alpha", ["weight α"])
    bar = trace(fig, "weight α")
    assert isinstance(bar, go.Bar)
    np.testing.assert_allclose(bar.y, frame["alpha"])
    assert list(bar.customdata) == [html.escape(v, quote=False) for v in frame["label"]]
    assert "customdata" in bar.hovertemplate and "y:.4g" in bar.hovertemplate
    colors = list(bar.marker.color)
    assert len(set(colors)) == 2 and colors.count(colors[2]) == 1  # only iteration 3 differs
    plain = P.alpha_figure(frame).data[0].marker.color
    assert len(set(plain)) == 1


def test_margin_figure(run, data):
    y = data[1]
    rec = run.history[-1]
    M = bounds.margins(run.F, y, rec.weights.sum())
    fig = P.margin_figure(M, rec.mu1, rec.mu2)
    check_common(fig, "margins", ["margins", "μ₁ (mean margin)", "√μ₂"])
    assert set(trace(fig, "μ₁ (mean margin)").x) == {rec.mu1}
    assert set(trace(fig, "√μ₂").x) == {math.sqrt(rec.mu2)}
    assert any(set(t.x) == {0.0} for t in fig.data if t.name not in ("margins",))
    assert list(fig.layout.xaxis.range) == [-1.0, 1.0]
    assert sum(trace(fig, "margins").y) == M.size  # every example counted, even at +-1
    assert f"{rec.mu1:.4g}" in fig.layout.title.text
    assert f"{math.sqrt(rec.mu2):.4g}" in fig.layout.title.text
    assert "margin" in fig.layout.xaxis.title.text


def test_margin_figure_counts_the_edges():
    fig = P.margin_figure(np.array([-1.0, -1.0, 1.0, 0.5]), 0.5, 0.75)
    assert sum(fig.data[0].y) == 4


def rgb(color):
    """(r, g, b) of "rgb(r,g,b)" or "#rrggbb"."""
    if color.startswith("#"):
        return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(v)) for v in color[color.index("(") + 1:-1].split(",")[:3])


def grid(X, n=30):
    """Cell edges (n and n + 5 cells) and the cell centres as meshgrid arrays."""
    xe = np.linspace(X[:, 0].min() - 0.3, X[:, 0].max() + 0.3, n + 1)
    ye = np.linspace(X[:, 1].min() - 0.3, X[:, 1].max() + 0.3, n + 6)
    return xe, ye, np.meshgrid((xe[:-1] + xe[1:]) / 2, (ye[:-1] + ye[1:]) / 2)


def test_decision_figure(run, pool, data):
    X, y, X_test, y_test = data
    xe, ye, (xx, yy) = grid(X)
    rec = run.history[-1]
    G = np.c_[xx.ravel(), yy.ravel()]
    Z = (run.decision_function(pool.operator(G)) / rec.weights.sum()).reshape(xx.shape)
    k = rec.index
    stump = {"feature": int(pool.feature_[k]), "threshold": float(pool.threshold_[k]),
             "label": rec.label}
    fig = P.decision_figure(xe, ye, Z, X, y, X_test, y_test, stump=stump,
                            feature_names=("a", "b"))
    expected = ["vote value", "train +1", "train -1", "test +1", "test -1",
                f"new voter: {html.escape(rec.label, quote=False)}"]
    check_common(fig, "regions", expected)
    heat = trace(fig, "vote value")
    assert heat.zmin == -1 and heat.zmax == 1 and heat.zmid == 0
    assert heat.colorbar.title.text == "normalized vote"
    # diverging scale: -1 end blue, +1 end red, like the -1 / +1 points
    low, high = (rgb(heat.colorscale[0][1]), rgb(heat.colorscale[-1][1]))
    assert low[2] > low[0] and high[0] > high[2]
    plus, minus = rgb(trace(fig, "train +1").marker.color), rgb(trace(fig, "train -1").marker.color)
    assert plus[0] > plus[2] and minus[2] > minus[0]
    assert "symbol" in trace(fig, "test +1").marker and "open" in trace(fig, "test +1").marker.symbol
    assert "open" not in trace(fig, "train +1").marker.symbol
    assert len(trace(fig, "train +1").x) == int(np.sum(y == 1))
    assert len(trace(fig, "test -1").x) == int(np.sum(y_test == -1))
    line = trace(fig, f"new voter: {html.escape(rec.label, quote=False)}")
    if stump["feature"] == 0:
        assert set(line.x) == {stump["threshold"]}
    else:
        assert set(line.y) == {stump["threshold"]}
    assert fig.layout.xaxis.title.text == "a" and fig.layout.yaxis.title.text == "b"


def test_decision_figure_minimal_and_horizontal_stump(data):
    X, y, _, _ = data
    gx, gy = np.linspace(-2, 3, 21), np.linspace(-1, 2, 16)
    Z = np.tanh((gy[:-1, None] + gy[1:, None]) / 2 - 0.5 + 0 * gx[None, :-1])  # rows follow y
    fig = P.decision_figure(gx, gy, Z, X, y, stump={"feature": 1, "threshold": 0.25,
                                                    "label": "x1 > 0.25"})
    assert "test +1" not in names(fig)
    line = trace(fig, "new voter: x1 &gt; 0.25")  # sent escaped, shown as ">"
    assert set(line.y) == {0.25}
    check_common(fig, "regions", ["vote value", "train +1", "train -1"])


def test_direction_curve_figure(run):
    curve = run.direction_curve(4)
    fig = P.direction_curve_figure(curve)
    check_common(fig, "direction", ["C-bound along α", "closed-form optimum (Theorem 3)",
                                    "C-bound before the step"])
    star = trace(fig, "closed-form optimum (Theorem 3)")
    assert star.x[0] == pytest.approx(curve.alpha_star) and star.y[0] == pytest.approx(curve.c_star)
    assert set(trace(fig, "C-bound before the step").y) == {curve.c_now}
    assert trace(fig, "C-bound before the step").line.dash == "dot"
    assert html.escape(curve.label, quote=False) in fig.layout.title.text
    # the closed-form optimum is the curve's minimum (Theorem 3)
    assert curve.c_star <= np.min(curve.c_values) + 1e-9


def test_direction_curve_without_optimum(run):
    curve = run.direction_curve(4)
    import dataclasses
    flat = dataclasses.replace(curve, alpha_star=None, c_star=None)
    fig = P.direction_curve_figure(flat)
    assert "closed-form optimum (Theorem 3)" not in names(fig)
    check_common(fig, "direction", ["C-bound along α", "C-bound before the step"])


def test_landscape_figure(run, pool):
    cands = run.history[4].candidates
    fig = P.landscape_figure(cands, pool.describe)
    e, g = cands.exhaustive_pick, cands.gradient_pick
    expected = ["candidate voters"]
    if e == g:
        expected.append(f"both rules pick: {html.escape(pool.describe(e), quote=False)}")
    else:
        expected += [f"exhaustive pick: {html.escape(pool.describe(e), quote=False)}",
                     f"gradient pick: {html.escape(pool.describe(g), quote=False)}"]
    check_common(fig, "landscape", expected)
    assert fig.layout.xaxis.title.text == "gradient score −∂C/∂a_k at a_k = 0"
    assert fig.layout.yaxis.title.text == "exact C-bound decrease (Property 1)"
    pts = trace(fig, "candidate voters")
    assert len(pts.x) == int(cands.valid.sum())
    descriptions = {row[0] for row in pts.customdata}
    # labels reach Plotly escaped (shown literally): "x1 <= 0.5" is sent as "x1 &lt;= 0.5"
    assert descriptions == {html.escape(pool.describe(k), quote=False)
                            for k in np.flatnonzero(cands.valid)}
    assert "customdata[0]" in pts.hovertemplate and "customdata[1]" in pts.hovertemplate


def test_landscape_counts_what_it_claims(data, pool):
    """Subtitle: improving voters among the *eligible* ones, and all that lower the C-bound;
    the voters outside the rule that would lower it are drawn at their exact decrease."""
    X, y, _, _ = data
    run = CBBoost(max_iter=6).start(pool.operator(X), y).run()
    cands = run.candidates()
    eligible = cands.theorem3 & ~cands.in_vote
    fig = P.landscape_figure(cands, pool.describe)
    title = fig.layout.title.text
    assert (f"{int(cands.valid.sum())} of {int(eligible.sum())} eligible voters improve "
            "(eligible: γ(h) > 0 and not in the vote)") in title
    assert f"{int(cands.lowers.sum())} of the {cands.valid.size} voters lower the C-bound" in title
    outside = trace(fig, "lowers it, but outside the rule")
    idx = np.flatnonzero(cands.lowers & ~cands.valid)
    assert sorted(outside.customdata) == sorted(html.escape(pool.describe(k), quote=False)
                                                for k in idx)
    np.testing.assert_allclose(sorted(outside.y), sorted(cands.best_decrease[idx]))


def synthetic_candidates(n, e, g, seed=0):
    rng = np.random.default_rng(seed)
    gradient = rng.normal(size=n)
    valid = gradient > 0.5
    decrease = np.where(valid, rng.uniform(0, 0.01, n), 0.0)
    gradient[g] = 10.0
    decrease[e] = 0.5
    valid[[e, g]] = True
    alpha = np.where(valid, rng.uniform(0, 1, n), 0.0)
    return Candidates(gradient=gradient, decrease=decrease, alpha=alpha, valid=valid)


def test_landscape_picks_differ_and_sequence_labels():
    cands = synthetic_candidates(300, e=7, g=11)
    labels = [f"v{k}" for k in range(300)]
    fig = P.landscape_figure(cands, labels, uirevision="L")
    check_common(fig, "L", ["candidate voters", "cannot lower the C-bound", "exhaustive pick: v7",
                            "gradient pick: v11"])
    assert trace(fig, "exhaustive pick: v7").y[0] == 0.5
    assert trace(fig, "gradient pick: v11").x[0] == 10.0
    assert fig.data[names(fig).index("exhaustive pick: v7")].marker.symbol != \
        fig.data[names(fig).index("gradient pick: v11")].marker.symbol


def test_landscape_no_pick():
    n = 20
    z = np.zeros(n)
    cands = Candidates(gradient=np.linspace(-1, 0, n), decrease=z, alpha=z, valid=np.zeros(n, bool))
    fig = P.landscape_figure(cands, lambda k: f"h{k}")
    assert not any("pick" in name for name in names(fig))
    check_common(fig, "landscape", ["candidate voters", "cannot lower the C-bound"])


def test_landscape_large_pool_is_fast():
    n = 200_000
    cands = synthetic_candidates(n, e=123_456, g=42)
    fig = P.landscape_figure(cands, lambda k: f"x{k % 2} > {k / n:.4g}")
    assert all(isinstance(t, go.Scattergl) for t in fig.data)
    assert len(trace(fig, "cannot lower the C-bound").x) <= 5000
    assert len(trace(fig, "candidate voters").x) <= 20000
    pts = trace(fig, "candidate voters")
    assert 0.5 in set(pts.y) and 10.0 in set(pts.x)  # the picks are among the points drawn
    assert trace(fig, "exhaustive pick: " + f"x0 &gt; {123_456 / n:.4g}")
    assert trace(fig, "gradient pick: " + f"x0 &gt; {42 / n:.4g}")


def test_lockstep_figure(data, pool):
    X, y, _, _ = data
    _, _, table = lockstep(pool.operator(X), y, 8, describe=pool.describe)
    fig = P.lockstep_figure(table)
    check_common(fig, "lockstep", ["exhaustive (CB-Boost)", "gradient (GB-CB-Boost)",
                                   "rules disagree (tick)"])
    np.testing.assert_allclose(trace(fig, "exhaustive (CB-Boost)").y, table["exhaustive_c_bound"])
    n_agree = int(table["agree"].sum())
    assert f"{n_agree} of {len(table)}" in fig.layout.title.text


def test_lockstep_figure_marks_disagreements():
    table = pd.DataFrame({
        "iteration": [1, 2, 3, 4],
        "exhaustive_c_bound": [0.5, 0.4, 0.35, 0.3],
        "gradient_c_bound": [0.5, 0.42, 0.36, None],
        "agree": [True, False, True, False],
        "exhaustive_label": ["a", "b", "c", "d"],
        "gradient_label": ["a", "B", "c", None],
    })
    fig = P.lockstep_figure(table, uirevision="ls")
    check_common(fig, "ls", ["exhaustive (CB-Boost)", "gradient (GB-CB-Boost)", "rules disagree (tick)"])
    off = trace(fig, "rules disagree (tick)")
    assert list(off.x) == [2, 4]
    # a row of ticks under both curves, so 100 disagreements never hide them
    assert off.y[0] == off.y[1] < 0.3
    assert list(off.customdata[0]) == ["b", "B"]
    assert "2 of 4" in fig.layout.title.text and "50%" in fig.layout.title.text


def test_weights_table(run, pool):
    rec = run.history[-1]
    added = {r.index: r.iteration for r in run.history}
    table = P.weights_table(rec, pool.describe, added)
    assert list(table.columns) == ["iteration added", "voter", "alpha", "share of the vote Q"]
    assert list(table["iteration added"]) == sorted(added.values())
    assert table["share of the vote Q"].sum() == pytest.approx(1.0)
    first = run.history[0]
    assert table.loc[0, "voter"] == first.label and table.loc[0, "alpha"] == pytest.approx(1.0)
    by_history = P.weights_table(rec, pool.describe, run.history)
    pd.testing.assert_frame_equal(table, by_history)


def test_weights_table_sorts_by_iteration_added(run, pool):
    rec = run.history[2]
    order = {int(k): 10 - i for i, k in enumerate(rec.support)}
    table = P.weights_table(rec, pool.describe, order)
    assert list(table["iteration added"]) == sorted(order.values())
    assert len(table) == rec.n_voters


def test_empty_history_does_not_crash(pool):
    empty = pd.DataFrame()
    for fig in (P.bounds_figure(empty), P.error_figure(empty), P.kl_figure(empty, 10),
                P.alpha_figure(empty)):
        assert isinstance(fig, go.Figure)
        fig.to_json()


def test_decision_figure_rejects_a_grid_of_the_wrong_shape(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="cells between these edges"):
        P.decision_figure(np.arange(4.0), np.arange(3.0), np.zeros((3, 2)), X, y)


def test_decision_boundary_runs_along_the_cell_sides_where_the_sign_changes(data):
    """A vote positive on the 2 x 2 block of cells at the top right of a 3 x 3 grid: the
    boundary is the two sides of that block inside the grid, nothing else."""
    X, y, _, _ = data
    xe, ye = np.array([0.0, 1, 2, 3]), np.array([0.0, 10, 20, 30])
    Z = -np.ones((3, 3))
    Z[1:, 1:] = 0.5
    bx, by = P.regions._boundary(xe, ye, Z)
    segments = {((bx[k], by[k]), (bx[k + 1], by[k + 1])) for k in range(0, bx.size, 3)}
    assert np.isnan(bx[2::3]).all() and np.isnan(by[2::3]).all()
    assert segments == {((1, 10), (1, 20)), ((1, 20), (1, 30)),   # x = 1, rows 1 and 2
                        ((1, 10), (2, 10)), ((2, 10), (3, 10))}   # y = 10, columns 1 and 2
    fig = P.decision_figure(xe, ye, Z, X, y)
    line = trace(fig, "decision boundary")
    np.testing.assert_array_equal(line.x, bx)
    assert "decision boundary" not in names(
        P.decision_figure(xe, ye, np.ones((3, 3)), X, y))  # one sign: no boundary


def test_plots_does_not_load_streamlit():
    code = "import sys, cbviz.plots; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_large_data_scatters_draw_a_stated_fixed_sample_with_webgl():
    from cbviz.plots.regions import MAX_POINTS, decision_figure, projection_figure
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30_000, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    figs = (projection_figure(X, y, X[:9000], y[:9000]),
            decision_figure(np.array([-5.0, 0.0, 5.0]), np.array([-5.0, 5.0]),
                            np.array([[-0.5, 0.5]]), X[:, :2], y, X[:9000, :2], y[:9000]))
    for fig in figs:
        points = [t for t in fig.data if getattr(t, "mode", None) == "markers"]
        assert all(t.type == "scattergl" for t in points)
        train = sum(len(t.x) for t in points if t.name.startswith("train"))
        test = sum(len(t.x) for t in points if t.name.startswith("test"))
        assert train == MAX_POINTS and test == MAX_POINTS
        title = fig.layout.title.text
        assert "2,000 of 30,000 train points" in title and "2,000 of 9,000 test points" in title
    again = projection_figure(X, y)
    assert np.array_equal(again.data[0].x, figs[0].data[0].x)  # the same sample every time
    small = projection_figure(X[:300], y[:300])
    assert all(t.type == "scatter" for t in small.data) and "sample" not in small.layout.title.text


def test_every_colorbar_sits_inside_its_figure(run, pool, data):
    """The figures that show a colorbar (the C-bound map, the input plane with its scale,
    Fig. 3's heatmap) keep it in the figure; the plane without its scale keeps a thin margin."""
    from cbviz.cbound_plane import c_bound_grid
    from cbviz.experiments.fig3 import fig3_heatmap
    from cbviz.plots.cbound import c_bound_map_figure
    X, y, _, _ = data
    xe, ye, (xx, yy) = grid(X)
    Z = np.tanh(xx - yy)
    diff = pd.DataFrame({"dataset": ["a", "a"], "noise": [0.0, 0.5],
                         "better": ["CB-Boost", "AdaBoost"], "difference": [-0.01, 0.02],
                         **{k: [0.1, 0.1] for k in ("cbboost_mean", "cbboost_std",
                                                    "adaboost_mean", "adaboost_std")}})
    figs = [c_bound_map_figure(c_bound_grid(axes, 21)) for axes in ("risks", "moments")]
    figs += [P.decision_figure(xe, ye, Z, X, y), fig3_heatmap(diff)]
    for fig in figs:
        assert len(shown_colorbars(fig)) == 1
        check_colorbars(fig)
    hidden = P.decision_figure(xe, ye, Z, X, y, show_scale=False)
    assert not shown_colorbars(hidden) and hidden.layout.margin.r < 30


def test_a_one_shot_solver_is_a_large_labelled_marker_in_the_legend(frame):
    """MinCq's run has one record: its value is a large diamond with "MinCq <value>" written
    beside it, named in the legend; the curves keep their lines and small markers."""
    one = pd.DataFrame({"iteration": [1], "train_error": [0.41234]})
    fig = P.compare_figure({"CB-Boost": frame, "MinCq": one}, "train_error", title="Training",
                           y_title="error")
    check_common(fig, "compare_train_error", ["CB-Boost", "MinCq"])
    point, curve = trace(fig, "MinCq"), trace(fig, "CB-Boost")
    assert list(point.x) == [1] and list(point.y) == [0.41234]
    assert point.marker.size >= 12 and point.marker.symbol == "diamond"
    assert "text" in point.mode and list(point.text) == ["MinCq 0.4123"]
    assert point.cliponaxis is False and point.showlegend is not False
    assert fig.layout.showlegend is True
    assert curve.mode == "lines+markers" and curve.marker.size < 12 and not curve.text


@pytest.mark.parametrize("bounds_known", [True, False])
def test_the_bounds_figure_is_drawn_from_its_columns_alone(frame, bounds_known):
    """``BOUNDS_COLUMNS`` is everything bounds_figure reads (the step page keys its shared
    figures by their values): the other columns changed, the figure stays; one of them
    changed, it changes."""
    frame = frame.copy()
    if not bounds_known:   # fitted trees: no PAC-Bayes bound
        frame[list(bounds.PAC_BOUNDS)] = np.nan
    others = [c for c in frame.columns if c not in P.BOUNDS_COLUMNS]
    scrambled = frame.copy()
    scrambled[others] = scrambled[others].iloc[::-1].to_numpy()
    def drawn(f):
        return P.bounds_figure(f, current=4).to_json()

    same = drawn(frame)
    assert drawn(scrambled) == same
    assert drawn(frame[list(P.BOUNDS_COLUMNS)]) == same
    for column in P.BOUNDS_COLUMNS:
        moved = frame.astype({column: float})
        moved.loc[moved.index[-1], column] = 0.123
        assert drawn(moved) != same, column
