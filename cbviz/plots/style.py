"""What every figure shares: colors, axis names, sizes, colorbars, number format (the shared
layout and traces are in ``_figures``, the helpers that read a history in ``_values``)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

# Colors (Okabe-Ito palette: distinguishable with the common color-vision deficiencies).
BLUE, ORANGE, GREEN, VERMILION = "#0072B2", "#E69F00", "#009E73", "#D55E00"
PURPLE, SKY, YELLOW, GREY, BLACK = "#CC79A7", "#56B4E9", "#F0E442", "#7F7F7F", "#222222"
POS, NEG = VERMILION, BLUE  # label +1 / -1, matching the ends of the vote colorscale


def named_scale(name):
    """The stops ``[[position, color], ...]`` of Plotly's colorscale ``name``, as Plotly's
    checks expand it: plotly.js knows neither the Python names' ``_r`` (reversed) suffix nor
    always the same stops, and the figures are built without those checks."""
    return [list(stop) for stop in go.Heatmap(colorscale=name).colorscale]


VOTE_SCALE = named_scale("RdBu_r")  # -1 blue, 0 white, +1 red
VIRIDIS = named_scale("Viridis")

ITERATION_AXIS = "iteration (step of the algorithm)"  # KLBoost: a pass; CB-Boost: a voter
RISK_AXIS = "0-1 error (fraction of examples)"
HEIGHT = 380
# plot width (px) of a full-width chart at the narrowest window the app supports (1024 px with
# the sidebar open): legend rows and subtitle lines are laid out for it, so nothing overlaps
# there (a wider window only leaves room to spare under the legend)
FULL_WIDTH = 480
MARGIN_RIGHT = 18  # px right of the plot when no colorbar sits there
SUBTITLE_STYLE = "font-size:12px;color:#444"

# The trace types cbviz draws, and the parts of a layout its figures never use.
TRACE_TYPES = ("bar", "box", "contour", "heatmap", "scatter", "scattergl")
_UNUSED_LAYOUT = ("geo", "polar", "scene", "ternary")


def _template(name="plotly_white"):
    """Plotly's template ``name`` (a dict) cut to what cbviz's figures can show: the
    defaults of :data:`TRACE_TYPES` and the layout without maps, polar, ternary and 3-D
    axes.  Every value kept is Plotly's, so a figure looks the same; it is 2.9 kB of JSON
    instead of 7.2 kB, which every chart carries and every figure build copies."""
    full = pio.templates[name].to_plotly_json()
    return {"data": {k: v for k, v in full["data"].items() if k in TRACE_TYPES},
            "layout": {k: v for k, v in full["layout"].items() if k not in _UNUSED_LAYOUT}}


TEMPLATE = _template()


def history_frame(history):
    """A run's history as the DataFrame the figures read.

    ``history`` is what a user holds: ``run.to_frame()`` (returned as is), ``run.history`` or an
    estimator's ``history_`` (lists of records, turned into one row per record), or None.

    Examples
    --------
    >>> from cbviz.data import make_toy
    >>> from cbviz.estimators import CBBoostClassifier
    >>> ds = make_toy("moons", n_samples=200, seed=0)
    >>> clf = CBBoostClassifier(max_iter=10).fit(ds.X, ds.y)
    >>> frame = history_frame(clf.history_)
    >>> len(frame) == len(clf.history_) and "c_bound" in frame
    True
    """
    if history is None or isinstance(history, pd.DataFrame):
        return history
    rows = list(history)
    if rows and hasattr(rows[0], "as_row"):
        return pd.DataFrame([r.as_row() for r in rows])
    return pd.DataFrame(rows)


def fixed(x, digits=3):
    """``x`` with ``digits`` decimals, for figures and pages: a value that rounds to zero
    prints as ``0.000``, never ``-0.000`` (a round-off below zero, a -0.0).

    Examples
    --------
    >>> fixed(-1e-17), fixed(-0.0, 2), fixed(0.4126), fixed(-0.25, 1)
    ('0.000', '0.00', '0.413', '-0.2')
    """
    return f"{round(float(x), digits) + 0.0:.{digits}f}"


def colorbar(title=None, *, side="right", **extra):
    """A vertical colorbar that starts at the plot's right edge (``x = 1`` in paper units) and
    extends a fixed number of pixels into the right margin, so it stays inside the figure at
    any width once that margin is :func:`colorbar_room` wide (:func:`._figures.styled` makes
    it so)."""
    bar = dict(x=1.0, xref="paper", xanchor="left", xpad=6, thickness=12, len=0.8, **extra)
    if title:
        bar["title"] = dict(text=title, side=side)
    return bar


def colorbar_room(bar):
    """Right margin (px) a :func:`colorbar` needs: its pad, bar, tick labels (about 7 px a
    character, at least 4 characters: "−0.5") and a title on its right side."""
    labels = [str(t) for t in bar.get("ticktext") or ()] or ["−0.5"]
    title = bar.get("title") or {}
    side = 22 if title.get("text") and title.get("side", "top") == "right" else 0
    return int(bar.get("xpad", 10) + bar.get("thickness", 30) + 6
               + 7 * max(4, *map(len, labels)) + side)
