"""A chart's text alternative: one paragraph that says what a figure shows and its current
values, read from the figure itself (WCAG 2.1, 1.1.1 Non-text Content)."""
from __future__ import annotations

import base64
import html
import re

import numpy as np

from ._figures import CURRENT

__all__ = ["figure_summary"]

_TAG = re.compile(r"</?(?:br|sup|sub|s|u|b|i|a|span|em)(?:\s[^<>]*)?/?>", re.I)  # Plotly's own
MAX_LISTED = 12  # bars named one by one; more are summed up by their range


def _text(value):
    """Plain text of a Plotly title (a string or ``{"text": ...}``): its first line, tags
    removed (a subtitle follows a ``<br>``)."""
    if isinstance(value, dict):
        value = value.get("text")
    if not value:
        return ""
    first = re.split(r"<br\s*/?>", str(value), maxsplit=1)[0]
    return html.unescape(_TAG.sub("", first)).strip()


def _short(text, every=False):
    """``text`` without its citations ("(Roy et al. 2016, Thm 2)"; ``every``: without any
    remark in parentheses): the legend and the data table keep them, a label read at every
    Step need not."""
    pattern = r"\s+\([^()]*\)" if every else r"\s+\([^()]*\b\d{4}\b[^()]*\)"
    return re.sub(pattern, "", text)


def _number(v):
    """A value as a reader hears it: three decimals below 1000, whole above."""
    if isinstance(v, (str, np.str_)):
        return str(v)
    v = float(v)
    if not np.isfinite(v):
        return "none" if np.isnan(v) else ("infinity" if v > 0 else "minus infinity")
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{round(v, 3) + 0.0:.3f}" if abs(v) < 1000 else f"{v:.0f}"  # never "-0.000"


def _array(trace, key):
    value = trace.get(key)
    if value is None:
        return None
    if isinstance(value, dict) and "bdata" in value:  # a typed array, as Plotly's dict gives it
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return out.reshape([int(s) for s in str(shape).split(",")]) if shape else out
    out = np.asarray(value, dtype=object if isinstance(value, (list, tuple)) else None)
    if out.dtype == object:
        try:
            out = out.astype(float)
        except (TypeError, ValueError):
            out = out.astype(str)
    return out


def _axis_title(layout, trace, axis):
    ref = trace.get(f"{axis}axis") or axis
    return _short(_text((layout.get(f"{axis}axis{ref[1:]}") or {}).get("title")), every=True)


def _current(data):
    """The x of the vertical line at the iteration shown (the trace named "current
    iteration" that every history figure draws), and that trace."""
    for trace in data:
        x = _array(trace, "x")
        if trace.get("name") == CURRENT and x is not None and len(x) == 2 and x[0] == x[1]:
            return x[0], trace
    return None, None


def _drawn(name, xf, yf, layout, trace):
    """A line drawn on the axes (not a value over time): where it lies (a path of several
    pieces, such as a boundary: its name)."""
    if len(xf) == 2 and xf[0] == xf[1]:
        return f"{name} at {_axis_title(layout, trace, 'x') or 'x'} {_number(xf[0])}"
    if len(xf) == 2 and yf[0] == yf[1]:
        return f"{name} at {_axis_title(layout, trace, 'y') or 'y'} {_number(yf[0])}"
    if np.isfinite(xf).all() and np.isfinite(yf).all():
        return (f"{name}: a line from ({_number(xf[0])}, {_number(yf[0])}) to "
                f"({_number(xf[-1])}, {_number(yf[-1])})")
    return name


def _finite(values):
    values = np.asarray(values, dtype=float)
    return values[np.isfinite(values)]


def _series(trace, layout, at):
    """``(where, text)``: a line's value at ``at`` (or its last), where being the x axis and
    value it is read at; a set of points: ``("", its size or where it is)``; a line drawn on
    the axes: ``(None, where it lies)``; None: no data."""
    name = _short(_text(trace.get("name")))
    x, y = _array(trace, "x"), _array(trace, "y")
    if y is None or len(y) == 0:
        return None
    mode = str(trace.get("mode", "lines" if len(y) > 20 else "lines+markers"))
    numeric = x is not None and x.dtype.kind in "fiu" and y.dtype.kind in "fiu"
    if "lines" not in mode or not numeric:
        return _marks(name, x, y, layout, trace)
    xf, yf = x.astype(float), y.astype(float)
    if (len(x) > 1 and not np.all(np.diff(xf) > 0)) or (
            len(x) == 2 and "markers" not in mode and yf[0] == yf[1]):
        return None, _drawn(name, xf, yf, layout, trace)   # not a series over increasing x
    i = len(y) - 1
    if at is not None and np.any(x == at):
        i = int(np.flatnonzero(x == at)[-1])
    where = f"{_axis_title(layout, trace, 'x') or 'x'} {_number(x[i])}"
    return where, f"{name} {_number(y[i])}"


def _marks(name, x, y, layout, trace):
    """A set of marks: where it is (one or two marks), else how many; a legend's key (no mark
    of its own): its name."""
    if x is None or x.dtype.kind not in "fiu" or y.dtype.kind not in "fiu":
        return "", f"{name} {len(y)}"
    xf, yf = x.astype(float), y.astype(float)
    drawn = np.isfinite(xf) & np.isfinite(yf)
    if not drawn.any():   # a legend's key: what a symbol drawn elsewhere means
        return "", name
    if drawn.sum() > 2:
        return "", f"{name} {int(drawn.sum())}"
    xt, yt = _axis_title(layout, trace, "x") or "x", _axis_title(layout, trace, "y") or "y"
    return "", f"{name} at " + " and ".join(f"{xt} {_number(a)}, {yt} {_number(b)}"
                                            for a, b in zip(xf[drawn], yf[drawn]))


def _bars(trace, layout):
    name = _short(_text(trace.get("name")))
    horizontal = trace.get("orientation") == "h"
    labels, values = (_array(trace, "y"), _array(trace, "x")) if horizontal else (
        _array(trace, "x"), _array(trace, "y"))
    if values is None or len(values) == 0:
        return None
    if labels is None:
        labels = np.arange(len(values))
    axis = _axis_title(layout, trace, "y" if horizontal else "x")
    head = f"{name} by {axis}: " if name and axis else (f"{name}: " if name else "")
    if len(values) <= MAX_LISTED:
        return head + ", ".join(f"{_number(a)}: {_number(b)}" for a, b in zip(labels, values))
    v = _finite(values)
    return head + (f"{len(values)} bars from {_number(v.min())} to {_number(v.max())}"
                   if len(v) else f"{len(values)} bars")


def _grid(trace, layout):
    z = _array(trace, "z")
    if z is None or z.size == 0:
        return None
    bar = trace.get("colorbar") or {}
    name = _text(bar.get("title")) or _text(trace.get("name")) or "colour"
    x, y = _axis_title(layout, trace, "x") or "x", _axis_title(layout, trace, "y") or "y"
    v = _finite(z)
    span = f" from {_number(v.min())} to {_number(v.max())}" if len(v) else ""
    return f"{name} over {x} and {y}{span}"


def _box(trace, layout):
    values = _array(trace, "y")
    values = _array(trace, "x") if values is None else values
    if values is None or len(values) == 0:
        return None
    v = _finite(values)
    name = _short(_text(trace.get("name"))) or "values"
    return f"{name}: {len(values)} values" + (f", median {_number(np.median(v))}" if len(v)
                                              else "")


def figure_summary(figure, title=None):
    """What ``figure`` shows, in words: its title, then each named series with its value at
    the marked iteration (a vertical "current" line) or its last value, each grid's range,
    each bar's value.  ``figure``: a ``go.Figure`` or its dict (``spec=True``).

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[0.5, 0.4, 0.32], mode="lines",
    ...                            name="C-bound"), layout=dict(title="C-bound by iteration",
    ...                            xaxis_title="iteration"))
    >>> figure_summary(fig)
    'C-bound by iteration. At iteration 3: C-bound 0.320.'
    """
    if not isinstance(figure, dict):
        figure = figure.to_plotly_json()
    layout, data = figure.get("layout") or {}, list(figure.get("data") or ())
    at, marker = _current(data)
    parts, lines, points = [], {}, []   # lines: where they are read -> their values
    for trace in data:
        if trace is marker or trace.get("visible") is False:
            continue
        kind = trace.get("type", "scatter")
        if kind in ("heatmap", "contour"):
            part = _grid(trace, layout)
        elif kind == "bar":
            part = _bars(trace, layout)
        elif kind == "box":
            part = _box(trace, layout)
        elif _text(trace.get("name")):  # an unnamed scatter: a guide line or a mark
            where, part = _series(trace, layout, at) or (None, None)
            if part is None:
                continue
            if where == "":
                points.append(part)
                continue
            if where is not None:
                if where not in lines:
                    parts.append(where)   # its place among the parts, filled in below
                lines.setdefault(where, []).append(part)
                continue
        else:
            part = None
        if part:
            parts.append(part)
    parts = [f"At {p}: " + ", ".join(lines[p]) if p in lines else p for p in parts]
    if points:
        parts.append("marks: " + ", ".join(points))
    head = title or _text(layout.get("title")) or "Chart"
    head += "" if head[-1:] in ".?!" else "."
    if not parts:
        return f"{head} No data yet."
    body = "; ".join(parts)
    return f"{head} {body[0].upper()}{body[1:]}."   # a sentence: its first letter capital
