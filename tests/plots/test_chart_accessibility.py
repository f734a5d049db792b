"""Every chart's marks and text as WCAG 2.1 AA asks (issue 30, items 1 and 3), checked on the
figure of every figure builder of cbviz.plots, built from small real runs (and, for the
curves over iterations, from a run of more than 60 iterations, where markers give way to
lines alone):

- no two series of a figure told apart by color alone (1.4.1): each legend entry has its own
  look without its color (dash, marker symbol, bar hatching); bars on categories of their own
  are told apart by their position and its tick label;
- every line, marker and bar at least 3:1 against the white plot (1.4.11), opacity included;
  a color scale's interior is exempt (its colorbar is its legend), and so are a legend's
  swatch of a scale's color, the fill under a line, a marker's outline;
- every text at least 4.5:1 against what is behind it (1.4.3): the template's font, the
  subtitles, annotations, a trace's text, the contour labels (against their outline), the
  hover labels;
- each colorbar inside its figure at every plot width from 480 to 1200 px, with a title that
  says what the color means.

The palette's own contrast ratios and its distances under simulated color-vision deficiencies
are in test_accessible_palette.py.
"""
from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pytest
from helpers import check_valid
from sklearn.datasets import make_moons

import cbviz.plots as P
from cbviz.algorithms import CBBoost, lockstep, pick_correlations
from cbviz.algorithms.base import Candidates
from cbviz.cbound_plane import c_bound_grid, c_bound_slice, trajectory
from cbviz.lessons import Question
from cbviz.plots import cbound, classroom, comparison, curves, landscapes, picks, regions
from cbviz.plots.style import (
    FULL_WIDTH,
    TEMPLATE,
    _channels,
    colorbar_room,
    contrast_ratio,
)
from cbviz.sample_size import bounds_vs_m, m_grid
from cbviz.toy_vote import toy_preset, toy_summary, toy_wrong
from cbviz.voters import StumpPool

MODULES = (cbound, classroom, comparison, curves, landscapes, picks, regions)
MARK, TEXT = 3.0, 4.5   # WCAG 2.1: non-text contrast (1.4.11), text contrast (1.4.3)
WIDTHS = (FULL_WIDTH, 640, 800, 1000, 1200)   # plot widths (px) a chart is drawn at
# width (px) each colorbar takes right of the plot (bar, labels, title), measured in Chromium
# on the figures' standalone HTML at plot widths 480 to 1200 (the same at each) in the widest
# font a browser may fall back to, DejaVu Sans (Liberation Sans: 62 and 69)
MEASURED = {"C-bound": 64.0, "normalized vote": 74.0}


# ---------------------------------------------------------------- every builder's figure


@pytest.fixture(scope="module")
def run():
    X, y = make_moons(80, noise=0.2, random_state=0)
    X_test, y_test = make_moons(60, noise=0.2, random_state=1)
    y, y_test = 2 * y - 1, 2 * y_test - 1
    pool = StumpPool(10).fit(X)
    cb = CBBoost(10, keep_candidates="picks").start(
        pool.operator(X), y, pool.operator(X_test), y_test, describe=pool.describe).run()
    return dict(X=X, y=y, X_test=X_test, y_test=y_test, pool=pool, run=cb, frame=cb.to_frame())


def longer(frame, n=80):
    """``frame``'s rows repeated to ``n`` iterations (numbered 1..n): a run long enough that
    the curves over iterations are lines without markers."""
    rows = frame.iloc[np.arange(n) % len(frame)].reset_index(drop=True)
    return rows.assign(iteration=np.arange(1, n + 1))


SERIES = {"c_bound": "empirical C-bound", "train_error": "train error", "test_error":
          "test error", "gibbs_risk": "Gibbs risk", "disagreement": "disagreement",
          "kl": "KL", "mu1": "μ₁", "mu2": "μ₂"}


def history_figures(frame, n_voters, tag=""):
    """The figures over iterations of ``frame``."""
    algorithms = {f"algorithm {i}": frame.assign(train_error=frame["train_error"] + 0.01 * i)
                  for i in range(11)}
    algorithms["MinCq"] = pd.DataFrame({"iteration": [1], "train_error": [0.2]})
    return {
        f"bounds_figure{tag}": P.bounds_figure(frame, current=3),
        f"error_figure{tag}": P.error_figure(frame, current=3),
        f"kl_figure{tag}": P.kl_figure(frame, n_voters, current=3),
        f"alpha_figure{tag}": P.alpha_figure(frame, current=3),
        f"series_figure{tag}": P.series_figure(frame, SERIES, title="s", y_title="v",
                                               current=3),
        f"mincq_on_voters_figure{tag}": P.mincq_on_voters_figure(frame, frame, current=3),
        f"compare_figure{tag}": P.compare_figure(algorithms, "train_error", title="t",
                                                 y_title="error"),
    }


def synthetic_candidates(n=300, e=7, g=11):
    rng = np.random.default_rng(0)
    gradient = rng.normal(size=n)
    valid = gradient > 0.5
    lowers = (gradient > 0.0) & ~valid
    decrease = np.where(valid, rng.uniform(0, 0.01, n), 0.0)
    gradient[g], decrease[e] = 10.0, 0.5
    valid[[e, g]] = True
    cands = Candidates(gradient=gradient, decrease=decrease, alpha=np.where(valid, 0.5, 0.0),
                       valid=valid)
    # what a run's candidates also say (CBBoost's): the voters outside the rule that lower it
    object.__setattr__(cands, "lowers", lowers)
    object.__setattr__(cands, "best_decrease", np.where(lowers, 0.002, 0.0))
    return cands


@pytest.fixture(scope="module")
def figures(run):
    """Every figure builder's figure (name -> figure), several variants for some."""
    X, y, X_test, y_test, pool, cb, frame = (run[k] for k in (
        "X", "y", "X_test", "y_test", "pool", "run", "frame"))
    figs = {**history_figures(frame, pool.n_voters_),
            **history_figures(longer(frame), pool.n_voters_, " (80 iterations)")}
    xe = np.linspace(X[:, 0].min() - 0.3, X[:, 0].max() + 0.3, 31)
    ye = np.linspace(X[:, 1].min() - 0.3, X[:, 1].max() + 0.3, 21)
    xx, yy = np.meshgrid((xe[:-1] + xe[1:]) / 2, (ye[:-1] + ye[1:]) / 2)
    Z = np.tanh(xx - yy)
    picks_ = [{"feature": 0, "threshold": 0.5, "label": "x0 > 0.5", "name": f"{rule}: {{label}}",
               "color": color} for rule, color in (("exhaustive pick", P.VERMILION),
                                                   ("gradient pick", P.ORANGE), ("third", P.BLUE))]
    _, _, table = lockstep(pool.operator(X), y, 8, describe=pool.describe)
    table = table.assign(exhaustive_all_c_bound=table["exhaustive_c_bound"] - 0.01,
                         gradient_all_c_bound=table["gradient_c_bound"] - 0.02)
    rec = cb.history[-1]
    margins = y * cb.F / rec.weights.sum()
    panel = pd.DataFrame([{"quantity": q, "algorithm": a, "value": v}
                          for q, v in (("empirical C-bound", 0.3), ("PAC-Bayes C-bound", 0.6),
                                       ("first-order bound", 0.7), ("PAC-Bound 1", 0.65),
                                       ("tandem bound", 0.8), ("train error", 0.1),
                                       ("test error", 0.15))
                          for a in ("CB-Boost", "AdaBoost")])
    trajectories = {f"run {i}": trajectory(cb.history) for i in range(5)}
    toy = toy_summary(toy_wrong(toy_preset("different", m=10), m=10))
    results = [{"test_error": 0.1 + 0.01 * i, "c_bound": 0.3, "pac_bound": 0.5}
               for i in range(8)]
    figs.update({
        "placeholder_figure": P.placeholder_figure("Test error", "no test examples"),
        "bound_panel_figure": P.bound_panel_figure(panel),
        "margin_figure": P.margin_figure(margins, rec.mu1, rec.mu2),
        "decision_figure": P.decision_figure(xe, ye, Z, X, y, X_test, y_test, stump=picks_),
        "decision_figure (no scale, one voter)": P.decision_figure(
            xe, ye, Z, X, y, X_test, y_test, show_scale=False,
            stump={"feature": 1, "threshold": 0.2, "label": "x1 > 0.2"}),
        "projection_figure": P.projection_figure(X, y, X_test, y_test),
        "direction_curve_figure": P.direction_curve_figure(cb.direction_curve(4)),
        "landscape_figure": P.landscape_figure(synthetic_candidates(), lambda k: f"h{k}"),
        "landscape_figure (one pick)": P.landscape_figure(cb.candidates(4), pool.describe),
        "lockstep_figure": P.lockstep_figure(table),
        "same_vote_picks_figure": picks.same_vote_picks_figure(
            pick_correlations(cb), "differ", c_bound=frame["c_bound"], labels=pool.describe),
        "same_vote_picks_figure (correlation)": picks.same_vote_picks_figure(
            pick_correlations(cb), "correlation", labels=pool.describe),
        "c_bound_map_figure": cbound.c_bound_map_figure(
            c_bound_grid("risks", 41), point=(0.2, 0.3), trajectories=trajectories),
        "c_bound_map_figure (moments)": cbound.c_bound_map_figure(
            c_bound_grid("moments", 41), point=(0.5, 0.4)),
        "c_bound_slice_figure": cbound.c_bound_slice_figure(
            c_bound_slice("risks", 0.3), "risks", 0.3, y=0.35),
        "toy_grid_figure": cbound.toy_grid_figure(toy),
        "toy_bars_figure": cbound.toy_bars_figure(toy),
        "pac_bounds_figure": cbound.pac_bounds_figure(
            bounds_vs_m(0.3, 0.35, 2.0, 0.05, m_grid(50, 100_000, n=30)), kl=2.0, delta=0.05,
            chosen="pac_bound", target=0.6, needed=5000, limit=0.45, m_run=200),
        "votes_figure": classroom.votes_figure(
            Question("Which?", choices=("alpha", "beta")), ["alpha", "beta"], ["beta"],
            answers=["beta"]),
        "votes_figure (numbers)": classroom.votes_figure(
            Question("How much?", low=0.0, high=1.0), [0.1, 0.5], [0.4], answers=[0.3]),
        "class_runs_figure": classroom.class_runs_figure(results, results[0]),
    })
    return figs


def builders():
    """The public figure builders of cbviz.plots's modules."""
    return sorted(name for module in MODULES for name, f in vars(module).items()
                  if name.endswith("_figure") and not name.startswith("_")
                  and inspect.isfunction(f) and f.__module__ == module.__name__)


def test_every_builder_is_checked(figures):
    assert {name.split(" ")[0] for name in figures} == set(builders())


# ---------------------------------------------------------------- looks and colors


def flat(value):
    """A property that is one value or one per point, as a tuple of its distinct values."""
    if value is None:
        return (None,)
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(dict.fromkeys(np.asarray(value, dtype=object).ravel().tolist()))
    return (value,)


def legend_entries(fig):
    """The traces a reader finds in the legend."""
    if fig.layout.showlegend is False:
        return []
    return [t for t in fig.data if t.showlegend is not False and t.type not in ("heatmap",
                                                                                   "contour")]


def look(t):
    """What tells trace ``t`` apart from the others without its color: its kind, the dash of
    its line, its marker symbol, its hatching, the shape of its fill."""
    if t.type == "bar":
        shape = t.marker.pattern.shape if t.marker.pattern else None
        return ("bar", flat(shape or ""))
    if t.type == "box":
        return ("box", t.boxpoints)
    mode = t.mode or "lines"
    parts = [t.type.replace("scattergl", "scatter")]
    if "lines" in mode:
        parts.append(("line", t.line.dash or "solid"))
    if "markers" in mode:
        parts.append(("marker", flat(t.marker.symbol or "circle")))
    if "text" in mode:
        parts.append("text")
    if t.fill not in (None, "none"):
        parts.append(("fill", t.fillpattern.shape if t.fillpattern else None))
    return tuple(parts)


def categories(t):
    """The categories a bar trace stands on (None: a numeric axis)."""
    along = t.y if t.orientation == "h" else t.x
    values = list(np.asarray(along, dtype=object).ravel()) if along is not None else []
    return None if any(isinstance(v, (int, float, np.number)) for v in values) else set(values)


@pytest.mark.parametrize("name", [
    *[b for b in builders()], "bounds_figure (80 iterations)", "error_figure (80 iterations)",
    "series_figure (80 iterations)", "mincq_on_voters_figure (80 iterations)",
    "compare_figure (80 iterations)", "decision_figure (no scale, one voter)",
    "landscape_figure (one pick)", "same_vote_picks_figure (correlation)",
    "c_bound_map_figure (moments)", "votes_figure (numbers)"])
def test_no_two_series_differ_by_color_alone(figures, name):
    """Within each figure, two legend entries never share their look without color (dash,
    marker symbol, hatching, mode); bars on categories of their own are named by their
    tick labels."""
    fig = figures[name]
    entries = legend_entries(fig)
    for i, a in enumerate(entries):
        for b in entries[i + 1:]:
            if a.type == b.type == "bar" and categories(a) and categories(b) and not (
                    categories(a) & categories(b)):
                continue
            assert look(a) != look(b), (f"{a.name!r} and {b.name!r} differ by color alone: "
                                        f"{look(a)}")
    check_valid(fig)


def on_white(color, opacity=1.0):
    """``color`` (with its own alpha and ``opacity``) painted on white, as "#rrggbb"."""
    r, g, b = _channels(color)
    alpha = opacity
    if color.strip().lower().startswith("rgba"):
        alpha *= float(color[color.index("(") + 1:-1].split(",")[3])
    return "#%02X%02X%02X" % tuple(round(alpha * c + (1 - alpha) * 255) for c in (r, g, b))


def scale_colors(fig):
    """The colors of every colorscale in ``fig``."""
    return {c for t in fig.data if "colorscale" in t and t.colorscale
            for _, c in t.colorscale}


def mark_colors(fig):
    """``(what, color on white)`` of every line, marker and bar of ``fig`` and of its shapes'
    lines; a legend swatch (a trace without data) of a color scale's color is left out, as
    the scale is."""
    scales = scale_colors(fig)
    out = []
    for t in fig.data:
        if t.type in ("heatmap", "contour"):
            continue
        opacity = 1.0 if t.opacity is None else t.opacity
        swatch = t.x is not None and all(v is None for v in np.asarray(t.x, dtype=object).ravel())
        if t.type in ("bar", "box"):
            colors = flat(t.marker.color)
            if t.type == "box":
                colors += flat(t.line.color)
            for c in colors:
                out.append((f"{t.name}: bar", on_white(c, opacity * (t.marker.opacity or 1))))
            continue
        mode = t.mode or "lines"
        if "lines" in mode and (t.line.width is None or t.line.width > 0):
            out.append((f"{t.name}: line", on_white(t.line.color, opacity)))
        if "markers" in mode:
            for c in flat(t.marker.color or t.line.color):   # markers take the line's
                if swatch and c in scales:
                    continue
                out.append((f"{t.name}: marker",
                            on_white(c, opacity * (t.marker.opacity or 1))))
    for shape in fig.layout.shapes:
        if shape.line and shape.line.color and (shape.line.width or 1) > 0:
            out.append(("a shape's line", on_white(shape.line.color, shape.opacity or 1)))
    return out


@pytest.mark.parametrize("name", builders())
def test_every_mark_is_3_to_1_against_the_white_plot(figures, name):
    low = [(what, c, round(contrast_ratio(c), 2)) for what, c in mark_colors(figures[name])
           if contrast_ratio(c) < MARK]
    assert not low, low


def styled_colors(text):
    """The colors an HTML title sets (``style='...color:#444'``)."""
    return re.findall(r"color:\s*(#[0-9A-Fa-f]{3,6})", str(text or ""))


def backgrounds(fig):
    """What text may sit on: white, and white under each translucent shape's fill."""
    out = ["#FFFFFF"]
    for shape in fig.layout.shapes:
        if shape.fillcolor:
            out.append(on_white(shape.fillcolor, 1.0 if shape.opacity is None else shape.opacity))
    return out


def scale_at(scale, z):
    """The color a stepped colorscale ``[[position, color], ...]`` gives to ``z`` in [0, 1]."""
    return [c for p, c in scale if p <= z][-1]


def text_colors(fig):
    """``(what, text color, background)`` of every text of ``fig`` that sets its color."""
    base = fig.layout.font.color or TEMPLATE["layout"]["font"]["color"]
    grounds = backgrounds(fig)
    out = [("the figure's font", base, "#FFFFFF")]
    out += [("the title's markup", c, "#FFFFFF") for c in styled_colors(fig.layout.title.text)]
    for note in fig.layout.annotations:
        color = note.font.color if note.font and note.font.color else base
        out += [(f"annotation {note.text!r}", color, g) for g in grounds]
        out += [(f"annotation {note.text!r} markup", c, "#FFFFFF")
                for c in styled_colors(note.text)]
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        for font in (axis.tickfont, axis.title.font):
            if font and font.color:
                out.append(("an axis", font.color, "#FFFFFF"))
    if fig.layout.legend.font and fig.layout.legend.font.color:
        out.append(("the legend", fig.layout.legend.font.color, "#FFFFFF"))
    hover = fig.layout.hoverlabel
    assert hover.bgcolor, "a hover label takes its trace's color unless the figure sets one"
    out.append(("a hover label", hover.font.color or base, hover.bgcolor))
    for t in fig.data:
        if "textfont" in t and t.textfont and t.textfont.color:
            if t.type == "heatmap":   # text on the cells that have some
                z = np.asarray(t.z, dtype=float)
                lo, hi = t.zmin, t.zmax
                for v in np.unique(z[np.asarray(t.text, dtype=object) != ""]):
                    out.append((f"{t.name}: text on its cells", t.textfont.color,
                                scale_at(t.colorscale, (v - lo) / (hi - lo))))
            else:
                out.append((f"{t.name}: text", t.textfont.color, "#FFFFFF"))
        if t.type == "contour" and t.contours.showlabels:
            font = t.contours.labelfont
            halo = re.findall(r"(#[0-9A-Fa-f]{6})", font.shadow or "")
            assert halo, "contour labels over a color scale need an outline"
            out += [("contour labels against their outline", font.color, h) for h in halo]
        if "colorbar" in t and t.colorbar:
            for font in (t.colorbar.tickfont, t.colorbar.title.font):
                if font and font.color:
                    out.append(("a colorbar", font.color, "#FFFFFF"))
    return out


@pytest.mark.parametrize("name", builders())
def test_every_text_is_4_5_to_1_against_its_background(figures, name):
    low = [(what, c, g, round(contrast_ratio(c, g), 2)) for what, c, g in
           text_colors(figures[name]) if contrast_ratio(c, g) < TEXT]
    assert not low, low


def test_every_text_follows_the_dark_font_color(figures):
    """The template's font is dark; no figure sets the axes', legend's or colorbars' fonts to
    a lighter color, so they are the font's (or the page's, which the app's chart sets as
    layout.font.color)."""
    assert contrast_ratio(TEMPLATE["layout"]["font"]["color"]) >= TEXT
    for name, fig in figures.items():
        for what, color, _ in text_colors(fig):
            if what in ("an axis", "the legend", "a colorbar"):
                assert contrast_ratio(color) >= TEXT, (name, what, color)


# ---------------------------------------------------------------- color scales


def colorbars(fig):
    return [t.colorbar for t in fig.data if "colorbar" in t and t.showscale is not False]


def test_every_color_scale_has_its_legend_inside_the_chart_at_every_width(figures):
    """The C-bound map and the input plane (its color scale shown): one colorbar each, whose
    title says what the color means, that starts at the plot's right edge and ends inside the
    figure's right margin at every plot width from 480 to 1200 px (pad, bar, tick labels and
    the title beside it, measured in pixels: the same at any width), within the plot's
    height; where the plane hides its scale, its subtitle says the colors in words."""
    shown = {name: fig for name, fig in figures.items() if any(
        t.type in ("heatmap", "contour") and t.showscale is not False and len(scale_colors(fig))
        > 2 for t in fig.data)}
    assert set(shown) == {"decision_figure", "c_bound_map_figure",
                          "c_bound_map_figure (moments)"}
    for name, fig in shown.items():
        (bar,) = colorbars(fig)
        assert bar.title.text == {"decision_figure": "normalized vote"}.get(name, "C-bound")
        assert bar.title.side == "right", name
        assert (bar.x, bar.xref, bar.xanchor) == (1.0, "paper", "left")
        need = colorbar_room(bar.to_plotly_json())
        assert need >= MEASURED[bar.title.text] + 4, (name, need)
        margin = fig.layout.margin
        for width in WIDTHS:
            figure_width = margin.l + width + margin.r
            right_edge = margin.l + width + need
            assert right_edge <= figure_width, (name, width, need, margin.r)
            assert margin.r <= 0.25 * width   # the plot keeps most of the width
        plot_height = fig.layout.height - margin.t - margin.b
        assert bar.len * plot_height >= 160, name   # room for the title along the bar
    hidden = figures["decision_figure (no scale, one voter)"]
    assert not colorbars(hidden)
    assert "from −1 (deep blue) through 0 (white) to +1 (deep red)" in hidden.layout.title.text


def test_a_plane_without_its_colorbar_says_its_colors_in_words(run):
    """The plane drawn without its colorbar (the step page, Compare's small planes, each with
    its own subtitle) keeps the color's legend in its subtitle."""
    X, y = run["X"], run["y"]
    xe, ye = np.linspace(-2, 3, 11), np.linspace(-1, 2, 7)
    Z = np.tanh(np.linspace(-1, 1, 60)).reshape(6, 10)
    fig = P.decision_figure(xe, ye, Z, X, y, show_scale=False, subtitle="iteration 4")
    assert "iteration 4<br>the vote: red +1, white 0, blue −1" in fig.layout.title.text
    shown = P.decision_figure(xe, ye, Z, X, y, subtitle="iteration 4")
    assert "red +1" not in shown.layout.title.text and colorbars(shown)
