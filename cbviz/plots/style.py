"""What every figure shares: colors, axis names, sizes, colorbars, number format (the shared
layout and traces are in ``_figures``, the helpers that read a history in ``_values``)."""
from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

# Colors: the Okabe-Ito palette (distinguishable with the common color-vision deficiencies),
# every one at least 3:1 against the white plot (WCAG 2.1, 1.4.11), so a line, marker or bar
# in it stands out from the background.  Okabe-Ito's orange, sky blue and yellow are lighter
# than that (2.25, 2.31 and 1.32:1): they are darker variants of the same hues here (CIELAB
# hue within 3 degrees of Okabe-Ito's).  Vermilion is darkened too, to 5.6:1: a 3:1
# orange and the original vermilion look alike under deuteranopia (CIEDE2000 distance 3 in
# Machado et al.'s 2009 simulation); the darker one keeps them 14 apart, and it can be text
# (4.5:1).  ``contrast_ratio`` measures them; tests/plots/test_accessible_palette.py holds
# the ratios and the simulated distances.
OKABE_ITO = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermilion": "#D55E00",
             "purple": "#CC79A7", "sky": "#56B4E9", "yellow": "#F0E442"}
BLUE, ORANGE, GREEN, VERMILION = "#0072B2", "#C08400", "#009E73", "#AC4A00"
PURPLE, SKY, YELLOW, GREY, BLACK = "#CC79A7", "#4797C5", "#9C9000", "#7F7F7F", "#222222"
POS, NEG = VERMILION, BLUE  # label +1 / -1, matching the ends of the vote colorscale
# Text: every chart text at least 4.5:1 on white (WCAG 2.1, 1.4.3): titles, axes, ticks,
# legends, colorbars and annotations in TEXT (15.9:1, the template's font color), subtitles
# and quiet notes in SUBTITLE_COLOR (9.7:1).  GREY (4.0:1) is for marks only.
TEXT, SUBTITLE_COLOR = "#222222", "#444444"

# Line dashes and marker symbols, in the order figures give them to their series: two series
# of a figure never differ by color alone (WCAG 2.1, 1.4.1).  Plotly's six named dashes and
# two more (dash-dot-dot, sparse dots), as pixel lengths.
DASH_DOT_DOT, SPARSE_DOT = "9px,3px,2px,3px,2px,3px", "2px,5px"
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot", DASH_DOT_DOT, SPARSE_DOT)
CURRENT_DASH = "dot"   # the vertical line at the iteration shown (``_figures.iteration_marker``)
# a figure's series beside that line: every dash but its own
SERIES_DASHES = tuple(d for d in DASHES if d != CURRENT_DASH)
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "cross",
           "pentagon", "hexagon", "star-triangle-up", "hourglass", "bowtie")
# The four PAC-Bayes bounds (cbviz.bounds.PAC_BOUNDS), in every figure that draws them:
# color, dash and marker symbol (the empirical C-bound beside them is solid with circles).
BOUND_LOOK = {"pac_bound": (VERMILION, "longdashdot", "square"),
              "first_order_bound": (ORANGE, "dashdot", "diamond"),
              "pac_bound_1": (GREEN, DASH_DOT_DOT, "triangle-up"),
              "tandem_bound": (PURPLE, "longdash", "x")}


def bound_look(key, i=0):
    """``(color, dash, symbol)`` of the PAC-Bayes bound ``key`` (a new bound: the i-th look
    after the four)."""
    if key in BOUND_LOOK:
        return BOUND_LOOK[key]
    return GREY, DASHES[(len(BOUND_LOOK) + i) % len(DASHES)], SYMBOLS[(5 + i) % len(SYMBOLS)]


def _channels(color):
    """(r, g, b) in 0-255 of "#rrggbb", "#rgb", "rgb(r, g, b)" or "rgba(r, g, b, a)" (alpha
    ignored), or of "white" / "black"."""
    color = {"white": "#FFFFFF", "black": "#000000"}.get(color.strip().lower(), color.strip())
    if color.startswith("#"):
        digits = color[1:] if len(color) == 7 else "".join(c * 2 for c in color[1:4])
        return tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))
    return tuple(float(v) for v in color[color.index("(") + 1:-1].split(",")[:3])


def relative_luminance(color):
    """WCAG 2.1 relative luminance of ``color``: 0.2126 R + 0.7152 G + 0.0722 B of the
    linearized sRGB channels.

    Examples
    --------
    >>> relative_luminance("#FFFFFF"), relative_luminance("#000000")
    (1.0, 0.0)
    """
    def linear(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(linear, _channels(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(color, background="#FFFFFF"):
    """WCAG 2.1 contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` of two colors (L1 the lighter).

    Examples
    --------
    >>> round(contrast_ratio("#000000"), 1), round(contrast_ratio(OKABE_ITO["yellow"]), 2)
    (21.0, 1.32)
    """
    a, b = sorted((relative_luminance(color), relative_luminance(background)))
    return (b + 0.05) / (a + 0.05)


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
SUBTITLE_STYLE = f"font-size:12px;color:{SUBTITLE_COLOR}"

# The trace types cbviz draws, and the parts of a layout its figures never use.
TRACE_TYPES = ("bar", "box", "contour", "heatmap", "scatter", "scattergl")
_UNUSED_LAYOUT = ("geo", "polar", "scene", "ternary")


def _template(name="plotly_white"):
    """Plotly's template ``name`` (a dict) cut to what cbviz's figures can show: the
    defaults of :data:`TRACE_TYPES` and the layout without maps, polar, ternary and 3-D
    axes.  Every value kept is Plotly's but the font color, :data:`TEXT` (plotly_white's
    is #2a3f5f); it is 2.9 kB of JSON instead of 7.2 kB, which every chart carries and every
    figure build copies.  A page that draws the chart may set ``layout.font.color`` (the app's
    chart: its own text color), which every text without a color of its own follows."""
    full = pio.templates[name].to_plotly_json()
    layout = {k: v for k, v in full["layout"].items() if k not in _UNUSED_LAYOUT}
    layout["font"] = {**layout.get("font", {}), "color": TEXT}
    return {"data": {k: v for k, v in full["data"].items() if k in TRACE_TYPES},
            "layout": layout}


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


# widths (em) of characters in a wide sans-serif (DejaVu Sans, Verdana), the widest a reader's
# browser may put in place of the figure's font: digits, the minus sign, narrow marks, letters
_EM = {**dict.fromkeys("0123456789+-", 0.64), "−": 0.84, ".": 0.32, ",": 0.32, " ": 0.32}


def text_width(text, size=12):
    """Width (px) of ``text`` at ``size`` px in a wide sans-serif (an upper estimate).

    Examples
    --------
    >>> round(text_width("−0.5"), 1), round(text_width("0.8"), 1)
    (29.3, 19.2)
    """
    return size * sum(_EM.get(c, 0.62) for c in str(text))


def colorbar_room(bar, font_size=12):
    """Right margin (px) a :func:`colorbar` needs, at any plot width and in any browser font:
    its pad and bar, the gap to its tick labels, the longest label (its ``ticktext``, else its
    ``tickvals`` as Plotly prints them, else "−0.5") in a wide sans-serif
    (:func:`text_width`), a title on its right side (one line of Plotly's colorbar title
    font, 1.2 times the tick font) and 6 px to spare.

    Measured in Chromium at plot widths from 480 to 1200 px: the C-bound map's colorbar takes
    62 px (Liberation Sans) to 64 px (DejaVu Sans) of its 80, the input plane's 69 to 74 of
    its 80."""
    if bar.get("ticktext"):
        labels = [str(t) for t in bar["ticktext"]]
    elif bar.get("tickvals") is not None:
        labels = [f"{v:g}".replace("-", "−") for v in bar["tickvals"]]
    else:
        labels = ["−0.5"]
    title = bar.get("title") or {}
    side = (round(1.2 * 1.2 * font_size) + 5
            if title.get("text") and title.get("side", "top") == "right" else 0)
    label = max(text_width(t, font_size) for t in labels)
    return math.ceil(bar.get("xpad", 10) + bar.get("thickness", 30) + 4 + label + side + 6)
