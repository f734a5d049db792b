"""What every figure shares: colors, axis names, layout, title and legend helpers."""
from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

# Colors (Okabe-Ito palette: distinguishable with the common color-vision deficiencies).
BLUE, ORANGE, GREEN, VERMILION = "#0072B2", "#E69F00", "#009E73", "#D55E00"
PURPLE, SKY, YELLOW, GREY, BLACK = "#CC79A7", "#56B4E9", "#F0E442", "#7F7F7F", "#222222"
POS, NEG = VERMILION, BLUE  # label +1 / -1, matching the ends of the vote colorscale
VOTE_SCALE = "RdBu_r"  # -1 blue, 0 white, +1 red

ITERATION_AXIS = "iteration (step of the algorithm)"  # KLBoost: a pass; CB-Boost: a voter
RISK_AXIS = "0-1 error (fraction of examples)"
HEIGHT = 380
# plot width (px) of a full-width chart at the narrowest window the app supports (1024 px with
# the sidebar open): legend rows and subtitle lines are laid out for it, so nothing overlaps
# there (a wider window only leaves room to spare under the legend)
FULL_WIDTH = 480
MARGIN_RIGHT = 18  # px right of the plot when no colorbar sits there


# ---------------------------------------------------------------- shared helpers

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


def _column(frame, name, n=None):
    """Column ``name`` as floats (None -> NaN); all-NaN when the column is missing."""
    n = len(frame) if n is None else n
    if frame is None or name not in frame:
        return np.full(n, np.nan)
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)


def _iterations(frame):
    if frame is not None and "iteration" in frame:
        return pd.to_numeric(frame["iteration"], errors="coerce").to_numpy(dtype=float)
    return np.arange(1, 0 if frame is None else len(frame) + 1, dtype=float)


def _labeler(labels):
    """A function ``k -> description`` from a callable, a sequence or None."""
    if labels is None:
        return lambda k: f"voter {int(k)}"
    if callable(labels):
        return lambda k: str(labels(int(k)))
    return lambda k: str(labels[int(k)])


def _labels_of(labels, idx):
    """Descriptions of the voters ``idx`` (vectorized when ``labels`` is a sequence)."""
    idx = np.asarray(idx, dtype=int)
    if labels is not None and not callable(labels):
        arr = labels if isinstance(labels, np.ndarray) else np.asarray(labels, dtype=object)
        return np.asarray(arr[idx], dtype=object).astype(str)
    name = _labeler(labels)
    return np.array([name(k) for k in idx], dtype=object)


def _safe(text):
    """User text (a column or file name, a voter label) shown literally by Plotly: no HTML
    tags, no entity, no ``%{...}`` that a hover template would fill in, and no ``$...$``
    that Plotly would typeset as LaTeX (a zero-width space goes in front)."""
    text = html.escape(str(text), quote=False).replace("%{", "% {")
    return "\u200b" + text if text.startswith("$") and text.endswith("$") else text


def _safe_all(texts):
    """:func:`_safe` of every element, as an object array (for ``customdata``)."""
    return np.array([_safe(t) for t in texts], dtype=object)


def _text(value, fallback):
    """A label for a figure, :func:`_safe`; ``fallback`` when missing."""
    return _safe(fallback if value is None or (isinstance(value, float) and np.isnan(value))
                 else value)


def _g(x):
    """A number with 4 significant digits for titles (dash when missing; zero unsigned)."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x + 0.0:.4g}"


def fixed(x, digits=3):
    """``x`` with ``digits`` decimals, for figures and pages: a value that rounds to zero
    prints as ``0.000``, never ``-0.000`` (a round-off below zero, a -0.0).

    Examples
    --------
    >>> fixed(-1e-17), fixed(-0.0, 2), fixed(0.4126), fixed(-0.25, 1)
    ('0.000', '0.00', '0.413', '-0.2')
    """
    return f"{round(float(x), digits) + 0.0:.{digits}f}"


_TEMPLATE = pio.templates["plotly_white"]


def colorbar(title=None, *, side="right", **extra):
    """A vertical colorbar that starts at the plot's right edge (``x = 1`` in paper units) and
    extends a fixed number of pixels into the right margin, so it stays inside the figure at
    any width once that margin is :func:`colorbar_room` wide (:func:`_style` makes it so)."""
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


def _shown_colorbars(fig):
    """The colorbars of ``fig`` Plotly draws (of traces that do not hide their scale)."""
    return [t.colorbar.to_plotly_json() for t in fig.data
            if "colorbar" in t and getattr(t, "showscale", None) is not False]


def _figure(*traces):
    """A new figure that skips Plotly's re-validation of every update.

    Each trace object is validated when it is built (``go.Scatter(...)``); the figure-level
    checks repeat that work and cost about 3/4 of a figure's build time, which a Step pays for
    every chart on screen.  The tests serialize every figure, so a wrong property still fails.
    """
    fig = go.Figure(_validate=False)
    for trace in traces:
        fig.add_trace(trace)
    return fig


def _style(fig, *, title, x_title, y_title, uirevision, height=HEIGHT, hovermode="closest",
           legend_width=400, xaxis=None, yaxis=None, **layout):
    """The figure with the layout every figure shares; legend shown when more than one trace
    has one.  ``xaxis``, ``yaxis`` and ``layout`` add to (or override) that layout.

    Returns a new figure (the traces of ``fig`` and its layout so far, with this layout
    merged in), made in one go: Plotly's ``update_layout`` walks every key it is given and
    costs about 10 times more, on every chart of every Step.  The margins are set here
    (title lines, legend rows) and not grown by Plotly (``automargin``): measuring and growing
    them costs the browser a second layout pass on every redraw.  The right margin holds the
    figure's colorbar, if it shows one (:func:`colorbar`).
    """
    shown = [t for t in fig.data if t.showlegend is not False]
    multi = len(shown) > 1
    legend_room = _legend_rows(shown, legend_width) * 21 if multi else 0
    right = max([MARGIN_RIGHT, *map(colorbar_room, _shown_colorbars(fig))])
    title, title_lines = _readable_title(title, legend_width)
    x = {"title": {"text": x_title}, "automargin": False}
    if x_title == ITERATION_AXIS:  # whole iterations only: no 1.5 ticks on short runs
        last = max((np.nanmax(np.asarray(t.x, dtype=float)) for t in fig.data
                    if t.x is not None and len(t.x)), default=1.0)
        x.update(tickformat="d", dtick=1 if last <= 12 else None)
    shared = dict(
        template=_TEMPLATE,
        title=dict(text=title, x=0.0, xref="paper", xanchor="left",
                   y=1.0, yref="container", yanchor="top", pad=dict(t=12),
                   font=dict(size=15)),
        height=height + legend_room,
        uirevision=uirevision,
        hovermode=hovermode,
        showlegend=multi,
        legend=dict(orientation="h", x=0.0, xanchor="left", y=0.0, yref="container",
                    yanchor="bottom", font=dict(size=11), itemsizing="constant"),
        margin=dict(l=64, r=right, t=50 + 18 * title_lines, b=60 + legend_room, autoexpand=False),
        font=dict(size=12),
        xaxis={**x, **(xaxis or {})},
        yaxis={"title": {"text": y_title}, "automargin": False, **(yaxis or {})},
        **layout,
    )
    merged = _merge(fig.layout.to_plotly_json(), shared)
    return go.Figure(data=[t.to_plotly_json() for t in fig.data], layout=merged,
                     _validate=False)


def _merge(base, extra):
    """``base`` updated by ``extra``, nested dictionaries merged key by key."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


SUBTITLE_STYLE = "font-size:12px;color:#444"


def _readable_title(title, width):
    """Subtitle (after ``<br><sup>``) at 12 px instead of Plotly's ~9 px superscript, wrapped
    on "; " so it fits a plot about ``width`` px wide; returns ``(text, subtitle lines)``."""
    head, sep, sub = title.partition("<br><sup>")
    if not sep:
        return title, 1
    sub = sub.removesuffix("</sup>")
    per_line = max(40, int(width / 6.2))
    lines, line = [], ""
    for part in sub.split("; "):
        candidate = f"{line}; {part}" if line else part
        if line and len(candidate) > per_line:
            lines.append(line + ";")
            line = part
        else:
            line = candidate
    lines.append(line)
    body = "<br>".join(f"<span style='{SUBTITLE_STYLE}'>{x}</span>" for x in lines)
    return f"{head}<br>{body}", 1 + len(lines)


def _legend_rows(traces, width=400):
    """Rows of the horizontal legend under the plot, so the bottom margin can hold it.

    Plotly puts a horizontal legend on one row when it fits and otherwise on a grid of
    equal columns as wide as the widest entry; estimated for a plot about 400 px wide
    (half the main area of a 1280 px screen with the sidebar open).
    """
    widths = [40 + 5.6 * len(str(t.name or "")) for t in traces]
    if sum(widths) <= width:
        rows = 1
    else:
        rows = math.ceil(len(widths) / max(1, int(width // max(widths))))
    return rows


def _current_marker(current, y_low, y_high):
    """Vertical dotted line at the selected iteration, as a trace named "current iteration"."""
    return go.Scatter(
        x=[current, current], y=[y_low, y_high], mode="lines", name="current iteration",
        line=dict(color=GREY, width=1.5, dash="dot"),
        hovertemplate="selected iteration %{x}<extra></extra>")


def _line(x, y, name, color, *, width=2, dash=None, fmt=".4g", **kwargs):
    return go.Scatter(
        x=x, y=y, mode="lines+markers" if len(x) <= 60 else "lines", name=name,
        line=dict(color=color, width=width, dash=dash), marker=dict(size=4),
        hovertemplate=f"{name} = %{{y:{fmt}}}<extra></extra>", **kwargs)
