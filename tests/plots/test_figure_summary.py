"""cbviz.plots.figure_summary, each chart's text alternative (issue 30, WCAG 2.1 1.1.1): for
every figure builder of cbviz.plots and the page-level figures (C-bound explorer, Compare, the
class, one CB-Boost step), built from small real runs, the summary starts with the figure's
title, names every series a sighted reader sees named, and every value it states is the
figure's data (the bounds at the "current iteration" line, each bar, a grid's least and
greatest value, a count of points).  Titles and names come out as the text Plotly shows:
its tags gone, entities decoded, anything else (a hostile ``<img onerror>``) kept as text.

What the summary may shorten is allowed for: a name without its citation ("PAC-Bound 1"
for "PAC-Bound 1 (Germain et al. 2015)"), an axis title without its remark in parentheses
("iteration" for "iteration (step of the algorithm)"), the first letter of a sentence in
capitals.
"""
from __future__ import annotations

import doctest
import html
import inspect
import json
import math
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from helpers import values

import cbviz.plots as P
from cbviz import bounds
from cbviz.algorithms import CBBoost, lockstep, mincq_on_history
from cbviz.bounds import PAC_BOUNDS
from cbviz.cbound_plane import AXES, c_bound_grid, c_bound_slice, trajectory
from cbviz.compare import Comparison
from cbviz.lessons import Question
from cbviz.plots import _describe, cbound, classroom, comparison, landscapes
from cbviz.plots import figure_summary as summary
from cbviz.problem import Settings, build_problem
from cbviz.sample_size import bounds_vs_m, m_grid
from cbviz.toy_vote import toy_preset, toy_summary, toy_wrong

HOSTILE = "<img src=x onerror=alert(1)>"
CHOICE = Question("Which?", choices=("alpha", "beta", "gamma"))
NUMBER = Question("How much?", low=0.0, high=1.0, step=0.01, tolerance=0.05)
VALUE = r"-?\d+(?:\.\d+)?|none|infinity|minus infinity"

# ---------------------------------------------------------------- what a reader is told


def fmt(v):
    """A value as the summary says it: whole numbers whole, others to 3 decimals (never
    "-0.000"), from 1000 on whole."""
    v = float(v)
    if not math.isfinite(v):
        return "none" if math.isnan(v) else ("infinity" if v > 0 else "minus infinity")
    if v.is_integer():
        return str(int(v))
    return f"{round(v, 3) + 0.0:.3f}" if abs(v) < 1000 else f"{v:.0f}"


# Plotly's own rule for text in a title or a legend (plotly.js svg_text_utils): a part
# "<...>" whose tag is one of these is markup, any other is shown as it is written; entities
# are decoded
_PLOTLY_TAGS = {"br", "sup", "sub", "s", "u", "b", "i", "a", "span", "em"}


def shown(text, first_line=False):
    """What Plotly draws of ``text`` (its first line only for a title)."""
    out = []
    for part in re.split(r"(<[^<>]*>)", str(text or "")):
        tag = re.match(r"<(/?)([^ >]*)(\s+(.*))?>", part)
        name = tag.group(2).lower() if tag else None
        if name == "br":
            if first_line:
                break
            out.append(" ")
        elif name not in _PLOTLY_TAGS:
            out.append(html.unescape(part))
    return "".join(out).strip()


def variants(name):
    """``name`` as the summary may say it: whole, without its citations, without any remark
    in parentheses; each also with a capital first letter (a sentence's start)."""
    out = []
    for v in (name, re.sub(r"\s+\([^()]*\b\d{4}\b[^()]*\)", "", name),
              re.sub(r"\s+\([^()]*\)", "", name)):
        for w in (v, v[:1].upper() + v[1:]):
            if w and w not in out:
                out.append(w)
    return out


def named(text, name):
    return any(v in text for v in variants(name))


def stated(text, name):
    """The value the summary states for the series ``name`` ("..., name 0.361, ...")."""
    for v in variants(name):
        found = re.findall(r"(?:^|\. |: |, |; )" + re.escape(v) + rf" ({VALUE})(?=[,;] |\.$|$)",
                           text)
        if found:
            assert len(found) == 1, f"{name!r} stated {len(found)} times in {text!r}"
            return found[0]
    raise AssertionError(f"no value stated for {name!r} in {text!r}")


def readings(text):
    """``{x value: what is read there}`` of each "at <x axis> <x>: ..." of the summary."""
    return dict(re.findall(r"(?:^|\. |; )[Aa]t [^:;]*? (" + VALUE + r"): ([^;]*?)(?=; |\.$)",
                           text))


def trace_dicts(fig):
    spec = fig if isinstance(fig, dict) else fig.to_plotly_json()
    return spec["data"]


def array(trace, key):
    """A trace's array as a list (a typed array ``{"dtype", "bdata"}`` decoded), or None."""
    v = trace.get(key)
    if v is None:
        return None
    if isinstance(v, dict):
        return values(v).tolist()
    return list(np.asarray(v, dtype=object).ravel())


def drawn_points(trace):
    """How many points a scatter draws (an x, y pair with both present)."""
    x, y = array(trace, "x"), array(trace, "y")
    if y is None:
        return 0
    x = [None] * len(y) if x is None else x

    def present(v):
        return v is not None and not (isinstance(v, float) and math.isnan(v))
    return sum(present(a) and present(b) for a, b in zip(x, y))


def marks(trace):
    """A trace drawn as marks (points, a filled area, a legend key), not a line over x."""
    return trace.get("type", "scatter") in ("scatter", "scattergl") and "lines" not in str(
        trace.get("mode", "lines"))


# ---------------------------------------------------------------- small real runs


@pytest.fixture(scope="module")
def problem():
    return build_problem(Settings(source="toy", toy="moons", n_samples=120, n_thresholds="5"))


@pytest.fixture(scope="module")
def small(problem):
    """A CB-Boost run on the problem's voters, and MinCq on its voters at each iteration."""
    s = problem.split
    run = CBBoost(max_iter=6).start(problem.H_train, s.y_train, describe=problem.pool.describe)
    run.run()
    return run, mincq_on_history(run)


@pytest.fixture(scope="module")
def comparison_run(problem):
    cmp = Comparison(problem, [("cbboost", {}), ("adaboost", {})], max_iter=6)
    cmp.step(6)
    return cmp


def plane(X, n=24):
    """Cell edges over ``X`` and the cell centres."""
    xe = np.linspace(X[:, 0].min() - 0.3, X[:, 0].max() + 0.3, n + 1)
    ye = np.linspace(X[:, 1].min() - 0.3, X[:, 1].max() + 0.3, n + 4)
    return xe, ye, np.meshgrid((xe[:-1] + xe[1:]) / 2, (ye[:-1] + ye[1:]) / 2)


@pytest.fixture(scope="module")
def vote_plane(run, pool, data):
    """``(xe, ye, Z)``: the last vote of ``run`` on cells of the input plane."""
    xe, ye, (xx, yy) = plane(data[0])
    G = np.c_[xx.ravel(), yy.ravel()]
    Z = (run.decision_function(pool.operator(G)) / run.history[-1].weights.sum())
    return xe, ye, Z.reshape(xx.shape)


def stump_of(run, pool, t):
    rec = run.history[t - 1]
    return {"feature": int(pool.feature_[rec.index]),
            "threshold": float(pool.threshold_[rec.index]), "label": rec.label}


@pytest.fixture(scope="module")
def figures(run, frame, pool, data, vote_plane, small, comparison_run):
    """Every builder's figure, from the runs above: name -> figure."""
    X, y, X_test, y_test = data
    xe, ye, Z = vote_plane
    rec = run.history[-1]
    M = bounds.margins(run.F, y, rec.weights.sum())
    _, _, table = lockstep(pool.operator(X), y, 8, describe=pool.describe)
    results = [{"test_error": 0.1, "c_bound": 0.4, "pac_bound": 0.9},
               {"test_error": 0.2, "c_bound": 0.5, "pac_bound": 0.95},
               {"test_error": 0.25, "c_bound": 0.55, "pac_bound": None}]
    return {
        "bounds_figure": P.bounds_figure(frame, current=3),
        "error_figure": P.error_figure(frame, current=4),
        "kl_figure": P.kl_figure(frame, pool.n_voters_, current=2),
        "alpha_figure": P.alpha_figure(frame, current=3),
        "margin_figure": P.margin_figure(M, rec.mu1, rec.mu2),
        "decision_figure": P.decision_figure(xe, ye, Z, X, y, X_test, y_test,
                                             stump=stump_of(run, pool, 10)),
        "direction_curve_figure": P.direction_curve_figure(run.direction_curve(4)),
        "landscape_figure": P.landscape_figure(run.history[4].candidates, pool.describe),
        "lockstep_figure": P.lockstep_figure(table),
        "series_figure": P.series_figure(frame, {"mu1": "first moment", "mu2": "second moment"},
                                         title="Margin <i>moments</i>", y_title="moment",
                                         current=5),
        "mincq_on_voters_figure": P.mincq_on_voters_figure(small[0].history, small[1],
                                                           current=3),
        "projection_figure": P.projection_figure(X, y, X_test, y_test),
        "placeholder_figure": P.placeholder_figure("Test error", "no test examples"),
        "compare_figure": P.compare_figure(comparison_run.frames(), "train_error",
                                           title="Training error", y_title="error"),
        "bound_panel_figure": P.bound_panel_figure(comparison_run.final_panel()),
        "c_bound_map_figure": cbound.c_bound_map_figure(
            c_bound_grid("risks", 21), point=(0.2, 0.3),
            trajectories={"CB-Boost": trajectory(run.history)}),
        "c_bound_slice_figure": cbound.c_bound_slice_figure(c_bound_slice("risks", 0.3),
                                                            "risks", 0.3, y=0.35),
        "toy_grid_figure": cbound.toy_grid_figure(
            toy_summary(toy_wrong(toy_preset("different", m=10), m=10))),
        "toy_bars_figure": cbound.toy_bars_figure(
            toy_summary(toy_wrong(toy_preset("same", m=10), m=10))),
        "pac_bounds_figure": cbound.pac_bounds_figure(
            bounds_vs_m(0.3, 0.35, 2.0, 0.05, m_grid(50, 100_000, n=30)), kl=2.0, delta=0.05,
            chosen="pac_bound", target=0.5, needed=1000, limit=0.4, m_run=300),
        "votes_figure": classroom.votes_figure(CHOICE, ["alpha", "beta", "beta"], ["beta"],
                                               answers=["beta"]),
        "votes_figure_numbers": classroom.votes_figure(NUMBER, [0.1, 0.32, 0.33, 0.9],
                                                       answers=[0.3]),
        "class_runs_figure": classroom.class_runs_figure(results, {"test_error": 0.15,
                                                                   "c_bound": 0.45}),
    }


FIGURES = ["bounds_figure", "error_figure", "kl_figure", "alpha_figure", "margin_figure",
           "decision_figure", "direction_curve_figure", "landscape_figure", "lockstep_figure",
           "series_figure", "mincq_on_voters_figure", "projection_figure", "placeholder_figure",
           "compare_figure", "bound_panel_figure", "c_bound_map_figure", "c_bound_slice_figure",
           "toy_grid_figure", "toy_bars_figure", "pac_bounds_figure", "votes_figure",
           "votes_figure_numbers", "class_runs_figure"]


def _builders():
    """Names of every figure builder: cbviz.plots' exported ones and the page-level ones."""
    public = {name for name in P.__all__
              if name.endswith("_figure") and callable(getattr(P, name))}
    for module in (cbound, comparison, classroom, landscapes):
        public |= {name for name, f in vars(module).items()
                   if name.endswith("_figure") and inspect.isfunction(f)
                   and f.__module__ == module.__name__}
    return sorted(public)


def test_every_builder_is_summarized_here():
    """A builder added later gets a figure in ``figures`` (and so every check below)."""
    assert set(_builders()) <= set(FIGURES), set(_builders()) - set(FIGURES)


def test_the_doctest_of_figure_summary_runs():
    """pytest collects no doctests (no --doctest-modules) and tests/plots'
    docstring test lists the builders' modules only: the example is run here."""
    result = doctest.testmod(_describe, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 2 and result.failed == 0


# ---------------------------------------------------------------- every figure


@pytest.mark.parametrize("name", FIGURES)
def test_the_summary_starts_with_the_title_as_plain_text(figures, name):
    fig = figures[name]
    title = shown(fig.layout.title.text, first_line=True)   # what Plotly draws on top
    assert title and "<" not in title
    text = summary(fig)
    assert text.startswith(title + ". ") or (title[-1] in "?!" and text.startswith(title + " ")
                                             ), text
    assert not re.search(r"<(/?)(br|sup|sub|span|b|i|em|a|s|u)\b", text), text
    assert not re.search(r"&(#\d+|#x[0-9a-f]+|[a-z]+);", text, re.I), text   # entities decoded
    assert text.endswith("."), text
    # the summary of the figure's JSON (what a page or a protocol client holds) is the same
    assert summary(json.loads(fig.to_json())) == text


def shown_traces(fig):
    """The traces a reader sees named, with data ("current iteration" is where values are
    read; a trace with no data, such as no disagreement to tick, may go unsaid)."""
    for trace in trace_dicts(fig):
        if trace.get("visible") is False or trace.get("name") == "current iteration":
            continue
        if not any(array(trace, k) for k in ("y", "z")):
            continue
        if trace.get("type") in ("heatmap", "contour"):   # named by its colour scale's title
            bar = (trace.get("colorbar") or {}).get("title") or {}
            what = shown(bar.get("text") if isinstance(bar, dict) else bar) or shown(
                trace.get("name"))
        else:
            what = shown(trace.get("name"))
        if what:
            yield what, trace


@pytest.mark.parametrize("name", FIGURES)
def test_the_summary_names_every_curve_bar_box_and_grid(figures, name):
    text = summary(figures[name])
    missing = [what for what, trace in shown_traces(figures[name])
               if not marks(trace) and not named(text, what)]
    assert missing == [], text


@pytest.mark.parametrize("name", FIGURES)
def test_the_summary_names_every_set_of_marks_in_the_legend(figures, name):
    """Points, a filled area, a star at a bound's lowest value, a chosen point: a sighted
    reader sees each named in the legend (issue 30's brief: every legend-visible named
    trace), so the summary names it too."""
    text = summary(figures[name])
    missing = [what for what, trace in shown_traces(figures[name])
               if marks(trace) and not named(text, what)]
    assert missing == [], text


@pytest.mark.parametrize("name", FIGURES)
def test_a_count_of_points_is_the_number_of_points_drawn(figures, name):
    """"train +1: 40 points" or "points: train +1 40": the points the trace draws (a legend
    key drawn at x=[None], y=[None] draws none); one point is "1 point"."""
    fig = figures[name]
    text = summary(fig)
    assert not re.search(r"\b1 points\b", text), text
    for what, trace in shown_traces(fig):
        if not marks(trace):
            continue
        for v in variants(what):
            found = re.findall(r"(?:^|\. |: |, |; )" + re.escape(v)
                               + r"(?:: | )(\d+)(?: points?)?(?=[,;] |\.$)", text)
            for count in found:
                assert int(count) == drawn_points(trace), (what, count, text)


# ---------------------------------------------------------------- values at the current line


COLUMNS = {"train_error": "train error", "c_bound": "empirical C-bound", **PAC_BOUNDS}


@pytest.mark.parametrize("spec", [False, True], ids=["figure", "spec"])
def test_the_bounds_figure_states_each_value_at_the_current_iteration(frame, spec):
    for t in range(1, len(frame) + 1):
        text = summary(P.bounds_figure(frame, current=t, spec=spec))
        row = frame[frame["iteration"] == t].iloc[0]
        read = readings(text)
        assert list(read) == [str(t)], text         # "At iteration t: ...", at t only
        for column, name in COLUMNS.items():
            assert stated(read[str(t)], name) == fmt(row[column]), (t, name, text)


def test_without_a_current_line_the_last_values_are_stated(frame):
    text = summary(P.bounds_figure(frame))
    last = frame.iloc[-1]
    read = readings(text)
    assert list(read) == [str(int(last["iteration"]))], text
    for column, name in COLUMNS.items():
        assert stated(text, name) == fmt(last[column])


def test_errors_kl_series_and_mincq_at_the_current_iteration(frame, pool, small):
    row = frame.iloc[3]
    text = summary(P.error_figure(frame, current=4))
    assert list(readings(text)) == ["4"]
    assert stated(text, "train error") == fmt(row["train_error"])
    assert stated(text, "test error") == fmt(row["test_error"])
    text = summary(P.kl_figure(frame, pool.n_voters_, current=2))
    assert list(readings(text)) == ["2"]
    assert stated(text, "KL(Q‖P)") == fmt(frame.iloc[1]["kl"])
    assert stated(text, "ln n (ceiling)") == fmt(math.log(pool.n_voters_))
    text = summary(P.series_figure(frame, {"mu1": "first moment", "mu2": "second moment"},
                                   title="Margin moments", y_title="moment", current=5))
    assert list(readings(text)) == ["5"]
    assert stated(text, "first moment") == fmt(frame.iloc[4]["mu1"])
    assert stated(text, "second moment") == fmt(frame.iloc[4]["mu2"])
    run, mincq = small
    text = summary(P.mincq_on_voters_figure(run.history, mincq, current=3))
    assert list(readings(text)) == ["3"]
    mine = mincq[mincq["iteration"] == 3].iloc[0]
    assert stated(text, "CB-Boost: empirical C-bound") == fmt(run.history[2].c_bound)
    assert stated(text, "MinCq(CB-Boost): optimal C-bound on the same voters") == fmt(
        mine["c_bound"])
    assert stated(text, "CB-Boost: train error") == fmt(run.history[2].train_error)
    assert stated(text, "MinCq(CB-Boost): train error") == fmt(mine["train_error"])


def test_each_algorithm_is_read_at_its_own_last_iteration(frame):
    short = frame.iloc[:4]
    text = summary(P.compare_figure({"CB-Boost": frame, "early stop": short}, "c_bound",
                                    title="C-bound", y_title="C-bound"))
    read = readings(text)
    assert set(read) == {str(len(frame)), "4"}, text
    assert stated(read[str(len(frame))], "CB-Boost") == fmt(frame.iloc[-1]["c_bound"])
    assert stated(read["4"], "early stop") == fmt(short.iloc[-1]["c_bound"])


def test_a_lockstep_run_is_read_at_its_last_step(data, pool):
    X, y, _, _ = data
    _, _, table = lockstep(pool.operator(X), y, 8, describe=pool.describe)
    text = summary(P.lockstep_figure(table))
    last = table.iloc[-1]
    assert list(readings(text)) == [str(int(last["iteration"]))], text
    assert stated(text, "exhaustive (CB-Boost)") == fmt(last["exhaustive_c_bound"])
    assert stated(text, "gradient (GB-CB-Boost)") == fmt(last["gradient_c_bound"])


# ---------------------------------------------------------------- bars, grids, boxes, lines


def pairs(text, name):
    """The "label: value" pairs listed for the bars ``name`` ("name: a: 1, b: 2" or "name by
    <axis>: a: 1, b: 2"), up to the next ";" or the end."""
    for v in variants(name):
        found = re.search(r"(?:^|\. |; )" + re.escape(v) + r"(?: by [^:;]*)?: (.*?)(?=; |\.$)",
                          text)
        if found:
            return dict(p.rsplit(": ", 1) for p in found.group(1).split(", "))
    raise AssertionError(f"no bars named {name!r} in {text!r}")


def test_bars_state_each_bar(frame):
    text = summary(P.alpha_figure(frame, current=3))
    assert pairs(text, "weight α") == {str(int(t)): fmt(a)
                                       for t, a in zip(frame["iteration"], frame["alpha"])}


def test_the_bound_panel_states_each_quantity_of_each_algorithm(comparison_run):
    panel = comparison_run.final_panel()
    text = summary(P.bound_panel_figure(panel))
    for quantity, rows in panel.groupby("quantity", sort=False):
        assert pairs(text, quantity) == {a: fmt(v) for a, v in zip(rows["algorithm"],
                                                                    rows["value"])}, quantity


def test_the_toy_bars_state_each_error_and_bound():
    toy = toy_summary(toy_wrong(toy_preset("different", m=10), m=10))
    text = summary(cbound.toy_bars_figure(toy))
    assert pairs(text, "voters' errors") == {f"voter {j + 1}": fmt(e)
                                             for j, e in enumerate(toy.voter_errors)}
    assert pairs(text, "majority vote's error") == {"vote": fmt(toy.majority_error)}
    assert pairs(text, "Gibbs risk r, disagreement d") == {"r": fmt(toy.gibbs_risk),
                                                           "d": fmt(toy.disagreement)}
    assert pairs(text, "bounds on the vote's error") == {"C": fmt(toy.c_bound),
                                                         "2r": fmt(toy.first_order)}


def test_the_class_votes_are_counted_per_choice():
    text = summary(classroom.votes_figure(CHOICE, ["alpha", "beta", "beta"], ["gamma"],
                                          answers=["beta"]))
    assert pairs(text, "first vote (3)") == {"alpha": "1", "✓ right: beta": "2", "gamma": "0"}
    assert pairs(text, "second vote (1)") == {"alpha": "0", "✓ right: beta": "0", "gamma": "1"}


def test_a_long_run_of_bars_is_summed_up_by_its_range(run, data):
    y = data[1]
    rec = run.history[-1]
    M = bounds.margins(run.F, y, rec.weights.sum())
    fig = P.margin_figure(M, rec.mu1, rec.mu2)
    counts = np.asarray(fig.data[0].y)
    text = summary(fig)
    assert f"{len(counts)} bars from {fmt(counts.min())} to {fmt(counts.max())}" in text
    # the vertical lines at the margin's moments: where they lie on the x axis
    for line, x in (("μ₁ (mean margin)", rec.mu1), ("√μ₂", math.sqrt(rec.mu2))):
        assert re.search(re.escape(line) + r" at [^;]*? " + re.escape(fmt(x)) + r"(?=[;.])",
                         text), (line, text)


def grid_said(text, what, x, y, z):
    """The grid ``what`` over the axes ``x`` and ``y`` is said with the least and greatest
    of ``z`` (its size in cells may be said between them)."""
    finite = z[np.isfinite(z)]
    pattern = (r"(?:^|\. |; )(?:" + "|".join(map(re.escape, variants(what))) + r") over "
               + "(?:" + "|".join(map(re.escape, variants(x))) + ") and (?:"
               + "|".join(map(re.escape, variants(y))) + r")[^;]*?\bfrom "
               + re.escape(fmt(finite.min())) + " to " + re.escape(fmt(finite.max())) + r"\b")
    return re.search(pattern, text)


def test_a_grid_states_its_least_and_greatest_value(data, vote_plane):
    X, y, _, _ = data
    xe, ye, Z = vote_plane
    fig = P.decision_figure(xe, ye, Z, X, y, feature_names=("a", "b"))
    text = summary(fig)
    assert grid_said(text, shown(fig.data[0].colorbar.title.text), "a", "b", Z), text
    for axes in ("risks", "moments"):
        grid = c_bound_grid(axes, 31)
        fig = cbound.c_bound_map_figure(grid)
        text = summary(fig)
        assert grid_said(text, shown(fig.data[0].colorbar.title.text), AXES[axes][0],
                         AXES[axes][1], grid.c_bound), text


def test_boxes_state_their_median():
    results = [{"test_error": v, "c_bound": 2 * v} for v in (0.1, 0.3, 0.2, 0.4)]
    text = summary(classroom.class_runs_figure(results))
    assert named(text, "test error: 4 values, median 0.250"), text
    assert named(text, "empirical C-bound: 4 values, median 0.500"), text


@pytest.mark.parametrize("feature", [0, 1])
def test_the_new_voter_is_said_where_it_lies(data, feature):
    """A stump on x0 is a vertical line, on x1 a horizontal one drawn left to right: either
    is said at its threshold on its own axis, not read as a curve at the plane's edge."""
    X, y, _, _ = data
    gx, gy = np.linspace(-2, 3, 21), np.linspace(-1, 2, 16)
    Z = np.tanh((gy[:-1, None] + gy[1:, None]) / 2 - 0.5 + 0 * gx[None, :-1])
    axis = "ab"[feature]
    fig = P.decision_figure(gx, gy, Z, X, y, feature_names=("a", "b"), stump={
        "feature": feature, "threshold": 0.25, "label": f"{axis} > 0.25"})
    text = summary(fig)
    assert f"new voter: {axis} > 0.25 at {axis} 0.250" in text, text
    assert readings(text) == {}, text     # no "at a 3: new voter ..."


# ---------------------------------------------------------------- no data yet


def test_a_figure_without_data_says_so(frame):
    empty = frame.iloc[:0]
    for fig, title in (
            (P.placeholder_figure("Test error", "no test examples"), "Test error"),
            (P.bounds_figure(empty), "Risk bounds and train error"),
            (P.bounds_figure(empty, current=1), "Risk bounds and train error"),
            (P.error_figure(empty, current=1, spec=True), "0-1 error of the majority vote"),
            (P.series_figure(frame, {"no_such_column": "nothing"}, title="Objective",
                             y_title="objective", current=2), "Objective"),
            (P.compare_figure({}, "c_bound", title="C-bound", y_title="C-bound"), "C-bound"),
            (classroom.class_runs_figure([]), "The class's runs: 0 samples, one per student"),
            (go.Figure(), "Chart"),
            (go.Figure(go.Scatter(x=[], y=[], name="empty")), "Chart")):
        assert summary(fig) == f"{title}. No data yet.", summary(fig)


# ---------------------------------------------------------------- markup and hostile text


def test_titles_with_markup_come_out_as_plain_text():
    cases = {
        "Risk <b>bounds</b><br><sup>a subtitle</sup>": "Risk bounds",
        "A &amp; B &lt;x&gt; &#8805; C": "A & B <x> ≥ C",
        "x<sup>2</sup> and x<sub>i</sub>, <i>italic</i> <em>em</em> <span style='color:red'>"
        "red</span><br>second line": "x2 and xi, italic em red",
        "Only line<br />next": "Only line",
    }
    for title, plain in cases.items():
        fig = go.Figure(go.Scatter(x=[1, 2], y=[0.25, 0.5], name="s<sub>1</sub>"),
                        layout=dict(title=title))
        text = summary(fig)
        assert text.startswith(plain + ". "), (title, text)
        assert stated(text, "s1") == "0.500"
        assert summary(fig, title="Given").startswith("Given. ")


def test_text_that_is_not_plotly_markup_is_kept_as_written():
    """Plotly draws "<" not followed by one of its tags as it is: "μ₂ < μ₁², i.e. d > 2r" is
    the legend of the C-bound map's shaded part, and the summary must say the same."""
    fig = go.Figure(go.Scatter(x=[1, 2], y=[0.1, 0.2], mode="lines",
                               name="C < 2r, i.e. d > r"), layout=dict(title="a < b and c > d"))
    text = summary(fig)
    assert text.startswith("a < b and c > d. "), text
    assert stated(text, "C < 2r, i.e. d > r") == "0.200", text


def test_a_hostile_name_stays_text(data, vote_plane):
    X, y, _, _ = data
    xe, ye, Z = vote_plane
    # cbviz's way: user text (a column name, a voter's label) reaches Plotly escaped
    fig = P.decision_figure(xe, ye, Z, X, y, feature_names=(HOSTILE, "b"),
                            stump={"feature": 0, "threshold": 0.25, "label": HOSTILE})
    text = summary(fig)
    assert f" over {HOSTILE} and b" in text, text
    assert f"new voter: {HOSTILE}" in text, text
    assert "<" not in text.replace(HOSTILE, "")   # nothing else became markup
    # a figure made elsewhere, the name raw: Plotly shows it as written (img is no tag of its)
    raw = go.Figure([go.Scatter(x=[1, 2, 3], y=[0.5, 0.4, 0.3], mode="lines", name=HOSTILE),
                     go.Bar(x=["<script>alert(1)</script>", "b"], y=[1, 2], name="bars")],
                    layout=dict(title=f"T {HOSTILE}"))
    text = summary(raw)
    assert text.startswith(f"T {HOSTILE}. "), text
    assert stated(text, HOSTILE) == "0.300"
    assert pairs(text, "bars") == {"<script>alert(1)</script>": "1", "b": "2"}


# ---------------------------------------------------------------- reads as sentences


def test_a_title_that_ends_in_a_question_mark_is_not_followed_by_a_full_stop(run, pool):
    text = summary(P.landscape_figure(run.history[4].candidates, pool.describe))
    assert text.startswith("Which voter next? ") and "?." not in text, text


def test_a_round_off_below_zero_is_not_minus_zero():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[0.5, -1e-17], mode="lines", name="decrease"))
    assert summary(fig).endswith("decrease 0.000."), summary(fig)


def test_a_value_missing_at_the_current_iteration_is_none(frame):
    gappy = frame.copy()
    gappy.loc[gappy["iteration"] == 3, "pac_bound"] = np.nan
    text = summary(P.bounds_figure(gappy, current=3))
    assert stated(text, PAC_BOUNDS["pac_bound"]) == "none"
    assert stated(text, "empirical C-bound") == fmt(gappy.iloc[2]["c_bound"])
    # a column of Nones (a run without test data) draws no test trace and names none
    no_test = frame.assign(test_error=pd.Series([None] * len(frame), dtype=object))
    assert not named(summary(P.error_figure(no_test, current=2)), "test error")
