"""How every figure is built: traces without Plotly's per-property checks, one figure made
at the end, the layout all share (title, legend, margins) and the common traces."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .style import (
    CURRENT_DASH,
    GREY,
    HEIGHT,
    ITERATION_AXIS,
    MARGIN_RIGHT,
    SUBTITLE_STYLE,
    TEMPLATE,
    TEXT,
    colorbar_room,
)



def _unchecked(kind):
    """A builder of ``go.<kind>`` traces as plain dicts (``{"type": ..., **props}``), made
    without Plotly's trace objects.

    A trace object costs 0.1 ms to build and copy out even with its checks off (its
    constructor visits each of its ~70 properties), which a Step pays for every trace of
    every chart on screen; a dict costs 1 µs.  :func:`styled` makes the ``go.Figure``, or
    the dict the app's live charts draw.  The tests rebuild every figure with Plotly's
    checks on, so a wrong property still fails there.
    """
    def build(**props):
        return {"type": kind.lower(), **_set(props)}

    build.__name__ = build.__qualname__ = kind
    build.__doc__ = f"A ``plotly.graph_objects.{kind}`` trace as a dict, unchecked."
    return build


def _set(props):
    """``props`` without the None values, in nested dictionaries too: to Plotly's checks a
    None means "not set", and without the checks it would reach the JSON as a null."""
    return {k: _set(v) if isinstance(v, dict) else v for k, v in props.items() if v is not None}


Bar, Box, Contour, Heatmap, Scatter, Scattergl = map(
    _unchecked, ("Bar", "Box", "Contour", "Heatmap", "Scatter", "Scattergl"))


class Draft:
    """The traces of a figure being built (:func:`new_figure`); :func:`styled` makes the
    figure from them in one go (Plotly's ``add_trace`` copies and re-checks the figure's data
    at each call)."""

    def __init__(self, traces):
        self.data = list(traces)

    def add_trace(self, trace):
        self.data.append(trace)
        return self


def new_figure(*traces):
    """A :class:`Draft` holding ``traces``; :func:`styled` turns it into the figure."""
    return Draft(traces)


def _shown_colorbars(traces):
    """The colorbars Plotly draws (of traces that do not hide their scale)."""
    return [t["colorbar"] for t in traces if "colorbar" in t and t.get("showscale") is not False]


def styled(draft, *, title, x_title, y_title, uirevision, height=HEIGHT, hovermode="closest",
           legend_width=400, xaxis=None, yaxis=None, spec=False, **layout):
    """The figure of ``draft``'s traces with the layout every figure shares; legend shown when
    more than one trace has one.  ``xaxis``, ``yaxis`` and ``layout`` add to (or override)
    that layout.

    The figure is made in one go, without Plotly's checks (``update_layout`` walks every key
    it is given and costs about 10 times more, on every chart of every Step).  The template
    is :data:`.style.TEMPLATE`.  ``spec``: the figure as a dict (``{"data", "layout"}``, the
    traces as dicts, the template shared, not copied) instead of a ``go.Figure``, whose
    making costs 0.25 ms a trace; the app's live charts draw either.

    The margins are set here
    (title lines, legend rows) and not grown by Plotly (``automargin``): measuring and growing
    them costs the browser a second layout pass on every redraw.  The right margin holds the
    figure's colorbar, if it shows one (:func:`.style.colorbar`).
    """
    traces = draft.data
    shown = [t for t in traces if t.get("showlegend") is not False]
    multi = len(shown) > 1
    legend_room = _legend_rows(shown, legend_width) * 21 if multi else 0
    right = max([MARGIN_RIGHT, *map(colorbar_room, _shown_colorbars(traces))])
    title, title_lines = _readable_title(title, legend_width)
    x = {"title": {"text": x_title}, "automargin": False}
    if x_title == ITERATION_AXIS:  # whole iterations only: no 1.5 ticks on short runs
        last = max((np.nanmax(np.asarray(t["x"], dtype=float)) for t in traces
                    if t.get("x") is not None and len(t["x"])), default=1.0)
        x.update(tickformat="d", **({"dtick": 1} if last <= 12 else {}))  # no null in the JSON
    shared = dict(
        template=TEMPLATE,
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
        # hover labels white with dark text (Plotly's default fills them with the trace's
        # color, and its grey or white text on most of the palette is under 4.5:1)
        hoverlabel=dict(bgcolor="white", font=dict(color=TEXT)),
        xaxis={**x, **(xaxis or {})},
        yaxis={"title": {"text": y_title}, "automargin": False, **(yaxis or {})},
        **layout,
    )
    if spec:
        return {"data": traces, "layout": shared}
    return go.Figure(data=traces, layout=shared, _validate=False)


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
    widths = [40 + 5.6 * len(str(t.get("name") or "")) for t in traces]
    if sum(widths) <= width:
        rows = 1
    else:
        rows = math.ceil(len(widths) / max(1, int(width // max(widths))))
    return rows


CURRENT = "current iteration"  # the marker's name: figure_summary reads values at it


def iteration_marker(current, y_low, y_high):
    """Vertical dotted line at the selected iteration, as a trace named "current iteration"."""
    return Scatter(
        x=[current, current], y=[y_low, y_high], mode="lines", name=CURRENT,
        line=dict(color=GREY, width=1.5, dash=CURRENT_DASH),
        hovertemplate="selected iteration %{x}<extra></extra>")


MAX_MARKERS = 15  # markers kept on a curve of more than 60 points (its line keeps every point)


def line_trace(x, y, name, color, *, width=2, dash=None, symbol=None, fmt=".4g", **kwargs):
    """A curve over iterations: a line with a marker at each point up to 60 points, at
    :data:`MAX_MARKERS` of them beyond.  ``dash`` and ``symbol`` tell it from the figure's
    other curves without its color, in the plot and in the legend, whose short line sample
    shows a long dash as a solid line but always shows the marker (a symbol other than a
    circle is drawn a little larger, to read as well at that size)."""
    size = 4 if symbol in (None, "circle") else 6
    return Scatter(
        x=x, y=y, mode="lines+markers", name=name,
        line=dict(color=color, width=width, dash=dash),
        marker=dict(size=size, symbol=symbol, maxdisplayed=None if len(x) <= 60 else MAX_MARKERS),
        hovertemplate=f"{name} = %{{y:{fmt}}}<extra></extra>", **kwargs)
